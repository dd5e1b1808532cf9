package io.gpuwatch.probe.sched.kueue;

import io.gpuwatch.probe.app.Exposition;
import io.gpuwatch.probe.app.ExpositionSample;
import io.gpuwatch.probe.sched.Histograms;
import io.gpuwatch.probe.sched.SchedInputError;
import io.gpuwatch.probe.sched.ScrapedSource;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sched;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Kueue's metrics ({@code pkg/metrics/metrics.go}) as one {@code sched} frame per ClusterQueue: pending
 * workloads (active and inadmissible), admitted active ones, the admission wait of the workloads admitted since
 * the last scrape, evictions for preemption, and the GPU quota and its use over all flavors.
 */
public final class KueueReader implements ScrapedSource.Reader {
    /** The resource name of whole NVIDIA cards in Kubernetes. */
    public static final String GPU = "nvidia.com/gpu";

    private final Histograms waits = new Histograms();

    @Override
    public List<Sched> read(Exposition e, long nowMs) throws SchedInputError {
        TreeSet<String> queues = new TreeSet<>();
        for (String family : List.of("kueue_pending_workloads", "kueue_admitted_active_workloads",
                "kueue_cluster_queue_nominal_quota", "kueue_cluster_queue_resource_usage")) {
            e.named(family).forEach(s -> add(queues, s.labels().get("cluster_queue")));
        }
        if (queues.isEmpty()) {
            throw new SchedInputError("kueue", "no kueue_pending_workloads, kueue_admitted_active_workloads or "
                    + "kueue_cluster_queue_* series: is this Kueue's metrics endpoint (port 8080, /metrics)?");
        }
        Map<String, NavigableMap<Double, Double>> buckets = Histograms.buckets(e,
                "kueue_admission_wait_time_seconds", l -> l.get("cluster_queue"));
        boolean evictions = e.type("kueue_evicted_workloads_total") != null
                || !e.named("kueue_evicted_workloads_total").isEmpty();
        List<Sched> frames = new ArrayList<>();
        for (String q : queues) {
            MetricValues.Builder v = MetricValues.builder();
            set(v, Metric.PENDING, sum(e, "kueue_pending_workloads", q, null));
            set(v, Metric.RUNNING, sum(e, "kueue_admitted_active_workloads", q, null));
            NavigableMap<Double, Double> admitted = waits.since(q, buckets.getOrDefault(q, new TreeMap<>()));
            if (admitted != null) {
                set(v, Metric.WAIT_P50_S, Histograms.quantile(0.5, admitted));
                set(v, Metric.WAIT_P90_S, Histograms.quantile(0.9, admitted));
            }
            if (evictions) {
                double preempted = 0;
                for (ExpositionSample s : e.named("kueue_evicted_workloads_total")) {
                    if (q.equals(s.labels().get("cluster_queue")) && "Preempted".equals(s.labels().get("reason"))) {
                        preempted += s.value();
                    }
                }
                v.set(Metric.PREEMPTIONS, preempted);
            }
            set(v, Metric.CARDS_TOTAL, sum(e, "kueue_cluster_queue_nominal_quota", q, GPU));
            set(v, Metric.CARDS_ALLOCATED, sum(e, "kueue_cluster_queue_resource_usage", q, GPU));
            frames.add(new Sched(0, nowMs, q, v.build(), List.of()));
        }
        return frames;
    }

    /** The sum of a family's series of queue {@code q} (and resource {@code resource}); NaN when it has none. */
    private static double sum(Exposition e, String family, String q, String resource) {
        double total = Double.NaN;
        for (ExpositionSample s : e.named(family)) {
            if (q.equals(s.labels().get("cluster_queue"))
                    && (resource == null || resource.equals(s.labels().get("resource")))) {
                total = (Double.isNaN(total) ? 0 : total) + s.value();
            }
        }
        return total;
    }

    private static void set(MetricValues.Builder v, Metric m, double value) {
        if (!Double.isNaN(value)) {
            v.set(m, value);
        }
    }

    private static void add(TreeSet<String> queues, String q) {
        if (q != null && !q.isEmpty()) {
            queues.add(q);
        }
    }
}
