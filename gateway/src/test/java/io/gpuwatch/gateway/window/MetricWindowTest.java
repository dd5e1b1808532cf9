package io.gpuwatch.gateway.window;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.function.LongToDoubleFunction;
import org.junit.jupiter.api.Test;

class MetricWindowTest {
    private static final long S = 1_000;
    private static final long[] WINDOWS = {1 * S, 7 * S, 30 * S, 60 * S, 119 * S, 120 * S, 121 * S, 137 * S,
        300 * S, 433 * S, 600 * S, 899 * S, 900 * S};

    @Test
    void fineOnlyFunctionsGiveExactValues() {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(10 * S));
        for (int t = 1; t <= 5; t++) {
            w.append(t * S, 2 * t);
        }
        w.at(5 * S);
        assertEquals(10, w.last());
        assertEquals(5, w.count(10 * S));
        assertEquals(30, w.sum(10 * S));
        assertEquals(6, w.avg(10 * S));
        assertEquals(2, w.min(10 * S));
        assertEquals(10, w.max(10 * S));
        assertEquals(2.0, w.slope(10 * S), 1e-12);
        // The first sample has no predecessor; each later one rose by 2.
        assertEquals(8, w.increase(10 * S));
        assertEquals(0.8, w.rate(10 * S), 1e-12);

        // (2 s, 5 s] holds 6, 8, 10; the rise of 6 from 4 belongs to the window.
        assertEquals(3, w.count(3 * S));
        assertEquals(8, w.avg(3 * S));
        assertEquals(6, w.increase(3 * S));
        assertEquals(2.0, w.rate(3 * S), 1e-12);
    }

    @Test
    void slopeIsLeastSquaresPerSecond() {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(10 * S));
        w.append(1 * S, 5);
        w.append(2 * S, 1);
        w.append(4 * S, 3);
        w.at(4 * S);
        // x = 1, 2, 4 s; y = 5, 1, 3: Sxy = -2, Sxx = 42/9.
        assertEquals(-3.0 / 7, w.slope(10 * S), 1e-12);
        assertEquals(3, w.avg(10 * S), 1e-12);
        assertEquals(Double.NaN, w.slope(1 * S), "one sample has no slope");
    }

    @Test
    void fineOnlyWindowMatchesBruteForce() {
        WindowShape shape = WindowShape.forWindow(120 * S);
        MetricWindow w = new MetricWindow(shape);
        RawSamples raw = new RawSamples(shape.resolutionMs());
        Random rnd = new Random(7);
        long newest = 0;
        for (int t = 0; t < 600; t++) {
            if (rnd.nextInt(10) == 0) {
                continue;
            }
            long ts = 1_700_000_000_000L + t * S + rnd.nextInt(1000);
            double v = 40 + rnd.nextGaussian() * 8;
            w.append(ts, v);
            raw.put(ts, v);
            newest = Math.floorDiv(ts, S);
            if (t % 37 == 0) {
                for (long window : new long[] {1 * S, 5 * S, 30 * S, 60 * S, 119 * S, 120 * S}) {
                    assertMatches(w, raw, shape, newest, ts + rnd.nextInt(1000), window);
                }
            }
        }
    }

    @Test
    void twoTierWindowMatchesBruteForceWithinOneBucket() {
        WindowShape shape = WindowShape.forWindow(900 * S);
        MetricWindow w = new MetricWindow(shape);
        RawSamples raw = new RawSamples(shape.resolutionMs());
        Random rnd = new Random(11);
        long start = 1_700_000_003_000L;
        for (int t = 0; t < 2400; t++) {
            // Gaps: single missing samples and, now and then, a silent minute.
            if (rnd.nextInt(12) == 0 || (t / 60) % 9 == 4) {
                continue;
            }
            long ts = start + t * S + rnd.nextInt(1000);
            double v = 60 + 20 * Math.sin(t / 90.0) + rnd.nextGaussian() * 3;
            w.append(ts, v);
            raw.put(ts, v);
            if (t % 97 == 0) {
                long newest = Math.floorDiv(ts, S);
                for (long window : WINDOWS) {
                    assertMatches(w, raw, shape, newest, ts + rnd.nextInt(2500), window);
                }
            }
        }
        assertEquals(0, w.ignoredLate());
    }

    @Test
    void linearRampHasExactSlopeAcrossTiers() {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(900 * S));
        for (int t = 0; t < 1800; t++) {
            w.append(t * S, 3 + 0.25 * t);
        }
        w.at(1799 * S);
        for (long window : WINDOWS) {
            if (window > 1 * S) {
                assertEquals(0.25, w.slope(window), 1e-9, "slope over " + window + " ms");
            }
        }
    }

    @Test
    void counterResetsCountAsRestartsInBothTiers() {
        WindowShape shape = WindowShape.forWindow(900 * S);
        MetricWindow w = new MetricWindow(shape);
        // A counter rising by 2 per second that restarts at slot 1000 (to 1) and at slot 1450 (to 5).
        double value = 1000;
        for (int t = 0; t <= 1499; t++) {
            if (t == 1000) {
                value = 1;
            } else if (t == 1450) {
                value = 5;
            } else if (t > 0) {
                value += 2;
            }
            w.append(t * S, value);
        }
        // (899 s, 1499 s] starts on a bucket boundary (slot 900), so the coarse part adds nothing extra.
        w.at(1499 * S);
        assertEquals(0, 900 % shape.slotsPerBucket());
        assertEquals(2 * 598 + 1 + 5, w.increase(600 * S), 1e-3);
        assertEquals((2 * 598 + 1 + 5) / 600.0, w.rate(600 * S), 1e-6);
        // (1439 s, 1499 s] is fine-tier only and holds the second restart.
        assertEquals(2 * 59 + 5, w.increase(60 * S), 1e-6);
        assertEquals((2 * 59 + 5) / 60.0, w.rate(60 * S), 1e-9);
    }

    @Test
    void counterMatchesBruteForceAcrossTiers() {
        WindowShape shape = WindowShape.forWindow(900 * S);
        MetricWindow w = new MetricWindow(shape);
        RawSamples raw = new RawSamples(shape.resolutionMs());
        Random rnd = new Random(3);
        double value = 0;
        for (int t = 0; t < 3000; t++) {
            value = rnd.nextInt(400) == 0 ? rnd.nextInt(50) : value + rnd.nextInt(20);
            if (rnd.nextInt(15) == 0) {
                continue;
            }
            w.append(t * S, value);
            raw.put(t * S, value);
            if (t % 113 == 0) {
                for (long window : WINDOWS) {
                    assertMatches(w, raw, shape, t, t * S, window);
                }
            }
        }
    }

    @Test
    void deltaAcrossAGapLongerThanTheLookbackIsNotCounted() {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(900 * S));
        for (int t = 0; t < 60; t++) {
            w.append(t * S, 10 * t);
        }
        // Silent for 6 minutes, back much higher: the rise across the gap is unknown, not a burst.
        w.append(420 * S, 1_000_000);
        w.append(421 * S, 1_000_010);
        w.at(421 * S);
        assertEquals(10, w.increase(60 * S));
        // A gap within the lookback keeps its delta.
        w.append(480 * S, 1_000_610);
        w.at(480 * S);
        assertEquals(600, w.increase(30 * S));
    }

    @Test
    void gapsUseTheSamplesThatExistAndEmptyWindowsGiveNaN() {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(900 * S));
        assertEmpty(w.at(0), 60 * S);
        assertEquals(Double.NaN, w.last());
        w.append(10 * S, 4);
        w.append(50 * S, 8);
        w.at(50 * S);
        assertEquals(2, w.count(60 * S));
        assertEquals(6, w.avg(60 * S));
        assertEquals(0.1, w.slope(60 * S), 1e-12);
        assertEquals(4, w.increase(60 * S));
        w.at(80 * S);
        assertEmpty(w, 20 * S);
        assertEquals(8, w.last(), "the newest sample stays the last value within the lookback");
        assertEmpty(w, 0);
    }

    @Test
    void outOfOrderSameSlotAndLateWrites() {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(900 * S));
        w.append(10 * S, 1);
        w.append(12 * S, 3);
        w.append(11 * S, 2);
        w.append(12 * S + 400, 30);
        w.at(12 * S + 999);
        assertEquals(3, w.count(10 * S));
        assertEquals(30, w.last(), "the second value in a slot replaces the first");
        assertEquals(33, w.sum(10 * S));
        assertEquals(29, w.increase(10 * S));

        w.append(200 * S, 5);
        // Slot 80 lies 120 slots behind slot 200: it has left the fine tier.
        w.append(80 * S, 1000);
        w.append(81 * S, 7);
        assertEquals(1, w.ignoredLate());
        w.at(200 * S);
        assertEquals(7, w.max(120 * S), "the late reading is not stored");
        assertEquals(5, w.min(120 * S));
        assertEquals(2, w.count(120 * S));
        assertEquals(5, w.count(900 * S));
    }

    @Test
    void nanAndNonFiniteValuesAreNoReading() {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(60 * S));
        w.append(1 * S, 5);
        w.append(1 * S, Double.NaN);
        w.append(2 * S, Double.NaN);
        w.append(3 * S, Double.POSITIVE_INFINITY);
        w.append(4 * S, 1e300);
        w.at(4 * S);
        assertEquals(1, w.count(60 * S));
        assertEquals(5, w.last());
        assertEquals(5, w.max(60 * S));
        // NaN does not move the window either: a far-future NaN leaves the fine tier in place.
        w.append(1_000 * S, Double.NaN);
        w.append(1 * S + 500, 6);
        assertEquals(6, w.last());
        assertEquals(0, w.ignoredLate());
    }

    @Test
    void valuesStayCorrectAfterHoursOfWrapAround() {
        WindowShape shape = WindowShape.forWindow(900 * S);
        MetricWindow gauge = new MetricWindow(shape);
        MetricWindow counter = new MetricWindow(shape);
        RawSamples rawGauge = new RawSamples(S);
        RawSamples rawCounter = new RawSamples(S);
        long bytes = gauge.retainedBytes();
        long start = 1_700_000_000_000L;
        int hours = 10;
        double c = 0;
        for (int t = 0; t < hours * 3600; t++) {
            long ts = start + t * S;
            double g = 50 + 30 * Math.sin(t / 300.0);
            c = t % 5000 == 4999 ? 0 : c + 3;
            gauge.append(ts, g);
            counter.append(ts, c);
            if (t >= hours * 3600 - 1200) {
                rawGauge.put(ts, g);
                rawCounter.put(ts, c);
            }
        }
        long newest = Math.floorDiv(start, S) + hours * 3600 - 1;
        for (long window : WINDOWS) {
            assertMatches(gauge, rawGauge, shape, newest, newest * S + 500, window);
            assertMatches(counter, rawCounter, shape, newest, newest * S + 500, window);
        }
        assertEquals(3.0, counter.rate(60 * S), 1e-6);
        assertEquals(bytes, gauge.retainedBytes(), "no growth");
    }

    @Test
    void evaluationTimeBoundsTheWindow() {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(900 * S));
        for (int t = 0; t <= 300; t++) {
            w.append(t * S, t);
        }
        assertEquals(300, w.last(), "without at() the window ends at the newest sample");
        assertEquals(10, w.count(10 * S));

        w.at(310 * S);
        assertEquals(0, w.count(10 * S));
        assertEquals(10, w.count(20 * S));
        assertEquals(300, w.last());
        w.at(300 * S + MetricWindow.LOOKBACK_MS);
        assertEquals(Double.NaN, w.last(), "older than the lookback");

        // Evaluating in the past excludes later samples.
        w.at(250 * S);
        assertEquals(250, w.last());
        assertEquals(250, w.max(60 * S));
        assertEquals(60, w.count(60 * S));
        // Behind the fine tier (slots 181..300) only the newest rolled sample is known individually.
        w.at(180 * S + 500);
        assertEquals(180, w.last());
        w.at(150 * S);
        assertEquals(Double.NaN, w.last());
    }

    @Test
    void aReadingMovesTheWindowUnlessItRepeatsTheNewest() {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(60 * S));
        assertTrue(w.freshAt(0, 1), "an empty window holds nothing an equal reading could repeat");
        assertTrue(w.append(1 * S, 5), "the first reading");
        assertFalse(w.append(2 * S, 5), "the newest repeated");
        assertTrue(w.append(3 * S, 6), "a new value");
        assertFalse(w.append(5 * S, 6), "repeated after a gap");
        assertTrue(w.append(4 * S, 6), "a late slot, even with the same value");
        assertTrue(w.append(5 * S, 7), "the newest slot rewritten");
        assertFalse(w.append(6 * S, Double.NaN), "no reading");
        assertTrue(w.freshAt(64 * S, 60 * S));
        assertFalse(w.freshAt(65 * S, 60 * S), "the newest sample has left a 60 s window ending then");

        // with a coarse tier, slots that left a window by the fine tier's exact edge during a gap roll into a
        // bucket that straddles that edge and count again: a repeat after a gap is a move there
        MetricWindow coarse = new MetricWindow(WindowShape.forWindow(300 * S));
        for (long t = 1; t <= 100; t++) {
            coarse.append(t * S, t == 10 ? 8 : 16);
        }
        coarse.at(312 * S);
        assertEquals(16, coarse.min(300 * S), "the 8 of slot 10 has left the window ending at 312 s");
        assertTrue(coarse.append(313 * S, 16), "repeated after a gap, with a coarse tier");
        coarse.at(313 * S);
        assertEquals(8, coarse.min(300 * S), "its bucket straddles the window's edge now, and counts whole");

        MetricWindow copy = new MetricWindow(WindowShape.forWindow(60 * S));
        copy.append(1 * S, 7);
        assertTrue(copy.restore(w.image()));
        assertTrue(copy.append(6 * S, 7), "after a restore the first reading moves, whatever it repeats");
        assertFalse(copy.append(7 * S, 7));

        MetricWindow below = new MetricWindow(WindowShape.forWindow(60 * S));
        below.append(1 * S, -1);
        below.append(2 * S, 0);
        assertTrue(below.append(3 * S, 0), "a negative value held: every reading moves");
        MetricWindow restored = new MetricWindow(WindowShape.forWindow(60 * S));
        assertTrue(restored.restore(below.image()));
        restored.append(4 * S, 0);
        assertTrue(restored.append(5 * S, 0), "the negative value came back with the image");
    }

    private static void assertEmpty(MetricWindow w, long windowMs) {
        assertEquals(0, w.count(windowMs));
        assertEquals(Double.NaN, w.sum(windowMs));
        assertEquals(Double.NaN, w.avg(windowMs));
        assertEquals(Double.NaN, w.min(windowMs));
        assertEquals(Double.NaN, w.max(windowMs));
        assertEquals(Double.NaN, w.increase(windowMs));
        assertEquals(Double.NaN, w.rate(windowMs));
        assertEquals(Double.NaN, w.slope(windowMs));
    }

    /**
     * The window's results equal brute force over the raw samples of a window extended back to the start of
     * the coarse bucket its far edge falls in, and so differ from the exact window by less than one bucket.
     */
    private static void assertMatches(MetricWindow w, RawSamples raw, WindowShape shape, long newestSlot,
            long now, long windowMs) {
        long res = shape.resolutionMs();
        long lo = Math.floorDiv(now - windowMs, res) + 1;
        long hi = Math.floorDiv(now, res);
        long fineFirst = newestSlot - shape.fineSlots() + 1;
        int k = shape.slotsPerBucket();
        boolean coarse = k > 0 && lo < fineFirst;
        long from = coarse ? Math.floorDiv(lo, k) * k : lo;
        LongToDoubleFunction x = slot -> {
            if (coarse && slot < fineFirst) {
                long first = Math.floorDiv(slot, k) * k;
                long last = Math.min(first + k - 1, fineFirst - 1);
                return ((first + last) * 0.5 * res - now) / 1000.0;
            }
            return (slot * res - now) / 1000.0;
        };
        String where = "window " + windowMs + " ms at " + now;
        w.at(now);
        assertEquals(raw.count(from, hi), w.count(windowMs), where);
        assertTrue(w.count(windowMs) - raw.count(lo, hi) < Math.max(k, 1), where + ": more than one bucket extra");
        assertClose(raw.sum(from, hi), w.sum(windowMs), where + " sum");
        assertClose(raw.avg(from, hi), w.avg(windowMs), where + " avg");
        assertClose(raw.min(from, hi), w.min(windowMs), where + " min");
        assertClose(raw.max(from, hi), w.max(windowMs), where + " max");
        assertClose(raw.increase(from, hi), w.increase(windowMs), where + " increase");
        assertClose(raw.increase(from, hi) / (windowMs / 1000.0), w.rate(windowMs), where + " rate");
        assertClose(raw.slope(from, hi, x), w.slope(windowMs), where + " slope");
    }

    private static void assertClose(double expected, double actual, String what) {
        if (Double.isNaN(expected)) {
            assertEquals(Double.NaN, actual, what);
        } else {
            assertEquals(expected, actual, 1e-9 + 1e-5 * Math.abs(expected), what);
        }
    }

    @Test
    void aOneSlotWindowAppendsAsTheGeneralPathDoes() {
        // a window of the latest sample only takes a shorter path unless a running aggregate is kept; both must
        // hold the same state and answer the same, through repeats, gaps, rewrites, late and missing readings
        Random random = new Random(7);
        for (int run = 0; run < 20; run++) {
            MetricWindow latest = new MetricWindow(WindowShape.forWindow(0));
            MetricWindow general = new MetricWindow(WindowShape.forWindow(0));
            general.append(0, 1);
            general.at(0);
            general.avg(S);
            latest.append(0, 1);
            long ts = 0;
            float[] choices = {1, 1, 2, 5, -3, Float.NaN, 0};
            for (int step = 0; step < 2_000; step++) {
                int r = random.nextInt(20);
                ts += r < 14 ? S : r < 16 ? 0 : r < 18 ? -random.nextInt(3) * S : random.nextInt(400) * S;
                ts += random.nextInt(3) * 100;
                double v = choices[random.nextInt(choices.length)];
                assertEquals(general.append(ts, v), latest.append(ts, v), "append at step " + step);
                long now = ts + random.nextInt(2) * S;
                general.at(now);
                latest.at(now);
                assertEquals(general.last(), latest.last(), "last at step " + step);
                assertEquals(general.freshAt(now, 2 * S), latest.freshAt(now, 2 * S));
                MetricWindow.Image a = general.image();
                MetricWindow.Image b = latest.image();
                assertEquals(a.newestSlot(), b.newestSlot());
                assertEquals(a.rolledSlot(), b.rolledSlot());
                assertEquals(a.rolledValue(), b.rolledValue());
                assertEquals(a.lastMoveSlot(), b.lastMoveSlot(), "last move at step " + step);
                assertEquals(a.values()[0], b.values()[0]);
                assertEquals(general.ignoredLate(), latest.ignoredLate());
            }
        }
    }

    @Test
    void aWindowThatHeldANegativeValueIsNeverFreshSinceItsIncreaseRisesWithTimeAlone() {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(60 * S));
        w.append(1 * S, 5);
        w.append(2 * S, 6);
        // a counter that went negative: a rise of -3
        w.append(3 * S, -3);
        w.append(4 * S, -3);
        w.at(4 * S);
        assertTrue(w.increase(3 * S) < 0);
        assertFalse(w.freshAt(4 * S, 3 * S), "rules on it must not sleep");
        // no reading at all, and the increase rises as the negative rise leaves
        w.at(6 * S);
        assertEquals(0, w.increase(3 * S));
        MetricWindow plain = new MetricWindow(WindowShape.forWindow(60 * S));
        plain.append(1 * S, 5);
        assertTrue(plain.freshAt(2 * S, 3 * S));
    }
}
