package io.gpuwatch.probe.sched;

import io.gpuwatch.probe.app.Exposition;
import io.gpuwatch.probe.app.ExpositionSample;
import io.gpuwatch.probe.app.Quantiles;

import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Quantiles of what a cumulative histogram observed between two scrapes: the bucket counts of this scrape less
 * those of the last, per group (a queue), so a queue's wait is that of its recent admissions, not of all since the
 * scheduler started. A group whose counts fell (the scheduler restarted) starts over from the new counts.
 */
public final class Histograms {
    private final Map<String, NavigableMap<Double, Double>> last = new HashMap<>();

    /**
     * The buckets of histogram {@code name} ({@code name_bucket} series) summed per group, as {@code groupOf}
     * names it from a series' labels (null leaves the series out).
     */
    public static Map<String, NavigableMap<Double, Double>> buckets(Exposition e, String name,
                                                                    Function<Map<String, String>, String> groupOf) {
        Map<String, NavigableMap<Double, Double>> out = new HashMap<>();
        for (ExpositionSample s : e.named(name + "_bucket")) {
            String group = groupOf.apply(s.labels());
            double le = Quantiles.bound(s.labels().get("le"));
            if (group == null || Double.isNaN(le)) {
                continue;
            }
            out.computeIfAbsent(group, k -> new TreeMap<>()).merge(le, s.value(), Double::sum);
        }
        return out;
    }

    /**
     * The observations of {@code group} since the last call for it, as cumulative buckets; null on the first call
     * or when nothing was observed since.
     */
    public NavigableMap<Double, Double> since(String group, NavigableMap<Double, Double> now) {
        NavigableMap<Double, Double> before = last.put(group, now);
        if (before == null) {
            return null;
        }
        NavigableMap<Double, Double> delta = new TreeMap<>();
        boolean reset = false;
        for (Map.Entry<Double, Double> b : now.entrySet()) {
            double d = b.getValue() - before.getOrDefault(b.getKey(), 0.0);
            if (d < 0) {
                reset = true;
                break;
            }
            delta.put(b.getKey(), d);
        }
        NavigableMap<Double, Double> observed = reset ? now : delta;
        return observed.isEmpty() || !(observed.lastEntry().getValue() > 0) ? null : observed;
    }

    /** The q-quantile of cumulative buckets, as Prometheus's histogram_quantile interpolates it. */
    public static double quantile(double q, NavigableMap<Double, Double> cumulative) {
        return Quantiles.of(q, cumulative);
    }
}
