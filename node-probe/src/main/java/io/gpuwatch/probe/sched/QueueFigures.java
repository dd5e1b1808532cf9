package io.gpuwatch.probe.sched;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.protocol.SchedTask;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The figures of a {@code sched} frame computed from a {@link QueueReading}: counts, waits, cards, fragmentation. */
public final class QueueFigures {
    private QueueFigures() {
    }

    /** The frame (seq 0: the uplink numbers it) of {@code r} at {@code nowMs}. */
    public static Sched frame(QueueReading r, long nowMs) {
        MetricValues.Builder v = MetricValues.builder();
        List<QueueReading.Job> pending = new ArrayList<>();
        int running = 0;
        for (QueueReading.Job j : r.jobs()) {
            if (j.pending()) {
                pending.add(j);
            } else if ("running".equals(j.state())) {
                running++;
            }
        }
        v.set(Metric.PENDING, pending.size()).set(Metric.RUNNING, running);
        double[] waits = waits(pending, nowMs);
        if (waits.length > 0) {
            v.set(Metric.WAIT_P50_S, percentile(waits, 0.5))
                    .set(Metric.WAIT_P90_S, percentile(waits, 0.9))
                    .set(Metric.WAIT_MAX_S, waits[waits.length - 1]);
        }
        if (r.preemptions() >= 0) {
            v.set(Metric.PREEMPTIONS, r.preemptions());
        }
        if (!r.nodes().isEmpty()) {
            int total = 0;
            int allocated = 0;
            int drained = 0;
            for (QueueReading.NodeCards n : r.nodes()) {
                total += n.total();
                allocated += Math.min(n.allocated(), n.total());
                if (!n.schedulable()) {
                    drained += Math.max(0, n.total() - n.allocated());
                }
            }
            v.set(Metric.CARDS_TOTAL, total).set(Metric.CARDS_ALLOCATED, allocated)
                    .set(Metric.DRAINED_CARDS, drained)
                    .set(Metric.FRAGMENTED_CARDS, fragmented(r.nodes(), pending));
        }
        if (r.requestedMemBytes() >= 0) {
            v.set(Metric.REQUESTED_MEM_BYTES, r.requestedMemBytes());
        }
        int requested = 0;
        List<SchedTask> tasks = new ArrayList<>();
        for (QueueReading.Job j : r.jobs()) {
            if (!j.ended()) {
                requested += j.requestedCards();
            }
            tasks.add(new SchedTask(j.task(), j.owner(), j.business(), j.cards(), j.state(), j.requestedCards(),
                    null, j.outcome(), j.model()));
        }
        v.set(Metric.REQUESTED_CARDS, requested);
        return new Sched(0, nowMs, r.queue(), v.build(), tasks);
    }

    /**
     * Free cards that no pending job can use because of its shape: a job needs {@code cardsPerNode} free cards on
     * one node, so the free cards of a node with fewer free than the smallest per-node request of any pending job
     * are stranded there. 0 while nothing that asks for cards waits.
     */
    public static int fragmented(List<QueueReading.NodeCards> nodes, List<QueueReading.Job> pending) {
        int smallest = Integer.MAX_VALUE;
        for (QueueReading.Job j : pending) {
            if (j.cardsPerNode() > 0) {
                smallest = Math.min(smallest, j.cardsPerNode());
            }
        }
        if (smallest == Integer.MAX_VALUE) {
            return 0;
        }
        int stranded = 0;
        for (QueueReading.NodeCards n : nodes) {
            if (n.free() < smallest) {
                stranded += n.free();
            }
        }
        return stranded;
    }

    /** Seconds each pending job has waited, ascending; jobs without a submit time are left out. */
    private static double[] waits(List<QueueReading.Job> pending, long nowMs) {
        double[] w = pending.stream().filter(j -> j.submittedMs() > 0)
                .mapToDouble(j -> Math.max(0, nowMs - j.submittedMs()) / 1000.0).toArray();
        Arrays.sort(w);
        return w;
    }

    /** The nearest-rank percentile of sorted values: the smallest value with at least {@code q} of them at or below. */
    public static double percentile(double[] sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }
}
