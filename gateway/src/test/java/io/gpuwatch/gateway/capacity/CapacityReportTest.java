package io.gpuwatch.gateway.capacity;

import io.gpuwatch.gateway.store.QueueRow;
import io.gpuwatch.gateway.store.UsageRow;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The report's figures from hand-made history rows, each worked out by hand: two hours of a fine-tune on owned
 * H100s with one card idle throughout, and an inference service on cloud H100s, one row each a minute.
 */
class CapacityReportTest {
    private static final long T0 = 1_767_571_200_000L;
    private static final long MIN = 60_000L;
    private static final double GIB = 1L << 30;
    private static final double H100_BF16 = 989.4e12;
    private static final double H100_FP8 = 1978.9e12;

    /** ft-a: 4 owned H100 (1.10 each), 3 busy, 1 idle since before the window (reclaimable from minute 31). */
    private static UsageRow fineTune(int m) {
        return new UsageRow(T0 + m * MIN, MIN, "ft-a", "alice", "chat", "train", "training", "owned", "H100 SXM",
                4, 3, 1, m > 30 ? 1 : 0, 8, 320 * GIB, 80 * GIB, 4.40, 0.2 * 4 * H100_BF16, 4 * H100_BF16, 0);
    }

    /** chat-serve: 2 cloud H100 (6.98 each), both busy, 2,500 tokens/s of a 70.6 B model at fp8. */
    private static UsageRow service(int m) {
        return new UsageRow(T0 + m * MIN, MIN, "chat-serve", "bob", "chat", "inf", "inference", "cloud", "H100 SXM",
                2, 2, 0, 0, 2, 0, Double.NaN, 13.96, 2500 * 2 * 70.6e9, 2 * H100_FP8, 2500);
    }

    /** Queue train: 2 tasks wait for 1 card each through the first hour, a median of 10 minutes; none after. */
    private static QueueRow queue(int m) {
        boolean waiting = m <= 60;
        return new QueueRow(T0 + m * MIN, MIN, "train", waiting ? 2 : 0, waiting ? 2 : 0, waiting ? 600 : 0,
                waiting ? 900 : 0, 6, 16);
    }

    private static CapacityReport twoHours() {
        CapacityReport.Builder b = new CapacityReport.Builder(T0, T0 + 120 * MIN, "USD");
        for (int m = 1; m <= 120; m++) {
            b.add(fineTune(m));
            b.add(service(m));
            b.add(queue(m));
        }
        // outside the window: ignored
        b.add(fineTune(121));
        return b.build();
    }

    @Test
    void totalsIdleAndReclaimable() {
        CapacityReport r = twoHours();
        assertEquals(2.0, r.coveredHours(), 1e-9);
        CapacityReport.Totals t = r.totals();
        assertEquals(12.0, t.cardHours(), 1e-9, "6 cards for 2 h");
        assertEquals(10.0, t.busyCardHours(), 1e-9);
        assertEquals(2.0, t.idleCardHours(), 1e-9);
        assertEquals(1.5, t.reclaimableCardHours(), 1e-9, "minutes 31 to 120");
        assertEquals(2 * 4.40 + 2 * 13.96, t.cost(), 1e-9);
        assertEquals(2.20, t.idleCost(), 1e-9, "one owned card at 1.10 for 2 h");
        assertEquals(1.65, t.reclaimableCost(), 1e-9);
    }

    @Test
    void requestedAgainstUsedPerPoolAndBusiness() {
        List<CapacityReport.Allocation> a = twoHours().allocations();
        assertEquals(2, a.size());
        CapacityReport.Allocation cloud = a.get(0);
        CapacityReport.Allocation owned = a.get(1);
        assertEquals(List.of("cloud", "chat", "owned", "chat"), List.of(cloud.pool(), cloud.business(), owned.pool(),
                owned.business()));
        assertEquals(8.0, owned.cardHours(), 1e-9);
        assertEquals(16.0, owned.requestedCardHours(), 1e-9, "8 requested for 2 h");
        assertEquals(6.0 / 16, owned.usedOfRequested(), 1e-12, "4 cards never granted, 1 idle");
        assertEquals(0.25, owned.memUsedOfRequested(), 1e-12, "80 of 320 GiB");
        assertEquals(1.0, cloud.usedOfRequested(), 1e-12);
        assertTrue(Double.isNaN(cloud.memUsedOfRequested()), "no memory requested");
    }

    @Test
    void idleOwners() {
        List<CapacityReport.OwnerIdle> owners = twoHours().idleOwners();
        assertEquals(1, owners.size(), "bob idles nothing");
        CapacityReport.OwnerIdle alice = owners.get(0);
        assertEquals("alice", alice.owner());
        assertEquals(2.0, alice.idleCardHours(), 1e-9);
        assertEquals(1.5, alice.reclaimableCardHours(), 1e-9);
        assertEquals(1.65, alice.reclaimableCost(), 1e-9);
        assertEquals(1, alice.idleCardsNow());
        assertEquals(1, alice.reclaimableCardsNow());
    }

    @Test
    void worstTasksAgainstTheBand() {
        List<CapacityReport.TaskCompute> worst = twoHours().worstTasks();
        assertEquals(List.of("chat-serve", "ft-a"), worst.stream().map(CapacityReport.TaskCompute::task).toList());
        assertEquals(3.53e14 / (2 * H100_FP8), worst.get(0).effectiveRatio(), 1e-12);
        assertEquals(CapacityReport.Band.SERVING, worst.get(0).band());
        assertEquals(0.2, worst.get(1).effectiveRatio(), 1e-12);
        assertEquals(CapacityReport.Band.BELOW, worst.get(1).band(), "0.2 is under 38 %");
        assertEquals(8.0, worst.get(1).cardHours(), 1e-9);
        assertEquals("alice", worst.get(1).owner());
    }

    @Test
    void costPerEffectivePflopHourByModelAndPool() {
        List<CapacityReport.ComputeCost> c = twoHours().computeCosts();
        assertEquals(List.of("cloud", "owned"), c.stream().map(CapacityReport.ComputeCost::pool).toList());
        // cloud: 2 × 6.98 × 2 h = 27.92 over 0.353 PFLOP/s × 2 h = 0.706 effective PFLOP-hours
        assertEquals(27.92 / 0.706, c.get(0).costPerEffectivePflopHour(), 1e-9);
        // owned: 4 × 1.10 × 2 h = 8.80 over 0.2 × 4 × 0.9894 × 2 h = 1.58304
        assertEquals(8.80 / 1.58304, c.get(1).costPerEffectivePflopHour(), 1e-9);
        assertEquals(0.2, c.get(1).effectiveRatio(), 1e-12);
    }

    @Test
    void costPerMillionTokensPerBusiness() {
        List<CapacityReport.TokenCost> c = twoHours().tokenCosts();
        assertEquals(1, c.size());
        assertEquals(18e6, c.get(0).tokens(), 1e-3, "2,500 tokens/s for 7,200 s");
        assertEquals(36.72 / 18, c.get(0).costPerMillionTokens(), 1e-12, "every card of chat over its tokens");
    }

    @Test
    void queueTrendAndWhatIf() {
        CapacityReport r = twoHours();
        CapacityReport.QueueTrend train = r.queues().get(0);
        assertEquals(3_600_000L, train.bucketMs(), "a 2-hour window goes by hour");
        assertEquals(2, train.buckets().size());
        assertEquals(new CapacityReport.Bucket(T0, 2, 600, 900), train.buckets().get(0));
        assertEquals(new CapacityReport.Bucket(T0 + 3_600_000L, 0, 0, 0), train.buckets().get(1));
        CapacityReport.WhatIf w = r.whatIf().get(0);
        assertEquals(2.0, w.waitingTaskHours(), 1e-9, "2 tasks for an hour");
        // minutes 31–60: 1 reclaimable card of the queue's own tasks against 2 cards requested covers half
        assertEquals(0.5, w.coverableTaskHours(), 1e-9);
        assertEquals(0.25, w.share(), 1e-12);
        assertEquals(600, w.meanWaitS(), 1e-9);
        assertEquals(450, w.meanWaitAfterS(), 1e-9);
        assertEquals(1.5, w.reclaimableCardHours(), 1e-9);
    }

    @Test
    void aWeekGoesByDayAndUnpricedCardsSayUnknown() {
        CapacityReport.Builder b = new CapacityReport.Builder(T0, T0 + 7 * 86_400_000L, "");
        b.add(new QueueRow(T0 + MIN, MIN, "q", 1, 1, 30, 30, 1, 1));
        b.add(new QueueRow(T0 + 86_400_000L + MIN, MIN, "q", 3, 1, 90, 120, 1, 1));
        b.add(new UsageRow(T0 + MIN, MIN, "t", null, null, null, null, null, "L40S", 1, 0, 1, 0, 0, 0, Double.NaN,
                Double.NaN, Double.NaN, Double.NaN, 0));
        CapacityReport r = b.build();
        assertEquals(86_400_000L, r.queues().get(0).bucketMs());
        assertEquals(List.of(30.0, 90.0), r.queues().get(0).buckets().stream()
                .map(CapacityReport.Bucket::meanWaitP50s).toList());
        assertTrue(Double.isNaN(r.totals().cost()));
        assertEquals(CapacityReport.NONE, r.idleOwners().get(0).owner());
        assertTrue(r.worstTasks().isEmpty(), "no declared model, no ratio");
        assertTrue(Double.isNaN(r.computeCosts().get(0).costPerEffectivePflopHour()));
        String md = CapacityText.markdown(r);
        assertTrue(md.contains("unpriced"), md);
    }

    @Test
    void sinceIsCheckedWithAClearError() {
        long month = 30 * 86_400_000L;
        assertEquals(7 * 86_400_000L, Since.parse("7d", month).millis());
        assertEquals(36 * 3_600_000L, Since.parse("1d12h", month).millis());
        assertEquals(90 * 60_000L, Since.parse("90m", month).millis());
        assertEquals(14 * 86_400_000L, Since.parse("2w", month).millis());
        assertTrue(Since.parse("7 days", month).error().contains("expected a duration like 90m, 12h, 7d or 2w"));
        assertTrue(Since.parse("0h", month).error().contains("longer than 0"));
        assertTrue(Since.parse("31d", month).error().contains("30 days of history"));
        assertTrue(Since.parse("", month).error().contains("got ''"));
        assertThrows(IllegalArgumentException.class, () -> new CapacityReport.Builder(T0, T0, ""));
    }
}
