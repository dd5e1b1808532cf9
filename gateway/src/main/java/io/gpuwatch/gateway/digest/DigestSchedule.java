package io.gpuwatch.gateway.digest;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Objects;

/**
 * When a channel's digests go out: every fixed period, or daily at a wall-clock time in a time zone. Each gives
 * the next instant strictly after a given one, computed from instants (never by adding hours to a local time),
 * so a daily 09:00 stays at 09:00 local across daylight saving changes and no period is skipped or doubled.
 */
public sealed interface DigestSchedule {
    /** The first run strictly after {@code after}. */
    Instant next(Instant after);

    /** The zone the digest's times are shown in. */
    ZoneId zone();

    /** As written in the alerting file: {@code every 1h} or {@code daily 09:00 Asia/Shanghai}. */
    String describe();

    /**
     * Every {@code period}, on its multiples since the Unix epoch, so {@code 1h} runs on the hour and {@code 15m}
     * at :00, :15, :30 and :45 (UTC; zones with a half-hour offset see them at :30).
     */
    record Every(Duration period, ZoneId zone) implements DigestSchedule {
        public Every {
            Objects.requireNonNull(period, "period");
            Objects.requireNonNull(zone, "zone");
            if (period.toMillis() < 60_000) {
                throw new IllegalArgumentException("a digest period must be at least 1m, got " + period);
            }
        }

        @Override
        public Instant next(Instant after) {
            long p = period.toMillis();
            return Instant.ofEpochMilli(Math.floorDiv(after.toEpochMilli(), p) * p + p);
        }

        @Override
        public String describe() {
            return "every " + Durations.format(period) + (zone.equals(ZoneOffset.UTC) ? "" : " (" + zone + ")");
        }
    }

    /**
     * Daily at {@code at} wall-clock time in {@code zone}. On the day a change to summer time skips that time
     * (02:30 in a zone jumping from 02:00 to 03:00) it runs at the same offset into the new time (03:30); on the
     * day a time occurs twice it runs at the first.
     */
    record Daily(LocalTime at, ZoneId zone) implements DigestSchedule {
        public Daily {
            Objects.requireNonNull(at, "at");
            Objects.requireNonNull(zone, "zone");
        }

        @Override
        public Instant next(Instant after) {
            LocalDate day = after.atZone(zone).toLocalDate();
            for (int i = 0; ; i++) {
                Instant candidate = ZonedDateTime.of(day.plusDays(i), at, zone).toInstant();
                if (candidate.isAfter(after)) {
                    return candidate;
                }
            }
        }

        @Override
        public String describe() {
            return "daily " + at + " " + zone;
        }
    }
}
