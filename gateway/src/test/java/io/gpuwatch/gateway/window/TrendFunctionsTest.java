package io.gpuwatch.gateway.window;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.function.LongToDoubleFunction;
import org.junit.jupiter.api.Test;

/** quantile, delta, resets, changes and predict of a MetricWindow against brute force over the raw samples. */
class TrendFunctionsTest {
    private static final long S = 1_000;
    private static final long[] WINDOWS = {1 * S, 7 * S, 30 * S, 60 * S, 119 * S, 120 * S, 121 * S, 137 * S,
        300 * S, 433 * S, 600 * S, 899 * S, 900 * S};
    private static final double[] PS = {0, 0.01, 0.25, 0.5, 0.9, 0.99, 1};

    @Test
    void fineOnlyWindowIsExact() {
        WindowShape shape = WindowShape.forWindow(120 * S);
        MetricWindow w = new MetricWindow(shape);
        RawSamples raw = new RawSamples(S);
        Random rnd = new Random(5);
        for (int t = 0; t < 600; t++) {
            if (rnd.nextInt(8) == 0) {
                continue;
            }
            long ts = 1_700_000_000_000L + t * S + rnd.nextInt(1000);
            // few distinct values, so changes and equal ranks both happen
            double v = rnd.nextInt(6) * 10 - 20;
            w.append(ts, v);
            raw.put(ts, v);
            if (t % 29 == 0) {
                for (long window : new long[] {1 * S, 5 * S, 30 * S, 60 * S, 120 * S}) {
                    assertMatches(w, raw, shape, Math.floorDiv(ts, S), ts + rnd.nextInt(1000), window);
                }
            }
        }
    }

    @Test
    void twoTierWindowWithTransitionsMatchesBruteForceWithinOneBucket() {
        WindowShape shape = WindowShape.forWindow(900 * S);
        MetricWindow w = new MetricWindow(shape, true);
        RawSamples raw = new RawSamples(S);
        Random rnd = new Random(17);
        long start = 1_700_000_007_000L;
        double counter = 0;
        for (int t = 0; t < 2400; t++) {
            if (rnd.nextInt(12) == 0 || (t / 60) % 9 == 4) {
                continue;
            }
            // a counter with restarts, which also steps in place now and then
            counter = rnd.nextInt(150) == 0 ? rnd.nextInt(30) : counter + rnd.nextInt(3);
            long ts = start + t * S + rnd.nextInt(1000);
            w.append(ts, counter);
            raw.put(ts, counter);
            if (t % 89 == 0) {
                for (long window : WINDOWS) {
                    assertMatches(w, raw, shape, Math.floorDiv(ts, S), ts + rnd.nextInt(2500), window);
                }
            }
        }
    }

    @Test
    void quantileOverBucketsIsExactAtTheExtremesAndStaysBetweenThem() {
        WindowShape shape = WindowShape.forWindow(900 * S);
        MetricWindow w = new MetricWindow(shape);
        RawSamples raw = new RawSamples(S);
        Random rnd = new Random(23);
        for (int t = 0; t < 900; t++) {
            double v = 50 + rnd.nextGaussian() * 15;
            w.append(t * S, v);
            raw.put(t * S, v);
        }
        w.at(899 * S);
        long lo = 0;
        long hi = 899;
        assertEquals(raw.min(lo, hi), w.quantile(0, 900 * S));
        assertEquals(raw.max(lo, hi), w.quantile(1, 900 * S));
        double p99 = w.quantile(0.99, 900 * S);
        assertTrue(p99 <= raw.max(lo, hi) && p99 >= raw.quantile(lo, hi, 0.5), "p99 " + p99);
        // 780 of the 900 samples lie in buckets, which keep their spread only through min, max and mean
        assertEquals(raw.quantile(lo, hi, 0.5), w.quantile(0.5, 900 * S), 2.0);
    }

    @Test
    void withoutTransitionsTheCoarseTierCannotAnswerDeltaResetsOrChanges() {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(900 * S));
        for (int t = 0; t < 600; t++) {
            w.append(t * S, t % 10);
        }
        w.at(599 * S);
        assertEquals(Double.NaN, w.delta(300 * S));
        assertEquals(Double.NaN, w.resets(300 * S));
        assertEquals(Double.NaN, w.changes(300 * S));
        // (539 s, 599 s] lies in the fine tier: samples 540..599 drop from 9 to 0 five times
        assertEquals(5, w.resets(60 * S));
        assertEquals(59, w.changes(60 * S));
        assertEquals(9, w.delta(60 * S));
        assertEquals(9, w.quantile(1, 300 * S));
    }

    @Test
    void transitionsCostFourFloatsABucketAndOnlyWhenAsked() {
        WindowShape shape = WindowShape.forWindow(900 * S);
        long plain = new MetricWindow(shape).retainedBytes();
        long full = new MetricWindow(shape, true).retainedBytes();
        assertEquals(MetricWindow.align(16 + (long) (shape.fineSlots() + shape.coarseBuckets() * 8) * 4)
                - MetricWindow.align(16 + (long) (shape.fineSlots() + shape.coarseBuckets() * 4) * 4), full - plain);
        MetricWindow fineOnly = new MetricWindow(WindowShape.forWindow(60 * S), true);
        assertEquals(new MetricWindow(WindowShape.forWindow(60 * S)).retainedBytes(), fineOnly.retainedBytes());
    }

    @Test
    void emptyAndSingleSampleWindows() {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(900 * S), true);
        w.at(0);
        assertEquals(Double.NaN, w.quantile(0.5, 60 * S));
        assertEquals(Double.NaN, w.delta(60 * S));
        assertEquals(Double.NaN, w.resets(60 * S));
        assertEquals(Double.NaN, w.changes(60 * S));
        assertEquals(Double.NaN, w.predict(60 * S, 60 * S));
        w.append(10 * S, -4);
        w.at(10 * S);
        assertEquals(-4, w.quantile(0.5, 60 * S));
        assertEquals(Double.NaN, w.delta(60 * S), "one sample has no delta");
        assertEquals(0, w.resets(60 * S));
        assertEquals(0, w.changes(60 * S));
        assertEquals(Double.NaN, w.predict(60 * S, 60 * S), "one sample draws no line");
    }

    @Test
    void predictReadsTheLineAheadOfNow() {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(900 * S));
        for (int t = 0; t < 1800; t++) {
            w.append(t * S, 1000 + 2.5 * t);
        }
        w.at(1799 * S);
        for (long window : WINDOWS) {
            if (window > 1 * S) {
                assertEquals(1000 + 2.5 * (1799 + 3600), w.predict(window, 3_600_000), 1e-3, "over " + window);
            }
        }
    }

    /** Like MetricWindowTest: brute force over the window extended to the start of its far edge's bucket. */
    private static void assertMatches(MetricWindow w, RawSamples raw, WindowShape shape, long newestSlot, long now,
            long windowMs) {
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
        assertClose(raw.delta(from, hi), w.delta(windowMs), where + " delta");
        assertClose(raw.resets(from, hi), w.resets(windowMs), where + " resets");
        assertClose(raw.changes(from, hi), w.changes(windowMs), where + " changes");
        assertClose(raw.predict(from, hi, x, 600), w.predict(windowMs, 600_000), where + " predict");
        for (double p : PS) {
            double expected = coarse ? raw.bucketedQuantile(from, hi, fineFirst, k, p) : raw.quantile(from, hi, p);
            assertClose(expected, w.quantile(p, windowMs), where + " quantile " + p);
        }
    }

    private static void assertClose(double expected, double actual, String what) {
        if (Double.isNaN(expected)) {
            assertEquals(Double.NaN, actual, what);
        } else {
            assertEquals(expected, actual, 1e-9 + 1e-5 * Math.abs(expected), what);
        }
    }
}
