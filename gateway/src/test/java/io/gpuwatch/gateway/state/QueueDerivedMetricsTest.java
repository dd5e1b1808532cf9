package io.gpuwatch.gateway.state;

import io.gpuwatch.gateway.replay.Replay;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.protocol.SchedTask;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.metric.SeriesSpec;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The queue's derived metrics on a hand-computed case: a queue of 8 cards, 4 allocated to two running Slurm jobs
 * whose cards the probe attributes to them, one computing hard, one idle, one busy, one not reporting yet.
 */
class QueueDerivedMetricsTest {
    private static final long T0 = 1_767_571_200_000L;
    private static final long MIN = 60_000;
    private static final long GIB = 1L << 30; // whole GiB are exact in the windows' floats

    private static RuleSet rules() {
        RuleLoad load = RuleSet.parse("q.yml", """
                group: q
                layer: scheduling
                scope: queue
                severity: ticket
                rules:
                  - name: reads-them-all
                    when: >-
                      allocationRate > 2 || usedCards > 100 || usedMemBytes < 0 || usedOfAllocated > 2
                      || preemptionsPerHour > 1000
                """);
        assertTrue(load.ok(), load.diagnostics()::toString);
        return load.ruleSet();
    }

    private static double derived(Replay replay, RuleSet rules, String name, long at) {
        SeriesSpec spec = rules.series().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
        return replay.fleet().queue("gpu").at(at).series(spec.id()).last();
    }

    private static CardReading card(String uuid, double util, long memBytes, String task) {
        return new CardReading(uuid, MetricValues.builder().set(Metric.GPU_UTIL, util)
                .set(Metric.MEM_USED_BYTES, memBytes).build(),
                task == null ? List.of() : List.of(new ProcessInfo(100, memBytes, task, "alice", "chat")));
    }

    private static Sched report(long t, double preemptions) {
        return new Sched(0, t, "gpu", MetricValues.builder().set(Metric.CARDS_ALLOCATED, 4).set(Metric.CARDS_TOTAL, 8)
                .set(Metric.PREEMPTIONS, preemptions).set(Metric.PENDING, 1).build(), List.of(
                new SchedTask("slurm-1", "alice", "chat", List.of(), "running", 3),
                new SchedTask("slurm-2", "bob", "search", List.of(), "running", 1),
                new SchedTask("slurm-3", "carol", "search", List.of(), "pending", 2)));
    }

    @Test
    void allocationUseAndPreemptionsPerQueue() {
        RuleSet rules = rules();
        Replay replay = new Replay(rules, MIN, s -> { });
        replay.feed("n1", new Hello(1, "n1", "b1", "test", null, null, Map.of(), List.of(
                new CardInfo("GPU-0", 0, "NVIDIA H100", null, null, null, null, null),
                new CardInfo("GPU-1", 1, "NVIDIA H100", null, null, null, null, null),
                new CardInfo("GPU-2", 2, "NVIDIA H100", null, null, null, null, null),
                new CardInfo("GPU-3", 3, "NVIDIA H100", null, null, null, null, null))), T0);
        long seq = 0;
        // a report a minute; the preemptions counter reads 10, then 12 from minute 10, then 15 from minute 20
        for (int m = 0; m <= 40; m++) {
            long t = T0 + m * MIN;
            double preemptions = 10 + (m >= 10 ? 2 : 0) + (m >= 20 ? 3 : 0);
            // slurm-1 holds GPU-0 (80 %, 40 GiB) and GPU-1 (2 %: idle, 10 GiB); slurm-2 holds GPU-2 (50 %, 20 GiB);
            // GPU-3 runs nothing of the queue's
            replay.feed("n1", new Sample(++seq, t, List.of(card("GPU-0", 80, 40 * GIB, "slurm-1"),
                    card("GPU-1", 2, 10 * GIB, "slurm-1"), card("GPU-2", 50, 20 * GIB, "slurm-2"),
                    card("GPU-3", 90, 70 * GIB, null))), t);
            replay.feed("slurmctl", report(t, preemptions), t);
        }
        long at = T0 + 40 * MIN;
        assertEquals(0.5, derived(replay, rules, "allocationRate", at), 1e-12, "4 of 8 cards allocated");
        assertEquals(2, derived(replay, rules, "usedCards", at), "GPU-0 and GPU-2 compute; GPU-1 idles below 5 %");
        assertEquals(70 * GIB, derived(replay, rules, "usedMemBytes", at), 1e-3, "40 + 10 + 20 GiB");
        assertEquals(0.5, derived(replay, rules, "usedOfAllocated", at), 1e-12, "2 computing of 4 allocated");
        // every report is within the hour: from 10 to 15
        assertEquals(5, derived(replay, rules, "preemptionsPerHour", at), 1e-12);
    }

    @Test
    void aQueueWhoseTasksHoldNoKnownCardHasNoUse() {
        RuleSet rules = rules();
        Replay replay = new Replay(rules, MIN, s -> { });
        replay.feed("kueue", new Sched(0, T0, "gpu", MetricValues.builder().set(Metric.CARDS_ALLOCATED, 48)
                .set(Metric.CARDS_TOTAL, 64).build(), List.of()), T0);
        assertEquals(0.75, derived(replay, rules, "allocationRate", T0), 1e-12);
        assertTrue(Double.isNaN(derived(replay, rules, "usedCards", T0)), "unknown, not 0: nothing to page on");
        assertTrue(Double.isNaN(derived(replay, rules, "usedOfAllocated", T0)));
    }
}
