package io.gpuwatch.probe.uplink;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BackoffTest {
    private final Backoff backoff = Backoff.DEFAULT;

    @Test
    void delayDoublesFromTheInitialUpToTheMaximum() {
        long[] bases = {200, 400, 800, 1600, 3200, 6400, 10_000, 10_000};
        for (int attempt = 0; attempt < bases.length; attempt++) {
            assertEquals(bases[attempt] / 2, backoff.delayMs(attempt, 0.0), "shortest wait of attempt " + attempt);
            assertEquals(bases[attempt], backoff.delayMs(attempt, 0.999_999_9), "longest wait of attempt " + attempt);
        }
    }

    @Test
    void jitterSpreadsRetriesWithinBounds() {
        SplittableRandom random = new SplittableRandom(42);
        for (int attempt = 0; attempt < 12; attempt++) {
            long base = Math.min(10_000, 200L << attempt);
            Set<Long> seen = new HashSet<>();
            for (int i = 0; i < 200; i++) {
                long d = backoff.delayMs(attempt, random.nextDouble());
                assertTrue(d >= base / 2 && d <= base, "attempt " + attempt + " waited " + d);
                seen.add(d);
            }
            assertTrue(seen.size() > 20, "attempt " + attempt + " is jittered, saw " + seen.size() + " distinct waits");
        }
    }

    @Test
    void manyFailuresNeverOverflowTheCap() {
        assertEquals(10_000, backoff.delayMs(10_000, 0.999_999_9));
        assertEquals(5_000, backoff.delayMs(Integer.MAX_VALUE, 0.0));
    }

    @Test
    void amongSeveralGatewaysTheDelayDoublesPerRoundThroughTheList() {
        for (int attempt = 0; attempt < 3; attempt++) {
            assertEquals(200, backoff.delayMs(attempt, 3, 0.999_999_9), "first round, attempt " + attempt);
        }
        for (int attempt = 3; attempt < 6; attempt++) {
            assertEquals(400, backoff.delayMs(attempt, 3, 0.999_999_9), "second round, attempt " + attempt);
        }
        assertEquals(10_000, backoff.delayMs(300, 3, 0.999_999_9));
        for (int attempt = 0; attempt < 8; attempt++) {
            assertEquals(backoff.delayMs(attempt, 0.5), backoff.delayMs(attempt, 1, 0.5), "one gateway: as before");
        }
    }

    @Test
    void nonsenseSettingsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Backoff(0, 10));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(500, 100));
    }
}
