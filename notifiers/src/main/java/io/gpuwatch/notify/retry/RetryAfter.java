package io.gpuwatch.notify.retry;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/** Reads an HTTP {@code Retry-After} header: delay seconds, or an HTTP date measured against the given now. */
public final class RetryAfter {
    private RetryAfter() {
    }

    /** The requested wait (never negative), or empty when the header is absent or unreadable. */
    public static Optional<Duration> parse(String header, Instant now) {
        if (header == null || header.isBlank()) {
            return Optional.empty();
        }
        String v = header.trim();
        if (v.chars().allMatch(c -> c >= '0' && c <= '9')) {
            try {
                return Optional.of(Duration.ofSeconds(Long.parseLong(v)));
            } catch (NumberFormatException | ArithmeticException e) {
                return Optional.empty();
            }
        }
        try {
            Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            Duration wait = Duration.between(now, at);
            return Optional.of(wait.isNegative() ? Duration.ZERO : wait);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
