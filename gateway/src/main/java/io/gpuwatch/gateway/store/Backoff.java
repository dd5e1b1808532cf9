package io.gpuwatch.gateway.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.DoubleSupplier;

/**
 * When a failed outbox row is tried again: {@code initial × factor^(attempts−1)}, capped at {@code max}, spread
 * by ±{@code jitter} (a fraction) so receivers recovering from an outage are not hit in lockstep, and never
 * before a {@code Retry-After} the receiver asked for. After {@code maxAttempts} attempts the row fails.
 * {@code random} yields values in [0, 1).
 */
public record Backoff(Duration initial, Duration max, double factor, double jitter, int maxAttempts,
                      DoubleSupplier random) {
    public Backoff {
        Objects.requireNonNull(initial, "initial");
        Objects.requireNonNull(max, "max");
        Objects.requireNonNull(random, "random");
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < initial <= max, got " + initial + " and " + max);
        }
        if (factor < 1 || jitter < 0 || jitter >= 1 || maxAttempts < 1) {
            throw new IllegalArgumentException("backoff needs factor >= 1, 0 <= jitter < 1 and maxAttempts >= 1");
        }
    }

    /** 1 s doubling to at most 5 min, ±20 %, 20 attempts (a little over an hour of retrying). */
    public static Backoff standard() {
        SplittableRandom r = new SplittableRandom();
        return new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(5), 2.0, 0.2, 20, r::nextDouble);
    }

    /** Whether a row that has had {@code attempts} attempts may have another. */
    public boolean allowsAnother(int attempts) {
        return attempts < maxAttempts;
    }

    /** The next attempt after the {@code attempts}-th failed at {@code now}; {@code retryAfter} may be null. */
    public Instant next(int attempts, Instant now, Duration retryAfter) {
        double base = initial.toMillis() * Math.pow(factor, Math.max(0, attempts - 1));
        double capped = Math.min(base, max.toMillis());
        double spread = capped * (1 + jitter * (2 * random.getAsDouble() - 1));
        Instant at = now.plusMillis(Math.max(1, Math.round(spread)));
        if (retryAfter != null && at.isBefore(now.plus(retryAfter))) {
            return now.plus(retryAfter);
        }
        return at;
    }
}
