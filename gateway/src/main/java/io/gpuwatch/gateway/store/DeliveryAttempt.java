package io.gpuwatch.gateway.store;

import java.time.Instant;

/**
 * One try at sending outbox row {@code row} to {@code receiver} at {@code at}: sent, failed and due again
 * ({@link Outcome#RETRY}), or failed for good; {@code error} is null when it was sent.
 */
public record DeliveryAttempt(long row, String receiver, Instant at, Outcome outcome, String error) {
    /** What one attempt came to. */
    public enum Outcome { SENT, RETRY, FAILED }
}
