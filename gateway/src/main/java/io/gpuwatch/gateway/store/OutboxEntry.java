package io.gpuwatch.gateway.store;

import java.time.Instant;

/**
 * One notification waiting for, or done with, delivery to {@code receiver}. {@code key} is the dedup or group
 * key the payload carries. {@code leaseToken}/{@code leaseUntil} are set while a worker holds the row; times
 * that do not apply are null.
 */
public record OutboxEntry(long id, String receiver, String key, String payload, Instant createdAt, int attempts,
                          Instant nextAttemptAt, String lastError, State state, String leaseToken,
                          Instant leaseUntil, Instant sentAt) {
    /** Where a row stands: waiting (or being sent), delivered, or given up on. */
    public enum State { PENDING, SENT, FAILED }
}
