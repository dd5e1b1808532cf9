package io.gpuwatch.gateway.baseline;

import org.junit.jupiter.api.Test;

import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BaselineBookTest {
    private static final long MIN = 60_000;
    /** Monday 2026-11-02 00:00 UTC. */
    private static final long MONDAY = ZonedDateTime.of(2026, 11, 2, 0, 0, 0, 0, ZoneId.of("UTC")).toInstant().toEpochMilli();

    /** A book that answers from its first learned minute, for tests of what one minute teaches. */
    private static BaselineBook young() {
        return new BaselineBook(24 * 60, 4, 30, ZoneId.of("UTC"), 1);
    }

    @Test
    void theDefaultBookAnswersOnceItHasLearnedItsWarmUp() {
        BaselineBook book = BaselineBook.defaults();
        long t = MONDAY;
        for (int m = 0; m < BaselineBook.WARM_UP_MINUTES; m++, t += MIN) {
            book.observe("ads", "waitP50s", t, 60);
        }
        assertSame(Baseline.UNKNOWN, book.get("ads", "waitP50s", t - 1),
                "29 minutes of a steady wait are no normal to judge the next one by");
        assertEquals(60, book.get("ads", "waitP50s", t).mean(), 1e-9);
        assertEquals(BaselineBook.WARM_UP_MINUTES, book.get("ads", "waitP50s", t).samples());
    }

    @Test
    void withoutHistoryNothingIsAboveOrBelowTheBaseline() {
        BaselineBook book = young();
        Baseline b = book.get("ads", "ttftP99s", MONDAY);
        assertSame(Baseline.UNKNOWN, b);
        assertFalse(5.0 > b.upper(3), "a comparison against no history is false");
        assertFalse(5.0 < b.lower(3));
        assertTrue(Double.isNaN(b.zscore(5)));
        book.observe("ads", "ttftP99s", MONDAY, 0.8);
        assertSame(Baseline.UNKNOWN, book.get("ads", "ttftP99s", MONDAY + 30_000),
                "the minute being filled is not learned until it ends");
        assertEquals(0.8, book.get("ads", "ttftP99s", MONDAY + MIN).mean(), 1e-12);
    }

    @Test
    void aStableNoisySeriesGivesAMeanAndAStdThatASpikeStandsOutFrom() {
        BaselineBook book = BaselineBook.defaults();
        SplittableRandom r = new SplittableRandom(3);
        long t = MONDAY;
        for (int m = 0; m < 3 * 24 * 60; m++, t += MIN) {
            book.observe("ads", "waitP50s", t, 20 + r.nextGaussian() * 2);
        }
        Baseline b = book.get("ads", "waitP50s", t);
        assertEquals(20, b.mean(), 0.5);
        assertEquals(2, b.std(), 0.5);
        assertFalse(b.hourly(), "three days are not yet a week");
        assertTrue(24 < b.upper(3) && b.upper(3) < 29, "upper(3) = " + b.upper(3));
        assertTrue(b.zscore(40) > 5, "a wait of 40 s is far out: " + b.zscore(40));
        assertTrue(b.zscore(21) < 1);
    }

    @Test
    void manySamplesInOneMinuteWeighAsOneMinute() {
        BaselineBook once = BaselineBook.defaults();
        BaselineBook burst = BaselineBook.defaults();
        long t = MONDAY;
        for (int m = 0; m < 600; m++, t += MIN) {
            once.observe("b", "x", t, 10);
            for (int s = 0; s < 60; s++) {
                burst.observe("b", "x", t + s * 1000, 10);
            }
        }
        once.observe("b", "x", t, 100);
        for (int card = 0; card < 500; card++) {
            burst.observe("b", "x", t + 10, 100);
        }
        assertEquals(once.get("b", "x", t + MIN).mean(), burst.get("b", "x", t + MIN).mean(), 1e-9,
                "500 cards reporting the same minute move the baseline as one observation does");
    }

    @Test
    void afterAWeekEachHourOfTheWeekHasItsOwnNormal() {
        BaselineBook book = BaselineBook.defaults();
        long t = MONDAY;
        for (int m = 0; m < 15 * 24 * 60; m++, t += MIN) {
            ZonedDateTime z = java.time.Instant.ofEpochMilli(t).atZone(ZoneId.of("UTC"));
            boolean mondayMorning = z.getDayOfWeek().getValue() == 1 && z.getHour() == 9;
            book.observe("ads", "queueLength", t, mondayMorning ? 100 : 10);
        }
        long nextMonday930 = MONDAY + 14 * 24 * 3_600_000L + 9 * 3_600_000L + 30 * MIN;
        Baseline peak = book.get("ads", "queueLength", nextMonday930);
        assertTrue(peak.hourly());
        assertEquals(100, peak.mean(), 1);
        assertFalse(100 > peak.upper(3), "the Monday 9:00 peak is normal for that hour");
        Baseline tuesday = book.get("ads", "queueLength", nextMonday930 + 24 * 3_600_000L);
        assertTrue(tuesday.hourly());
        assertEquals(10, tuesday.mean(), 0.5);
        assertTrue(100 > tuesday.upper(3), "the same queue on Tuesday morning is unusual");
    }

    @Test
    void theHourOfWeekFollowsTheConfiguredZone() {
        BaselineBook shanghai = new BaselineBook(24 * 60, 4, 30, ZoneId.of("Asia/Shanghai"), 1);
        assertEquals(8, shanghai.hourOfWeek(MONDAY), "Monday 00:00 UTC is Monday 08:00 in Shanghai");
        assertEquals(0, BaselineBook.defaults().hourOfWeek(MONDAY));
    }

    @Test
    void businessesAndMetricsLearnApartAndBadValuesAreIgnored() {
        BaselineBook book = young();
        book.observe("ads", "x", MONDAY, 1);
        book.observe("search", "x", MONDAY, 50);
        book.observe("ads", "y", MONDAY, 7);
        book.observe("ads", "x", MONDAY + 1, Double.NaN);
        book.observe(null, "x", MONDAY, 99);
        assertEquals(1, book.get("ads", "x", MONDAY + MIN).mean());
        assertEquals(50, book.get("search", "x", MONDAY + MIN).mean());
        assertEquals(7, book.get("ads", "y", MONDAY + MIN).mean());
        assertSame(Baseline.UNKNOWN, book.get(null, "x", MONDAY + MIN));
        assertEquals(3, book.size());
    }

    @Test
    void aLateObservationForAnEndedMinuteIsNotLearned() {
        BaselineBook book = young();
        book.observe("b", "x", MONDAY + MIN, 10);
        book.observe("b", "x", MONDAY + 2 * MIN, 10);
        book.observe("b", "x", MONDAY + 30_000, 1_000);
        assertEquals(10, book.get("b", "x", MONDAY + 3 * MIN).mean(), 1e-9);
    }
}
