package io.gpuwatch.probe.app;

import java.util.Map;
import java.util.NavigableMap;

/** Quantiles of a bucketed histogram, interpolated the way Prometheus's {@code histogram_quantile} does it. */
public final class Quantiles {
    private Quantiles() {
    }

    /**
     * The q-quantile of cumulative bucket counts by upper bound; NaN without a {@code +Inf} bucket, with fewer than
     * two buckets, or with no observations. A rank in the {@code +Inf} bucket gives the highest finite bound.
     */
    public static double of(double q, NavigableMap<Double, Double> cumulative) {
        if (cumulative.size() < 2 || cumulative.lastKey() != Double.POSITIVE_INFINITY) {
            return Double.NaN;
        }
        double[] bounds = new double[cumulative.size()];
        double[] counts = new double[cumulative.size()];
        int n = 0;
        for (Map.Entry<Double, Double> e : cumulative.entrySet()) {
            bounds[n] = e.getKey();
            // buckets of several series or of a scrape taken mid-update can dip; counts never fall in truth
            counts[n] = n > 0 ? Math.max(counts[n - 1], e.getValue()) : e.getValue();
            n++;
        }
        double total = counts[n - 1];
        if (!(total > 0)) {
            return Double.NaN;
        }
        double rank = q * total;
        int b = 0;
        while (counts[b] < rank) {
            b++;
        }
        if (b == n - 1) {
            return bounds[n - 2];
        }
        if (b == 0 && bounds[0] <= 0) {
            return bounds[0];
        }
        double start = b == 0 ? 0 : bounds[b - 1];
        double before = b == 0 ? 0 : counts[b - 1];
        double in = counts[b] - before;
        return start + (bounds[b] - start) * (rank - before) / in;
    }

    /** A bucket's {@code le} as a number, or NaN when it is not one. */
    public static double bound(String le) {
        if (le == null) {
            return Double.NaN;
        }
        String s = le.strip();
        if (s.equalsIgnoreCase("+inf") || s.equalsIgnoreCase("inf")) {
            return Double.POSITIVE_INFINITY;
        }
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }
}
