package io.gpuwatch.gateway.capacity;

import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.replay.Replay;
import io.gpuwatch.gateway.store.QueueRow;
import io.gpuwatch.gateway.store.UsageRow;
import io.gpuwatch.protocol.App;
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
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sampler reads the live state into history rows; reports built from them give the hand-computed figures. */
class UsageSamplerTest {
    private static final long T0 = 1_767_571_200_000L;
    private static final long MIN = 60_000L;
    private static final String H100 = "NVIDIA H100 80GB HBM3";

    private static Replay replay() {
        RuleLoad load = RuleSet.parse("none.yml", """
                group: none
                layer: device
                rules:
                  - name: hot
                    scope: card
                    severity: notice
                    when: tempC > 95
                """);
        assertTrue(load.ok(), load.diagnostics()::toString);
        Replay replay = new Replay(load.ruleSet(), MIN, s -> { });
        replay.fleet().usePricing(new Pricing("USD", 2.00, List.of(), Map.of()));
        return replay;
    }

    private static Hello hello(String node, String pool, int cards) {
        List<CardInfo> infos = new ArrayList<>();
        for (int i = 0; i < cards; i++) {
            infos.add(new CardInfo(node + "-GPU-" + i, i, H100, null, null, null, null, null));
        }
        return new Hello(1, node, "b1", "test", null, null, Map.of("pool", pool), infos);
    }

    private static CardReading card(String uuid, double util, String task) {
        return new CardReading(uuid, MetricValues.builder().set(Metric.GPU_UTIL, util).build(),
                task == null ? List.of() : List.of(new ProcessInfo(7, null, task, "ana", "chat")));
    }

    private static CapacityReport report(List<UsageSampler.Minute> minutes, long from, long to) {
        CapacityReport.Builder b = new CapacityReport.Builder(from, to, "USD");
        for (UsageSampler.Minute m : minutes) {
            m.usage().forEach(b::add);
            m.queues().forEach(b::add);
        }
        return b.build();
    }

    /**
     * ft-8b (training, bf16, 8.03 B) makes 10,000 tokens/s throughout, on 2 H100 for the first 30 minutes and on
     * 4 after: 4.818 × 10¹⁴ FLOP/s over 3 card-hours of 989.4 TFLOP/s is 0.1623, the card-hour weighted ratio.
     */
    @Test
    void aTaskWhoseCardsChangeMidWindow() {
        Replay replay = replay();
        UsageSampler sampler = new UsageSampler(replay.fleet(), n -> true, MIN);
        replay.feed("n1", hello("n1", "owned", 4), T0);
        SchedTask ft = new SchedTask("ft-8b", "ana", "chat", List.of(), "running", 4, null, null,
                new SchedTask.Model(8.03e9, "training", "bf16", null));
        List<UsageSampler.Minute> minutes = new ArrayList<>();
        long seq = 1;
        for (int m = 0; m <= 60; m++) {
            long ts = T0 + m * MIN;
            int held = m <= 30 ? 2 : 4;
            List<CardReading> readings = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                readings.add(card("n1-GPU-" + i, i < held ? 90 : 0, i < held ? "ft-8b" : null));
            }
            replay.feed("n1", new Sample(seq++, ts, readings), ts);
            replay.feed("slurm", new Sched(0, ts, "gpu", MetricValues.empty(), List.of(ft)), ts);
            replay.feed("n1", new App(seq++, ts, "ft-8b", "chat", "job",
                    MetricValues.builder().set(Metric.TOKENS_PER_SEC, 10_000).build()), ts);
            minutes.add(sampler.sample(ts));
        }
        assertTrue(minutes.get(0).usage().isEmpty(), "the first sample only starts the clock");
        UsageRow before = minutes.get(30).usage().get(0);
        UsageRow after = minutes.get(31).usage().get(0);
        assertEquals(List.of(2, 4), List.of(before.held(), after.held()));
        assertEquals(4.818e14, before.achievedFlops(), 1e9);
        assertEquals(2 * 989.4e12, before.peakFlops(), 1);
        assertEquals(4 * 989.4e12, after.peakFlops(), 1);
        assertEquals(4.0, before.requestedCards(), 1e-12, "the whole request: one group holds every card it has");

        CapacityReport r = report(minutes, T0, T0 + 60 * MIN);
        CapacityReport.TaskCompute t = r.worstTasks().get(0);
        assertEquals(3.0, t.cardHours(), 1e-9, "2 cards for 30 min, 4 for 30");
        assertEquals(4.818e14 / (3 * 989.4e12), t.effectiveRatio(), 1e-9);
        assertEquals(0.1623, t.effectiveRatio(), 5e-5);
        assertEquals(CapacityReport.Band.BELOW, t.band());
        assertEquals(0.75, r.allocations().get(0).usedOfRequested(), 1e-12, "(2 × 0.5 h + 4 × 0.5 h) / (4 × 1 h)");
        assertEquals(6.0, r.totals().cost(), 1e-9, "3 card-hours at 2.00");
    }

    /**
     * A notebook holds a card idle for 50 minutes, then computes, then idles again for 6: the first stretch is
     * reclaimable from its 30th minute (20 minutes), the second never.
     */
    @Test
    void idleTimeIsReclaimableFromTheThirtiethMinuteOfAStretch() {
        Replay replay = replay();
        UsageSampler sampler = new UsageSampler(replay.fleet(), n -> true, MIN);
        replay.feed("n1", hello("n1", "owned", 1), T0);
        List<UsageSampler.Minute> minutes = new ArrayList<>();
        for (int m = 0; m <= 60; m++) {
            long ts = T0 + m * MIN;
            double util = m < 50 || m >= 55 ? 0 : 60;
            replay.feed("n1", new Sample(m + 1, ts, List.of(card("n1-GPU-0", util, "jupyter-ana"))), ts);
            minutes.add(sampler.sample(ts));
        }
        CapacityReport r = report(minutes, T0, T0 + 60 * MIN);
        assertEquals((49 + 6) / 60.0, r.totals().idleCardHours(), 1e-9, "minutes 1–49 and 55–60");
        assertEquals(20 / 60.0, r.totals().reclaimableCardHours(), 1e-9, "minutes 30–49");
        CapacityReport.OwnerIdle ana = r.idleOwners().get(0);
        assertEquals("ana", ana.owner());
        assertEquals(1, ana.idleCardsNow());
        assertEquals(0, ana.reclaimableCardsNow(), "idle for 5 minutes at the end");
        assertEquals(40 / 60.0, ana.reclaimableCost(), 1e-9, "20 minutes at 2.00 an hour");
    }

    @Test
    void aGatewayWritesTheCardsOfTheNodesItOwnsAndTheQueuesItHears() {
        Replay replay = replay();
        UsageSampler sampler = new UsageSampler(replay.fleet(), n -> n.equals("n1"), MIN);
        replay.feed("n1", hello("n1", "owned", 1), T0);
        replay.feed("n2", hello("n2", "rented", 1), T0);
        List<UsageSampler.Minute> minutes = new ArrayList<>();
        for (int m = 0; m <= 2; m++) {
            long ts = T0 + m * MIN;
            replay.feed("n1", new Sample(m + 1, ts, List.of(card("n1-GPU-0", 80, "big"))), ts);
            replay.feed("n2", new Sample(m + 1, ts, List.of(card("n2-GPU-0", 80, "big"))), ts);
            replay.feed("slurm", new Sched(0, ts, "gpu", MetricValues.builder().set(Metric.PENDING, 1)
                    .set(Metric.WAIT_P50_S, 120).set(Metric.WAIT_MAX_S, 300).build(), List.of(
                    new SchedTask("waits", "bo", "chat", List.of(), "pending", 8))), ts);
            minutes.add(sampler.sample(ts));
        }
        List<UsageRow> rows = minutes.get(2).usage();
        assertEquals(1, rows.size(), rows.toString());
        assertEquals(List.of("big", "owned", 1), List.of(rows.get(0).task(), rows.get(0).pool(), rows.get(0).held()));
        QueueRow q = minutes.get(2).queues().get(0);
        assertEquals(new QueueRow(T0 + 2 * MIN, MIN, "gpu", 1, 8, 120, 300, Double.NaN, Double.NaN), q);
    }
}
