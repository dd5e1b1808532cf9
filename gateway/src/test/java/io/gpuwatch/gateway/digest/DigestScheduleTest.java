package io.gpuwatch.gateway.digest;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class DigestScheduleTest {
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

    private static Instant at(String iso) {
        return Instant.parse(iso);
    }

    @Test
    void hourlyRunsOnTheHourStrictlyAfter() {
        DigestSchedule hourly = new DigestSchedule.Every(Duration.ofHours(1), ZoneOffset.UTC);
        assertEquals(at("2026-12-03T10:00:00Z"), hourly.next(at("2026-12-03T09:17:42Z")));
        assertEquals(at("2026-12-03T11:00:00Z"), hourly.next(at("2026-12-03T10:00:00Z")));
        assertEquals("every 1h", hourly.describe());
    }

    @Test
    void periodsShorterThanAMinuteAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new DigestSchedule.Every(Duration.ofSeconds(30), ZoneOffset.UTC));
    }

    @Test
    void dailyNineInShanghaiIsOneInTheMorningUtc() {
        DigestSchedule daily = new DigestSchedule.Daily(LocalTime.of(9, 0), ZoneId.of("Asia/Shanghai"));
        assertEquals(at("2026-12-04T01:00:00Z"), daily.next(at("2026-12-03T01:00:00Z")));
        assertEquals(at("2026-12-03T01:00:00Z"), daily.next(at("2026-12-02T23:59:59Z")));
    }

    @Test
    void dailyNineStaysAtNineLocalAcrossTheSpringChange() {
        DigestSchedule daily = new DigestSchedule.Daily(LocalTime.of(9, 0), BERLIN);
        // Berlin goes from UTC+1 to UTC+2 at 02:00 local on 2026-03-29
        Instant saturday = daily.next(at("2026-03-27T09:00:00Z"));
        assertEquals(at("2026-03-28T08:00:00Z"), saturday);
        Instant sunday = daily.next(saturday);
        assertEquals(at("2026-03-29T07:00:00Z"), sunday);
        assertEquals(Duration.ofHours(23), Duration.between(saturday, sunday));
        assertEquals(at("2026-03-30T07:00:00Z"), daily.next(sunday));
    }

    @Test
    void dailyNineStaysAtNineLocalAcrossTheAutumnChange() {
        DigestSchedule daily = new DigestSchedule.Daily(LocalTime.of(9, 0), BERLIN);
        Instant saturday = at("2026-10-24T07:00:00Z");
        Instant sunday = daily.next(saturday);
        assertEquals(at("2026-10-25T08:00:00Z"), sunday);
        assertEquals(Duration.ofHours(25), Duration.between(saturday, sunday));
    }

    @Test
    void aTimeTheSpringChangeSkipsRunsAsMuchLaterAndARepeatedTimeRunsOnce() {
        DigestSchedule skipped = new DigestSchedule.Daily(LocalTime.of(2, 30), BERLIN);
        // 02:30 does not exist on 2026-03-29: the run is at 03:30 CEST, 01:30 UTC
        assertEquals(at("2026-03-29T01:30:00Z"), skipped.next(at("2026-03-28T02:00:00Z")));
        DigestSchedule repeated = new DigestSchedule.Daily(LocalTime.of(1, 30), NEW_YORK);
        // 01:30 happens twice in New York on 2026-11-01: first in EDT (05:30 UTC), not again in EST (06:30 UTC)
        Instant first = repeated.next(at("2026-10-31T12:00:00Z"));
        assertEquals(at("2026-11-01T05:30:00Z"), first);
        assertEquals(at("2026-11-02T06:30:00Z"), repeated.next(first));
    }
}
