package io.gpuwatch.gateway.store;

import java.time.Instant;
import java.util.Objects;

/**
 * How deliveries to {@code receiver} have gone: when one last succeeded, when one last failed and why, and how
 * many failed since the last success. Times that never happened are null.
 */
public record ReceiverHealth(String receiver, Instant lastSuccess, Instant lastFailure, String lastError,
                             int consecutiveFailures) {
    public ReceiverHealth {
        Objects.requireNonNull(receiver, "receiver");
    }

    /** A receiver nothing was delivered to yet. */
    public static ReceiverHealth unused(String receiver) {
        return new ReceiverHealth(receiver, null, null, null, 0);
    }

    /** This health after a delivery succeeded at {@code at}. */
    public ReceiverHealth succeeded(Instant at) {
        return new ReceiverHealth(receiver, at, lastFailure, lastError, 0);
    }

    /** This health after a delivery failed at {@code at} with {@code error}. */
    public ReceiverHealth failed(Instant at, String error) {
        return new ReceiverHealth(receiver, lastSuccess, at, error, consecutiveFailures + 1);
    }
}
