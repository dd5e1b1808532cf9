package io.gpuwatch.protocol;

import java.util.List;

/** Scheduling-layer readings of one queue (metrics of {@link Metric.Source#SCHED}) and its tasks. */
public record Sched(long seq, long ts, String queue, MetricValues values, List<SchedTask> tasks) implements Frame {
    public Sched {
        tasks = List.copyOf(tasks);
    }

    @Override
    public String type() {
        return "sched";
    }
}
