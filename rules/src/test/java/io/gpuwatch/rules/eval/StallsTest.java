package io.gpuwatch.rules.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The stops a rule's evaluation is not charged for: a watchdog beat that came late is a stop, an ordinary
 * scheduling delay is not, and a real collection pause of this JVM is seen where it happened on the nano clock.
 */
class StallsTest {
    private static final long MS = 1_000_000L;

    @Test
    void aBeatOnTimeOrSlightlyLateIsNoStop() {
        Stalls stalls = new Stalls();
        stalls.beat(0, Stalls.BEAT_NANOS);
        stalls.beat(10 * MS, 10 * MS + Stalls.BEAT_NANOS + Stalls.LATE_NANOS);
        assertEquals(0, stalls.pausedNanos(0, 100 * MS));
    }

    @Test
    void aLateBeatIsAStopCountedWhereItOverlapsTheInterval() {
        Stalls stalls = new Stalls();
        // slept at 100 ms, due at 102 ms, woke at 192 ms: a 90 ms stop
        stalls.beat(100 * MS, 192 * MS);
        assertEquals(90 * MS, stalls.pausedNanos(50 * MS, 300 * MS), "the whole stop within the interval");
        assertEquals(40 * MS, stalls.pausedNanos(152 * MS, 400 * MS), "only its part within the interval");
        assertEquals(0, stalls.pausedNanos(200 * MS, 300 * MS), "after it");
        assertEquals(20 * MS, stalls.pausedNanos(110 * MS, 130 * MS), "never more than the interval");
    }

    @Test
    void theLatestStopsAreKeptAndTheOldestForgotten() {
        Stalls stalls = new Stalls();
        for (int i = 0; i < 300; i++) {
            long sleptAt = i * 1_000 * MS;
            stalls.beat(sleptAt, sleptAt + Stalls.BEAT_NANOS + 50 * MS);
        }
        assertEquals(0, stalls.pausedNanos(0, 40_000 * MS), "the first 44 stops were overwritten");
        assertEquals(50 * MS, stalls.pausedNanos(299_000 * MS, 300_000 * MS));
    }

    @Test
    void theWatchdogSeesARealCollectionPauseOfThisJvm() throws Exception {
        Pauses jvm = Pauses.jvm();
        Thread.sleep(50);
        List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .filter(GarbageCollectorMXBean.class::isInstance).map(GarbageCollectorMXBean.class::cast).toList();
        // enough live objects that a full collection stops the JVM for tens of milliseconds
        List<long[]> live = new ArrayList<>();
        for (int i = 0; i < 2_000_000; i++) {
            live.add(new long[4]);
        }
        long before = collectorMillis(collectors);
        // the watchdog watches while an engine evaluates: the collection stands for a rule's evaluation
        jvm.enter();
        Thread.sleep(5);
        long from = System.nanoTime();
        System.gc();
        long to = System.nanoTime();
        Thread.sleep(20);
        jvm.exit();
        long collected = collectorMillis(collectors) - before;
        assumeTrue(collected >= 30, "the collection took " + collected + " ms, too short to tell from scheduling");
        long seen = jvm.pausedNanos(from - 5 * MS, to + 5 * MS) / MS;
        assertTrue(seen >= collected / 2, "the watchdog saw " + seen + " ms of a " + collected + " ms collection ("
                + live.size() + " objects live)");
    }

    @Test
    void theWatchdogRestsWhileNothingIsEvaluated() throws Exception {
        Stalls stalls = Stalls.start("stalls-test-watchdog");
        Thread.sleep(100);
        assertTrue(stalls.beats() <= 1, stalls.beats() + " beats with nothing evaluated");
        stalls.enter();
        stalls.enter();
        stalls.exit();
        Thread.sleep(100);
        long watching = stalls.beats();
        assertTrue(watching >= 10, watching + " beats in 100 ms of evaluation, at one per 2 ms asked");
        stalls.exit();
        Thread.sleep(20);
        long rested = stalls.beats();
        Thread.sleep(100);
        assertTrue(stalls.beats() - rested <= 1, (stalls.beats() - rested) + " beats after the evaluations ended");
        stalls.enter();
        Thread.sleep(30);
        stalls.exit();
        assertTrue(stalls.beats() > rested, "it watches again when an evaluation starts");
    }

    private static long collectorMillis(List<GarbageCollectorMXBean> collectors) {
        return collectors.stream().mapToLong(GarbageCollectorMXBean::getCollectionTime).sum();
    }
}
