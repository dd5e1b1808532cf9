package io.gpuwatch.gateway.window;

import io.gpuwatch.rules.scope.Series;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How long a window can tell a comparison stays false, whatever samples arrive: a max (min) stays on its side of
 * a bound until the newest sample beyond it leaves, a share of 1/0 samples rises by at most one sample a slot, and
 * a mean moves by at most a departing sample and one at the end of the metric's range a slot.
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
        return constant(60, from, to, 0);
    }

    /** A window shaped for {@code shapeSeconds}, {@code value} every second from {@code from} to {@code to}. */
    private static MetricWindow constant(long shapeSeconds, long from, long to, double value) {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(shapeSeconds * S));
        for (long t = from; t <= to; t++) {
            w.append(t * S, value);
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
        MetricWindow w = constant(600, 1, 300, 0);
        w.at(300 * S);
        assertEquals(Long.MIN_VALUE, w.shareBelowUntil(600 * S, 0.5, false));
    }

    @Test
    void aMeanOfEqualSamplesIsKeptUntilNearlyWhenTheWorstFutureCrossesIt() {
        MetricWindow w = constant(100, 1, 100, 80);
        w.at(100 * S);
        // 0s arriving as the 80s leave: the mean of 100 falls below 50 once 38 have gone, at 138 s
        long until = w.meanKeptUntil(100 * S, 50, 0, true);
        assertTrue(until >= 136 * S && until <= 138 * S, "until " + until);
        assertEquals(Long.MIN_VALUE, w.meanKeptUntil(100 * S, 80, 0, true), "on the bound: nothing to tell");
        assertEquals(Long.MIN_VALUE, w.meanKeptUntil(100 * S, 50, Double.NEGATIVE_INFINITY, true), "no floor");
        // mirrored: avg > 90 stays false until 100s have pulled the mean from 80 past 90
        long below = w.meanKeptUntil(100 * S, 90, 100, false);
        assertTrue(below >= 148 * S && below <= 150 * S, "until " + below);
    }

    @Test
    void aMeanHoldsAgainstTheWorstFuture() {
        Random random = new Random(11);
        long[][] shapes = {{60, 60}, {120, 90}, {600, 600}, {900, 300}, {900, 60}, {1800, 1800}, {900, 120}, {3600, 119},
            {600, 150}};
        int told = 0;
        for (int run = 0; run < 600; run++) {
            long[] shape = shapes[run % shapes.length];
            long windowMs = shape[1] * S;
            long seed = random.nextLong();
            long newest = 30 + random.nextInt(2_000);
            // now and then the series has fallen silent a while before now
            long now = newest + (random.nextInt(4) == 0 ? random.nextInt(60) : random.nextInt(4));
            MetricWindow w = history(shape[0], seed, newest);
            w.at(now * S);
            boolean above = random.nextBoolean();
            double mean = w.avg(windowMs);
            double bound = above ? mean - random.nextDouble() * 30 : mean + random.nextDouble() * 30;
            long until = w.meanKeptUntil(windowMs, bound, above ? 0 : 100, above);
            if (until == Long.MIN_VALUE) {
                continue;
            }
            told++;
            assertTrue(until > now * S, "run " + run + ": " + until);
            // the worst futures the gateway does not flag as unforeseen: samples at the far end of the range in
            // every slot they can still take (read at most ON_TIME_MS ago, within RESUME_AFTER_MS of the one
            // before), or none at all, or a mix
            long onTime = Series.ON_TIME_MS / S;
            long resume = Series.RESUME_AFTER_MS / S;
            for (int future = 0; future < 3; future++) {
                MetricWindow f = history(shape[0], seed, newest);
                Random arrivals = new Random(run * 3L + future);
                long filled = newest;
                for (long t = now * S; t < until; t += 500) {
                    long slot = t / S;
                    if (t % S == 0 && (future == 0 || future == 2 && arrivals.nextBoolean())) {
                        for (long s = Math.max(filled + 1, slot - onTime); s <= slot && s - filled <= resume; s++) {
                            f.append(s * S, above ? 0 : 100);
                            filled = s;
                        }
                    }
                    f.at(t);
                    double m = f.avg(windowMs);
                    assertTrue(Double.isNaN(m) || (above ? m >= bound : m <= bound),
                            "run " + run + " future " + future + ": the mean crossed " + bound + " at " + t + " ("
                                    + m + "), before " + until);
                }
            }
        }
        assertTrue(told > 200, "most windows could tell: " + told);
    }

    /** A window of {@code shapeSeconds} with a seeded history up to {@code newest} s: levels, gaps and jumps. */
    private static MetricWindow history(long shapeSeconds, long seed, long newest) {
        Random r = new Random(seed);
        MetricWindow w = new MetricWindow(WindowShape.forWindow(shapeSeconds * S));
        double level = r.nextDouble() * 100;
        for (long t = 1; t <= newest; t++) {
            if (r.nextInt(60) == 0) {
                level = r.nextInt(3) == 0 ? (r.nextBoolean() ? 0 : 100) : r.nextDouble() * 100;
            }
            if (t == newest || r.nextInt(10) != 0) {
                w.append(t * S, Math.max(0, Math.min(100, level + r.nextGaussian() * 5)));
            }
        }
        return w;
    }

    @Test
    void aSeriesSilentForLongerThanItCanResumeUnforeseenStaysEmpty() {
        MetricWindow w = zeros(1, 100);
        // 80 s on, any sample it sends resumes it, unforeseen: its last ten seconds stay empty
        w.at(180 * S);
        assertEquals(Long.MAX_VALUE, w.meanKeptUntil(10 * S, 50, 0, true), "empty, and nothing can come");
        assertEquals(Long.MAX_VALUE, w.shareBelowUntil(10 * S, 0.75, false));
        // 25 s on, a sample may still come on time, and one sample is a share of 1
        w.at(125 * S);
        assertEquals(Long.MIN_VALUE, w.meanKeptUntil(10 * S, 50, 0, true), "a sample may still come");
        assertEquals(125 * S, w.shareBelowUntil(10 * S, 0.75, false));
        assertTrue(w.resumes(131 * S) && !w.resumes(130 * S));
    }
}
