package io.gpuwatch.notify.retry;

import io.gpuwatch.notify.config.Fields;

import java.util.random.RandomGenerator;

/**
 * How often and how patiently to retry: at most {@code maxAttempts} tries in all, waiting an exponentially
 * growing back-off (doubling from {@code initialBackoffMs}, capped at {@code maxBackoffMs}) between them.
 * The cap also bounds a server's {@code Retry-After}: asked to wait longer, the receiver gives up instead.
 */
public record RetryPolicy(int maxAttempts, long initialBackoffMs, long maxBackoffMs) {
    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
        }
        if (initialBackoffMs < 1) {
            throw new IllegalArgumentException("initialBackoffMs must be at least 1, got " + initialBackoffMs);
        }
        if (maxBackoffMs < initialBackoffMs) {
            throw new IllegalArgumentException("maxBackoffMs (" + maxBackoffMs + ") must not be below initialBackoffMs ("
                    + initialBackoffMs + ")");
        }
    }

    /**
     * The schedule in fields {@code maxAttempts} (at most {@code attemptsCap}), {@code initialBackoffMs} and
     * {@code maxBackoffMs} of {@code f}, each falling back to {@code defaults} (the cap to no less than the initial
     * back-off read). Problems are recorded in {@code f} at their field paths; the result is then null.
     */
    public static RetryPolicy read(Fields f, RetryPolicy defaults, int attemptsCap) {
        int before = f.problems().size();
        int maxAttempts = (int) f.whole("maxAttempts", defaults.maxAttempts(), 1, attemptsCap);
        long initial = f.whole("initialBackoffMs", defaults.initialBackoffMs(), 1, Long.MAX_VALUE);
        long max = f.whole("maxBackoffMs", Math.max(defaults.maxBackoffMs(), initial), 1, Long.MAX_VALUE);
        if (max < initial) {
            f.problem("maxBackoffMs", "must not be below initialBackoffMs (" + initial + "), got " + max);
        }
        return f.problems().size() > before ? null : new RetryPolicy(maxAttempts, initial, max);
    }

    /**
     * The wait before retry number {@code retry} (1 = after the first attempt): the capped exponential step
     * minus up to half of it at random ("equal jitter"), so clients that failed together spread out yet never
     * hammer the target with near-zero waits. A generator returning 0 yields the bare exponential schedule.
     */
    public long backoffMs(int retry, RandomGenerator random) {
        int shift = Math.max(0, retry - 1);
        long step = shift >= 62 || initialBackoffMs > (maxBackoffMs >> shift)
                ? maxBackoffMs : Math.min(maxBackoffMs, initialBackoffMs << shift);
        return step - (long) (step / 2 * random.nextDouble());
    }
}
