package io.gpuwatch.notify.retry;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

class RetryAfterTest {
    private static final Instant NOW = Instant.parse("2026-12-03T09:05:00Z");

    @Test
    void secondsAndDates() {
        assertEquals(Optional.of(Duration.ofSeconds(30)), RetryAfter.parse(" 30 ", NOW));
        assertEquals(Optional.of(Duration.ZERO), RetryAfter.parse("0", NOW));
        assertEquals(Optional.of(Duration.ofSeconds(90)), RetryAfter.parse("Thu, 3 Dec 2026 09:06:30 GMT", NOW));
        assertEquals(Optional.of(Duration.ZERO), RetryAfter.parse("Thu, 3 Dec 2026 09:00:00 GMT", NOW),
                "a date in the past means now");
    }

    @Test
    void unreadableMeansUseTheBackoff() {
        assertEquals(Optional.empty(), RetryAfter.parse(null, NOW));
        assertEquals(Optional.empty(), RetryAfter.parse("", NOW));
        assertEquals(Optional.empty(), RetryAfter.parse("-5", NOW));
        assertEquals(Optional.empty(), RetryAfter.parse("soon", NOW));
        assertEquals(Optional.empty(), RetryAfter.parse("99999999999999999999999", NOW));
    }
}
