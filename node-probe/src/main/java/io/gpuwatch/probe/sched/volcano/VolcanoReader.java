package io.gpuwatch.probe.sched.volcano;

import io.gpuwatch.probe.app.Exposition;
import io.gpuwatch.probe.app.ExpositionSample;
import io.gpuwatch.probe.sched.Histograms;
import io.gpuwatch.probe.sched.QueueFigures;
import io.gpuwatch.probe.sched.SchedInputError;
import io.gpuwatch.probe.sched.ScrapedSource;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sched;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The Volcano scheduler's metrics ({@code pkg/scheduler/metrics}) as {@code sched} frames: one for the whole
 * scheduler under the pool name (jobs it could not schedule, the end-to-end scheduling latency of the jobs
 * scheduled since the last scrape, preemption attempts), and one per Volcano queue (pod groups pending and
 * running, the scheduling duration of its jobs, GPUs allocated, requested and the queue's capacity).
 */
public final class VolcanoReader implements ScrapedSource.Reader {
    /** The resource name of whole NVIDIA cards in Kubernetes. */
    public static final String GPU = "nvidia.com/gpu";

    private final String pool;
    private final Histograms latency = new Histograms();

    /** @param pool the queue name the scheduler-wide figures are sent under */
    public VolcanoReader(String pool) {
        this.pool = pool;
    }

    @Override
    public List<Sched> read(Exposition e, long nowMs) throws SchedInputError {
        boolean any = e.samples().stream().anyMatch(s -> s.name().startsWith("volcano_"));
        if (!any) {
            throw new SchedInputError("volcano", "no volcano_* series: is this the Volcano scheduler's metrics "
                    + "endpoint (port 8080, /metrics)?");
        }
        List<Sched> frames = new ArrayList<>();
        frames.add(scheduler(e, nowMs));
        TreeSet<String> queues = new TreeSet<>();
        for (ExpositionSample s : e.samples()) {
            if (s.name().startsWith("volcano_queue_") && s.labels().get("queue_name") != null) {
                queues.add(s.labels().get("queue_name"));
            }
        }
        Map<String, List<Double>> durations = new HashMap<>();
        for (ExpositionSample s : e.named("volcano_e2e_job_scheduling_duration")) {
            String q = s.labels().get("queue");
            if (q != null) {
                durations.computeIfAbsent(q, k -> new ArrayList<>()).add(s.value() / 1000);
            }
        }
        for (String q : queues) {
            MetricValues.Builder v = MetricValues.builder();
            double pending = one(e, "volcano_queue_pod_group_pending_count", q, null);
            double inqueue = one(e, "volcano_queue_pod_group_inqueue_count", q, null);
            // Inqueue pod groups have passed the queue's admission but their pods are not bound yet: still waiting
            if (!Double.isNaN(pending) || !Double.isNaN(inqueue)) {
                v.set(Metric.PENDING, orZero(pending) + orZero(inqueue));
            }
            set(v, Metric.RUNNING, one(e, "volcano_queue_pod_group_running_count", q, null));
            List<Double> d = durations.get(q);
            if (d != null) {
                double[] sorted = d.stream().mapToDouble(Double::doubleValue).sorted().toArray();
                v.set(Metric.WAIT_P50_S, QueueFigures.percentile(sorted, 0.5))
                        .set(Metric.WAIT_P90_S, QueueFigures.percentile(sorted, 0.9))
                        .set(Metric.WAIT_MAX_S, sorted[sorted.length - 1]);
            }
            set(v, Metric.CARDS_ALLOCATED, one(e, "volcano_queue_allocated_scalar_resources", q, GPU));
            set(v, Metric.REQUESTED_CARDS, one(e, "volcano_queue_request_scalar_resources", q, GPU));
            double capacity = one(e, "volcano_queue_capacity_scalar_resources", q, GPU);
            set(v, Metric.CARDS_TOTAL, Double.isNaN(capacity)
                    ? one(e, "volcano_queue_deserved_scalar_resources", q, GPU) : capacity);
            frames.add(new Sched(0, nowMs, q, v.build(), List.of()));
        }
        return frames;
    }

    private Sched scheduler(Exposition e, long nowMs) {
        MetricValues.Builder v = MetricValues.builder();
        set(v, Metric.PENDING, first(e, "volcano_unschedule_job_count"));
        set(v, Metric.PREEMPTIONS, first(e, "volcano_total_preemption_attempts"));
        NavigableMap<Double, Double> scheduled = latency.since(pool, Histograms.buckets(e,
                "volcano_e2e_job_scheduling_latency_milliseconds", l -> pool).getOrDefault(pool, new TreeMap<>()));
        if (scheduled != null) {
            set(v, Metric.WAIT_P50_S, Histograms.quantile(0.5, scheduled) / 1000);
            set(v, Metric.WAIT_P90_S, Histograms.quantile(0.9, scheduled) / 1000);
        }
        return new Sched(0, nowMs, pool, v.build(), List.of());
    }

    /** The value of a family's series of queue {@code q} (summed if several); NaN when it has none. */
    private static double one(Exposition e, String family, String q, String resource) {
        double total = Double.NaN;
        for (ExpositionSample s : e.named(family)) {
            if (q.equals(s.labels().get("queue_name"))
                    && (resource == null || resource.equals(s.labels().get("resource")))) {
                total = orZero(total) + s.value();
            }
        }
        return total;
    }

    private static double first(Exposition e, String name) {
        List<ExpositionSample> s = e.named(name);
        return s.isEmpty() ? Double.NaN : s.get(0).value();
    }

    private static void set(MetricValues.Builder v, Metric m, double value) {
        if (!Double.isNaN(value)) {
            v.set(m, value);
        }
    }

    private static double orZero(double v) {
        return Double.isNaN(v) ? 0 : v;
    }
}
