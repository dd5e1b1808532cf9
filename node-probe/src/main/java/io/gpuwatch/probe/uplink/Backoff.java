package io.gpuwatch.probe.uplink;

/**
 * Jittered exponential back-off between connection attempts. Retry {@code n} (from 0) waits a random time in
 * {@code [base/2, base]}, {@code base = min(maxMs, initialMs · 2^n)}, so a fleet that lost its gateway together
 * does not come back in lock-step.
 */
public record Backoff(long initialMs, long maxMs) {
    /** 200 ms doubling up to 10 s. */
    public static final Backoff DEFAULT = new Backoff(200, 10_000);

    public Backoff {
        if (initialMs <= 0 || maxMs < initialMs) {
            throw new IllegalArgumentException("back-off needs 0 < initialMs <= maxMs, got " + initialMs + ", " + maxMs);
        }
    }

    /** The wait before retry {@code attempt}, given a uniform random {@code u} in [0, 1). */
    public long delayMs(int attempt, double u) {
        double base = initialMs * Math.pow(2, Math.min(attempt, 62));
        long capped = (long) Math.min(maxMs, base);
        return capped / 2 + Math.round(u * (capped - capped / 2));
    }

    /**
     * The wait before the next attempt among {@code gateways} alternatives tried in turn, after {@code attempt}
     * failures in a row (from 0): the delay doubles per round through all of them rather than per gateway, so a
     * live gateway late in the list is reached after a few short waits, not after the longest ones.
     */
    public long delayMs(int attempt, int gateways, double u) {
        return delayMs(attempt / Math.max(1, gateways), u);
    }
}
