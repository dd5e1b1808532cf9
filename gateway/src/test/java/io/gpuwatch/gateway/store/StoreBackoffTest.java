package io.gpuwatch.gateway.store;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StoreBackoffTest {
    private static final Instant NOW = Instant.parse("2025-03-01T10:00:00Z");

    private static Backoff withRandom(double r) {
        return new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(5), 2.0, 0.2, 5, () -> r);
    }

    @Test
    void delaysDoubleUpToTheCap() {
        Backoff b = withRandom(0.5);
        assertEquals(NOW.plusSeconds(1), b.next(1, NOW, null));
        assertEquals(NOW.plusSeconds(2), b.next(2, NOW, null));
        assertEquals(NOW.plusSeconds(8), b.next(4, NOW, null));
        assertEquals(NOW.plusSeconds(300), b.next(30, NOW, null));
    }

    @Test
    void jitterSpreadsWithinTheFraction() {
        assertEquals(NOW.plusMillis(6400), withRandom(0.0).next(4, NOW, null));
        assertEquals(NOW.plusMillis(9600), withRandom(1.0).next(4, NOW, null));
        assertEquals(NOW.plusSeconds(240), withRandom(0.0).next(30, NOW, null));
    }

    @Test
    void retryAfterIsNeverUndercut() {
        Backoff b = withRandom(0.5);
        assertEquals(NOW.plusSeconds(120), b.next(1, NOW, Duration.ofSeconds(120)));
        assertEquals(NOW.plusSeconds(8), b.next(4, NOW, Duration.ofSeconds(3)));
    }

    @Test
    void attemptsAreBounded() {
        Backoff b = withRandom(0.5);
        assertTrue(b.allowsAnother(4));
        assertFalse(b.allowsAnother(5));
    }

    @Test
    void nonsenseSettingsAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new Backoff(Duration.ZERO, Duration.ofSeconds(1), 2, 0.1, 3, () -> 0.5));
        assertThrows(IllegalArgumentException.class,
                () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), 2, 0.1, 3, () -> 0.5));
        assertThrows(IllegalArgumentException.class,
                () -> new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), 0.5, 0.1, 3, () -> 0.5));
        assertThrows(IllegalArgumentException.class,
                () -> new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), 2, 1.0, 3, () -> 0.5));
    }
}
