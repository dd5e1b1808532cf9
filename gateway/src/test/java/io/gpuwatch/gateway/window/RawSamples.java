package io.gpuwatch.gateway.window;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.LongToDoubleFunction;

/** Brute-force reference for the window functions: every accepted sample by slot, evaluated by scanning. */
final class RawSamples {
    private final long resolutionMs;
    private final NavigableMap<Long, Float> bySlot = new TreeMap<>();

    RawSamples(long resolutionMs) {
        this.resolutionMs = resolutionMs;
    }

    void put(long tsMs, double value) {
        float v = (float) value;
        if (Float.isFinite(v)) {
            bySlot.put(Math.floorDiv(tsMs, resolutionMs), v);
        }
    }

    private NavigableMap<Long, Float> range(long firstSlot, long lastSlot) {
        return firstSlot > lastSlot ? new TreeMap<>() : bySlot.subMap(firstSlot, true, lastSlot, true);
    }

    double count(long firstSlot, long lastSlot) {
        return range(firstSlot, lastSlot).size();
    }

    double sum(long firstSlot, long lastSlot) {
        var r = range(firstSlot, lastSlot);
        return r.isEmpty() ? Double.NaN : r.values().stream().mapToDouble(Float::doubleValue).sum();
    }

    double avg(long firstSlot, long lastSlot) {
        return sum(firstSlot, lastSlot) / count(firstSlot, lastSlot);
    }

    double min(long firstSlot, long lastSlot) {
        return range(firstSlot, lastSlot).values().stream().mapToDouble(Float::doubleValue).min().orElse(Double.NaN);
    }

    double max(long firstSlot, long lastSlot) {
        return range(firstSlot, lastSlot).values().stream().mapToDouble(Float::doubleValue).max().orElse(Double.NaN);
    }

    /** Each sample's rise from its predecessor (a drop = reset to 0), when the predecessor is within lookback. */
    double increase(long firstSlot, long lastSlot) {
        var r = range(firstSlot, lastSlot);
        if (r.isEmpty()) {
            return Double.NaN;
        }
        long lookbackSlots = MetricWindow.LOOKBACK_MS / resolutionMs;
        double inc = 0;
        for (Map.Entry<Long, Float> e : r.entrySet()) {
            Map.Entry<Long, Float> prev = bySlot.lowerEntry(e.getKey());
            if (prev != null && e.getKey() - prev.getKey() <= lookbackSlots) {
                double v = e.getValue();
                double p = prev.getValue();
                inc += v >= p ? v - p : v;
            }
        }
        return inc;
    }

    /** Newest minus oldest sample in the range; NaN with fewer than two. */
    double delta(long firstSlot, long lastSlot) {
        var r = range(firstSlot, lastSlot);
        return r.size() < 2 ? Double.NaN : (double) r.lastEntry().getValue() - r.firstEntry().getValue();
    }

    /** Pairs of consecutive samples in the range where the second is lower; NaN without samples. */
    double resets(long firstSlot, long lastSlot) {
        return pairs(firstSlot, lastSlot, true);
    }

    /** Pairs of consecutive samples in the range that differ; NaN without samples. */
    double changes(long firstSlot, long lastSlot) {
        return pairs(firstSlot, lastSlot, false);
    }

    private double pairs(long firstSlot, long lastSlot, boolean drops) {
        var r = range(firstSlot, lastSlot);
        if (r.isEmpty()) {
            return Double.NaN;
        }
        int n = 0;
        Float prev = null;
        for (float v : r.values()) {
            if (prev != null && (drops ? v < prev : v != prev)) {
                n++;
            }
            prev = v;
        }
        return n;
    }

    /** Prometheus' quantile_over_time over every sample of the range, by sorting. */
    double quantile(long firstSlot, long lastSlot, double p) {
        return quantileOf(range(firstSlot, lastSlot).values().stream().mapToDouble(Float::doubleValue).toArray(), p);
    }

    /**
     * The quantile a two-tier window is documented to give: samples of slots before {@code fineFirst} stand in
     * per bucket of {@code k} slots as its minimum, its maximum and (count - 2) times its float mean.
     */
    double bucketedQuantile(long firstSlot, long lastSlot, long fineFirst, int k, double p) {
        List<Double> values = new ArrayList<>();
        Map<Long, List<Float>> byBucket = new TreeMap<>();
        for (Map.Entry<Long, Float> e : range(firstSlot, lastSlot).entrySet()) {
            if (e.getKey() < fineFirst) {
                byBucket.computeIfAbsent(Math.floorDiv(e.getKey(), k), q -> new ArrayList<>()).add(e.getValue());
            } else {
                values.add((double) e.getValue());
            }
        }
        for (List<Float> bucket : byBucket.values()) {
            float sum = 0;
            float min = Float.POSITIVE_INFINITY;
            float max = Float.NEGATIVE_INFINITY;
            for (int i = 0; i < bucket.size(); i++) {
                float v = bucket.get(i);
                sum = i == 0 ? v : sum + v;
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
            values.add((double) min);
            if (bucket.size() >= 2) {
                values.add((double) max);
            }
            float mean = Math.min(max, Math.max(min, sum / bucket.size()));
            for (int i = 2; i < bucket.size(); i++) {
                values.add((double) mean);
            }
        }
        return quantileOf(values.stream().mapToDouble(Double::doubleValue).toArray(), p);
    }

    private static double quantileOf(double[] v, double p) {
        if (v.length == 0) {
            return Double.NaN;
        }
        Arrays.sort(v);
        double rank = p * (v.length - 1);
        int lower = (int) Math.floor(rank);
        int upper = Math.min(v.length - 1, lower + 1);
        double weight = rank - lower;
        return v[lower] * (1 - weight) + v[upper] * weight;
    }

    /** The least-squares line of value against {@code x(slot)} (seconds), read at {@code atSeconds}. */
    double predict(long firstSlot, long lastSlot, LongToDoubleFunction x, double atSeconds) {
        var r = range(firstSlot, lastSlot);
        double slope = slope(firstSlot, lastSlot, x);
        if (Double.isNaN(slope)) {
            return Double.NaN;
        }
        double mx = r.keySet().stream().mapToDouble(x::applyAsDouble).average().orElseThrow();
        double my = r.values().stream().mapToDouble(Float::doubleValue).average().orElseThrow();
        return my + slope * (atSeconds - mx);
    }

    /** Ordinary least squares of value against {@code x(slot)} (seconds). */
    double slope(long firstSlot, long lastSlot, LongToDoubleFunction x) {
        var r = range(firstSlot, lastSlot);
        if (r.size() < 2) {
            return Double.NaN;
        }
        double mx = r.keySet().stream().mapToDouble(x::applyAsDouble).average().orElseThrow();
        double my = r.values().stream().mapToDouble(Float::doubleValue).average().orElseThrow();
        double sxx = 0;
        double sxy = 0;
        for (Map.Entry<Long, Float> e : r.entrySet()) {
            double dx = x.applyAsDouble(e.getKey()) - mx;
            sxx += dx * dx;
            sxy += dx * (e.getValue() - my);
        }
        return sxx == 0 ? Double.NaN : sxy / sxx;
    }
}
