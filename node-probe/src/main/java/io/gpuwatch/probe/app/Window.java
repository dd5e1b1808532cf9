package io.gpuwatch.probe.app;

import io.gpuwatch.protocol.Metric;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Two consecutive scrapes of one target and what can be read off them: gauges from the newer one, rates, increases
 * and histogram quantiles over the time between them. Counter resets (a value going down, or a changed
 * {@code _created} time) count the new value as the whole increase, as Prometheus's {@code increase} does.
 * Absent readings are NaN. Only the series that pass the target's filter take part. Series that differ only in a
 * replica label (ranks that report the same requests) count once, with their largest value; the rest are summed.
 */
final class Window {
    private static final Predicate<Map<String, String>> ALL = labels -> true;

    private final Exposition prev;
    private final Exposition cur;
    private final double seconds;
    private final Predicate<Map<String, String>> filter;
    private final Set<String> replicaLabels;
    private final double[] priorTotals;
    private final double[] totals;

    /**
     * @param prev          the earlier scrape, null on the first
     * @param replicaLabels labels whose series repeat one another's figures (tensor-parallel ranks)
     * @param priorTotals   the cumulative counter fields sent last time, by metric ordinal (NaN where none)
     */
    Window(Exposition prev, Exposition cur, double seconds, Predicate<Map<String, String>> filter,
           Set<String> replicaLabels, double[] priorTotals) {
        this.prev = prev;
        this.cur = cur;
        this.seconds = seconds;
        this.filter = filter;
        this.replicaLabels = replicaLabels;
        this.priorTotals = priorTotals;
        this.totals = priorTotals.clone();
    }

    /** The cumulative counter fields after this window, for the next one. */
    double[] totals() {
        return totals;
    }

    /** True when the newer scrape has a series of this name that passes the filter and {@code which}. */
    boolean has(String name, Predicate<Map<String, String>> which) {
        for (ExpositionSample s : cur.named(name)) {
            if (filter.test(s.labels()) && which.test(s.labels())) {
                return true;
            }
        }
        return false;
    }

    /** True when some series of the newer scrape that {@code which} picks has a name starting with {@code prefix}. */
    boolean mentions(String prefix, Predicate<Map<String, String>> which) {
        for (ExpositionSample s : cur.samples()) {
            if (s.name().startsWith(prefix) && which.test(s.labels())) {
                return true;
            }
        }
        return false;
    }

    /** The sum of a gauge over its series (replicas once). */
    double gauge(String name) {
        return sum(cur, name, ALL);
    }

    /** The largest value of a gauge over its series. */
    double gaugeMax(String name) {
        double max = Double.NaN;
        for (ExpositionSample s : cur.named(name)) {
            if (filter.test(s.labels()) && Double.isFinite(s.value()) && !(s.value() <= max)) {
                max = s.value();
            }
        }
        return max;
    }

    double rate(String counter) {
        return rate(counter, ALL);
    }

    /** Increase per second over the window, summed over the series {@code which} picks. */
    double rate(String counter, Predicate<Map<String, String>> which) {
        return seconds > 0 ? increase(counter, which) / seconds : Double.NaN;
    }

    double increase(String counter) {
        return increase(counter, ALL);
    }

    /** Increase over the window, summed over the series {@code which} picks; NaN on the first scrape. */
    double increase(String counter, Predicate<Map<String, String>> which) {
        if (prev == null) {
            return Double.NaN;
        }
        String created = createdOf(counter);
        Map<Map<String, String>, Double> replicas = new HashMap<>();
        for (ExpositionSample c : cur.named(counter)) {
            if (!filter.test(c.labels()) || !which.test(c.labels()) || !Double.isFinite(c.value())) {
                continue;
            }
            ExpositionSample p = prev.find(counter, c.labels());
            boolean reset = p == null || !Double.isFinite(p.value()) || c.value() < p.value()
                    || restarted(created, c.labels());
            replicas.merge(withoutReplica(c.labels()), reset ? c.value() : c.value() - p.value(), Math::max);
        }
        return total(replicas);
    }

    /**
     * A counter field as the protocol carries it: cumulative since this probe first saw it, so the gateway's rates
     * stay right across restarts of the server. Starts at the server's own value.
     */
    double cumulative(Metric field, String counter, Predicate<Map<String, String>> which) {
        double raw = sum(cur, counter, which);
        if (Double.isNaN(raw)) {
            return Double.NaN;
        }
        double prior = priorTotals[field.ordinal()];
        double total = prev == null || Double.isNaN(prior) ? raw : prior + increase(counter, which);
        totals[field.ordinal()] = total;
        return total;
    }

    double cumulative(Metric field, String counter) {
        return cumulative(field, counter, ALL);
    }

    /** The q-quantile of the observations made during the window, from the increase of each bucket. */
    double quantile(double q, String histogram) {
        if (prev == null) {
            return Double.NaN;
        }
        String bucket = histogram + "_bucket";
        String created = histogram + "_created";
        Map<Map<String, String>, List<ExpositionSample>> groups = new LinkedHashMap<>();
        for (ExpositionSample s : cur.named(bucket)) {
            if (filter.test(s.labels())) {
                groups.computeIfAbsent(withoutLe(s.labels()), k -> new ArrayList<>()).add(s);
            }
        }
        TreeMap<Double, Double> merged = new TreeMap<>();
        for (Map.Entry<Map<String, String>, List<ExpositionSample>> g : groups.entrySet()) {
            boolean reset = restarted(created, g.getKey()) || fell(histogram + "_count", g.getKey());
            for (ExpositionSample b : g.getValue()) {
                ExpositionSample p = prev.find(bucket, b.labels());
                reset |= p == null || b.value() < p.value();
            }
            for (ExpositionSample b : g.getValue()) {
                double le = Quantiles.bound(b.labels().get("le"));
                if (Double.isNaN(le) || !Double.isFinite(b.value())) {
                    continue;
                }
                ExpositionSample p = prev.find(bucket, b.labels());
                merged.merge(le, reset ? b.value() : b.value() - p.value(), Double::sum);
            }
        }
        return Quantiles.of(q, merged);
    }

    /** The largest value a summary reports for a quantile, over its series (servers compute these themselves). */
    double summaryMax(String summary, double quantile) {
        double max = Double.NaN;
        for (ExpositionSample s : cur.named(summary)) {
            if (filter.test(s.labels()) && Quantiles.bound(s.labels().get("quantile")) == quantile
                    && Double.isFinite(s.value()) && !(s.value() <= max)) {
                max = s.value();
            }
        }
        return max;
    }

    private double sum(Exposition e, String name, Predicate<Map<String, String>> which) {
        Map<Map<String, String>, Double> replicas = new HashMap<>();
        for (ExpositionSample s : e.named(name)) {
            if (filter.test(s.labels()) && which.test(s.labels()) && Double.isFinite(s.value())) {
                replicas.merge(withoutReplica(s.labels()), s.value(), Math::max);
            }
        }
        return total(replicas);
    }

    /** The sum over the groups of replicas, NaN when there are none. */
    private static double total(Map<Map<String, String>, Double> replicas) {
        double sum = Double.NaN;
        for (double v : replicas.values()) {
            sum = (Double.isNaN(sum) ? 0 : sum) + v;
        }
        return sum;
    }

    private Map<String, String> withoutReplica(Map<String, String> labels) {
        if (replicaLabels.isEmpty()) {
            return labels;
        }
        Map<String, String> out = new HashMap<>(labels);
        out.keySet().removeAll(replicaLabels);
        return out;
    }

    /** True when the series' {@code _created} time changed between the scrapes: the server restarted it. */
    private boolean restarted(String created, Map<String, String> labels) {
        ExpositionSample c = cur.find(created, labels);
        ExpositionSample p = prev.find(created, labels);
        return c != null && p != null && c.value() != p.value();
    }

    private boolean fell(String name, Map<String, String> labels) {
        ExpositionSample c = cur.find(name, labels);
        ExpositionSample p = prev.find(name, labels);
        return c != null && p != null && c.value() < p.value();
    }

    /** {@code x_total} is created at {@code x_created}, as Python's prometheus_client writes it. */
    private static String createdOf(String counter) {
        return (counter.endsWith("_total") ? counter.substring(0, counter.length() - "_total".length()) : counter)
                + "_created";
    }

    private static Map<String, String> withoutLe(Map<String, String> labels) {
        Map<String, String> out = new HashMap<>(labels);
        out.remove("le");
        return Map.copyOf(out);
    }
}
