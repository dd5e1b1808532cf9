package io.gpuwatch.gateway.window;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The running aggregates against a rescan of the same window: fed the same random readings (gaps, counter resets,
 * replaced slots, late readings, evaluation times that lag, jump and step back), every query must give the same
 * count, min and max, and the same sum, average, slope and prediction up to float rounding.
 */
class RunningAggregatesTest {
    private static final long S = 1_000;

    @Test
    void fifteenMinuteWindowMatchesRescan() {
        compare(WindowShape.forWindow(900 * S), new long[] {900 * S, 300 * S, 120 * S, 30 * S}, 7_200, 1);
    }

    @Test
    void hourWindowWithWideBucketsMatchesRescan() {
        compare(WindowShape.forWindow(3_600 * S), new long[] {3_600 * S, 1_800 * S, 600 * S}, 9_000, 2);
    }

    @Test
    void fineOnlyWindowMatchesRescan() {
        compare(WindowShape.forWindow(60 * S), new long[] {60 * S, 30 * S, 5 * S}, 3_000, 3);
    }

    @Test
    void windowWithTransitionsMatchesRescan() {
        WindowShape shape = WindowShape.forWindow(600 * S);
        MetricWindow running = new MetricWindow(shape, true, true);
        MetricWindow rescan = new MetricWindow(shape, true, false);
        drive(running, rescan, new long[] {600 * S, 120 * S}, 4_000, new Random(4));
    }

    @Test
    void windowLongerThanTheHorizonIsRescannedAndStillAnswers() {
        WindowShape shape = WindowShape.forWindow(300 * S);
        MetricWindow running = new MetricWindow(shape);
        MetricWindow rescan = new MetricWindow(shape, false, false);
        drive(running, rescan, new long[] {3_600 * S}, 1_000, new Random(5));
        assertEquals(0, running.runningBytes(), "no running aggregates beyond the horizon");
    }

    @Test
    void runningAggregatesStayBoundedWhenManyWindowLengthsAreAsked() {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(900 * S));
        for (int t = 0; t < 1_000; t++) {
            w.append(t * S, t % 17);
        }
        for (long window = 10 * S; window <= 900 * S; window += 10 * S) {
            w.avg(window);
        }
        long bytes = w.runningBytes();
        assertTrue(bytes > 0 && bytes < 1_024, "at most " + MetricWindow.MAX_RUNNING + " kept, got " + bytes + " B");
        assertEquals(bytes, w.runningBytes());
    }

    @Test
    void increaseOfAMostlyFlatCounterMatchesRescanExactly() {
        for (WindowShape shape : new WindowShape[] {WindowShape.forWindow(600 * S), WindowShape.forWindow(60 * S)}) {
            MetricWindow running = new MetricWindow(shape);
            MetricWindow rescan = new MetricWindow(shape, false, false);
            Random rnd = new Random(6);
            long ts = 1_764_700_000_000L;
            double counter = 3;
            int zeros = 0;
            for (int t = 0; t < 8_000; t++) {
                ts += rnd.nextInt(200) == 0 ? rnd.nextInt(400) * S : S;
                int kind = rnd.nextInt(1_000);
                // a rare rise or reset, sometimes a slot rewritten or a late reading, flat otherwise
                counter = kind < 3 ? counter + 1 + rnd.nextInt(4) : kind == 3 ? 0 : counter;
                both(running, rescan, ts, counter);
                if (kind == 4) {
                    both(running, rescan, ts, counter + 2);
                }
                if (kind == 5) {
                    both(running, rescan, ts - (1 + rnd.nextInt(100)) * S, counter + 1);
                }
                long now = rnd.nextInt(30) == 0 ? ts - rnd.nextInt(100) * S : ts;
                running.at(now);
                rescan.at(now);
                for (long w : new long[] {600 * S, 300 * S, 60 * S, 10 * S}) {
                    double expected = rescan.increase(w);
                    assertEquals(expected, running.increase(w), "t=" + t + " window=" + w + " increase");
                    zeros += expected == 0 ? 1 : 0;
                }
            }
            assertTrue(zeros > 10_000, "the flat stretches were exercised: " + zeros);
        }
    }

    private static void compare(WindowShape shape, long[] windows, int seconds, long seed) {
        drive(new MetricWindow(shape), new MetricWindow(shape, false, false), windows, seconds, new Random(seed));
    }

    /** Appends the same readings to both windows and compares every incremental aggregate after each second. */
    private static void drive(MetricWindow running, MetricWindow rescan, long[] windows, int seconds, Random rnd) {
        long start = 1_764_700_000_000L;
        double counter = 0;
        double gauge = 50;
        long ts = start;
        for (int t = 0; t < seconds; t++) {
            ts += S;
            int kind = rnd.nextInt(100);
            if (kind < 3) {
                // a gap of up to three minutes: nothing is sent
                ts += rnd.nextInt(180) * S;
            }
            gauge += rnd.nextGaussian() * 5;
            counter = rnd.nextInt(500) == 0 ? 0 : counter + rnd.nextInt(20);
            double value = rnd.nextBoolean() ? gauge : counter;
            if (kind == 5) {
                value = Double.NaN;
            }
            long at = ts + rnd.nextInt((int) S);
            both(running, rescan, at, value);
            if (kind == 6) {
                both(running, rescan, at, value + 1);
            }
            if (kind == 7) {
                // late by up to three minutes: replaces a fine slot or is ignored as too late
                both(running, rescan, at - (1 + rnd.nextInt(180)) * S, gauge * 2);
            }
            long now = switch (rnd.nextInt(20)) {
                case 0 -> at - rnd.nextInt(200) * S;
                case 1 -> at + rnd.nextInt(30) * S;
                default -> at;
            };
            running.at(now);
            rescan.at(now);
            for (long w : windows) {
                assertSame(running, rescan, w, "t=" + t + " now=" + now + " window=" + w);
            }
        }
    }

    private static void both(MetricWindow a, MetricWindow b, long ts, double v) {
        a.append(ts, v);
        b.append(ts, v);
    }

    private static void assertSame(MetricWindow running, MetricWindow rescan, long w, String where) {
        assertEquals(rescan.count(w), running.count(w), where + " count");
        assertEquals(rescan.min(w), running.min(w), where + " min");
        assertEquals(rescan.max(w), running.max(w), where + " max");
        close(rescan.sum(w), running.sum(w), rescan.max(w), rescan.count(w), where + " sum");
        close(rescan.avg(w), running.avg(w), rescan.max(w), 1, where + " avg");
        close(rescan.slope(w), running.slope(w), rescan.max(w), 1, where + " slope");
        close(rescan.predict(w, 600 * S), running.predict(w, 600 * S), rescan.max(w), 600, where + " predict");
        assertEquals(rescan.increase(w), running.increase(w), where + " increase");
    }

    /** Equal up to rounding: relative to the magnitude of the values added, times how many were added. */
    private static void close(double expected, double actual, double scale, double terms, String where) {
        if (Double.isNaN(expected)) {
            assertEquals(expected, actual, where);
            return;
        }
        double tolerance = 1e-9 * Math.max(1, Math.abs(expected) + Math.abs(scale) * Math.max(1, terms));
        assertEquals(expected, actual, tolerance, where);
    }
}
