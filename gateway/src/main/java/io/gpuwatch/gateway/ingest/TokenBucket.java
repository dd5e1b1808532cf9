package io.gpuwatch.gateway.ingest;

/** A budget of {@code rate} takes per second with bursts up to {@code burst}: a probe connection's frames, an API token's calls. */
public final class TokenBucket {
    private final double rate;
    private final double burst;
    private double tokens;
    private long lastMs;

    public TokenBucket(double rate, double burst, long nowMs) {
        this.rate = rate;
        this.burst = burst;
        this.tokens = burst;
        this.lastMs = nowMs;
    }

    /** Takes one frame's token if there is one. */
    public boolean take(long nowMs) {
        if (nowMs > lastMs) {
            tokens = Math.min(burst, tokens + (nowMs - lastMs) * rate / 1000.0);
            lastMs = nowMs;
        }
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }
}
