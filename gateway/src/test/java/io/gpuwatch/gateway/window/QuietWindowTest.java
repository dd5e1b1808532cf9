package io.gpuwatch.gateway.window;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How long a window can tell a comparison stays false, whatever samples arrive: a max (min) stays on its side of
 * a bound until the newest sample beyond it leaves, and a share of 1/0 samples rises by at most one sample a slot.
 * Each answer is checked against the worst future: samples that pull the other way from the next slot on.
 */
class QuietWindowTest {
    private static final long S = 1_000;

    @Test
    void aMaxStaysAboveTheBoundUntilItsNewestSampleAboveLeavesTheFineTier() {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(600 * S));
        for (long t = 1; t <= 200; t++) {
            w.append(t * S, t == 150 ? 50 : t == 120 ? 70 : 5);
        }
        w.at(200 * S);
        assertEquals(150 * S + 60 * S, w.sampleKeptUntil(60 * S, 10, true, true));
        assertEquals(150 * S + 60 * S, w.sampleKeptUntil(60 * S, 50, true, true), "on the bound counts when inclusive");
        assertEquals(Long.MIN_VALUE, w.sampleKeptUntil(60 * S, 50, true, false), "nothing above 50 in the last minute");
        for (long t = 201; t <= 215; t++) {
            w.append(t * S, 1);
            w.at(t * S);
            assertEquals(t < 210, w.max(60 * S) >= 10, "at " + t + " s");
        }
    }

    @Test
    void aMinStaysBelowTheBoundUntilItsNewestSampleBelowLeaves() {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(120 * S));
        for (long t = 1; t <= 100; t++) {
            w.append(t * S, t == 90 ? 8 : 16);
        }
        w.at(100 * S);
        assertEquals(90 * S + 30 * S, w.sampleKeptUntil(30 * S, 16, false, false));
        assertEquals(Long.MIN_VALUE, w.sampleKeptUntil(30 * S, 8, false, false), "nothing below 8");
    }

    @Test
    void inTheCoarseTierTheAnswerComesNoLaterThanTheSampleLeaves() {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(900 * S));
        for (long t = 1; t <= 500; t++) {
            w.append(t * S, t == 250 ? 90 : 10);
        }
        w.at(500 * S);
        long until = w.sampleKeptUntil(300 * S, 85, true, true);
        assertTrue(until > 500 * S && until <= 250 * S + 300 * S, "until " + until);
        for (long t = 501; t * S < until; t++) {
            w.append(t * S, 0);
            w.at(t * S);
            assertTrue(w.max(300 * S) >= 85, "the max fell at " + t + " s, before " + until);
        }
    }

    @Test
    void aShareOfOnesRisesAtMostOneSampleASlot() {
        MetricWindow w = zeros(1, 100);
        w.at(100 * S);
        assertEquals((100 + 46) * S, w.shareBelowUntil(60 * S, 0.75, false));
        assertEquals((100 + 45) * S, w.shareBelowUntil(60 * S, 0.75, true), "reaching 0.75 takes 45 ones");
        onesFrom(w, 101, 146);
        assertEquals(Long.MIN_VALUE, w.shareBelowUntil(60 * S, 0.75, false), "above it now");
    }

    /** A window for a minute's share, a 0 every second from {@code from} to {@code to}. */
    private static MetricWindow zeros(long from, long to) {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(60 * S));
        for (long t = from; t <= to; t++) {
            w.append(t * S, 0);
        }
        return w;
    }

    /** Appends a 1 every second from {@code from}; the minute's share passes 0.75 at {@code passes} and not before. */
    private static void onesFrom(MetricWindow w, long from, long passes) {
        for (long t = from; t <= passes; t++) {
            w.append(t * S, 1);
            w.at(t * S);
            assertEquals(t >= passes, w.avg(60 * S) > 0.75, "at " + t + " s");
        }
    }

    @Test
    void samplesStillDueBetweenTheNewestAndNowCountAsArrivals() {
        MetricWindow w = zeros(41, 99);
        // a tick at 100 s, before the card's sample of that second
        w.at(100 * S);
        assertEquals((100 + 45) * S, w.shareBelowUntil(60 * S, 0.75, false));
        onesFrom(w, 100, 145);
    }

    @Test
    void aShareOverBucketsCannotTell() {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(600 * S));
        for (long t = 1; t <= 300; t++) {
            w.append(t * S, 0);
        }
        w.at(300 * S);
        assertEquals(Long.MIN_VALUE, w.shareBelowUntil(600 * S, 0.5, false));
    }
}
