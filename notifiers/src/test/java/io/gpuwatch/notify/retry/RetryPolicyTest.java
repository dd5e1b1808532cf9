package io.gpuwatch.notify.retry;

import org.junit.jupiter.api.Test;

import java.util.Random;
import java.util.random.RandomGenerator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RetryPolicyTest {
    private final RetryPolicy policy = new RetryPolicy(6, 200, 10_000);

    @Test
    void withoutJitterTheStepDoublesToTheCap() {
        RandomGenerator none = () -> 0L;
        long[] expected = {200, 400, 800, 1600, 3200, 6400, 10_000, 10_000};
        for (int retry = 1; retry <= expected.length; retry++) {
            assertEquals(expected[retry - 1], policy.backoffMs(retry, none), "retry " + retry);
        }
        assertEquals(10_000, policy.backoffMs(500, none), "huge retry numbers must not overflow");
    }

    @Test
    void jitterTakesAtMostHalfTheStep() {
        Random random = new Random(42);
        for (int retry = 1; retry <= 10; retry++) {
            long step = Math.min(10_000, 200L << (retry - 1));
            long wait = policy.backoffMs(retry, random);
            assertTrue(wait >= step / 2 && wait <= step, "retry " + retry + " waited " + wait + " of step " + step);
        }
    }

    @Test
    void sameSeedSameSchedule() {
        Random a = new Random(7);
        Random b = new Random(7);
        for (int retry = 1; retry <= 6; retry++) {
            assertEquals(policy.backoffMs(retry, a), policy.backoffMs(retry, b));
        }
    }

    @Test
    void rejectsImpossibleSchedules() {
        assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(0, 200, 10_000));
        assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(3, 0, 10_000));
        assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(3, 500, 100));
    }
}
