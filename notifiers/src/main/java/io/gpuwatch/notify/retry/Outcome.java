package io.gpuwatch.notify.retry;

import java.time.Duration;

/** What one delivery attempt came to, as the receiver that made it judges it. */
public sealed interface Outcome permits Outcome.Delivered, Outcome.Retry, Outcome.Reject {
    /** The target accepted the batch. */
    record Delivered() implements Outcome {
    }

    /** A transient failure; {@code after} is the server's requested pause, or null to use the back-off. */
    record Retry(String error, Duration after) implements Outcome {
    }

    /** The target refused the batch in a way that retrying cannot fix. */
    record Reject(String error) implements Outcome {
    }

    /** The batch got through. */
    static Outcome delivered() {
        return new Delivered();
    }

    /** Try again after the back-off. */
    static Outcome retry(String error) {
        return new Retry(error, null);
    }

    /** Try again after the server's requested pause. */
    static Outcome retryAfter(String error, Duration wait) {
        return new Retry(error, wait);
    }

    /** Give up now. */
    static Outcome reject(String error) {
        return new Reject(error);
    }
}
