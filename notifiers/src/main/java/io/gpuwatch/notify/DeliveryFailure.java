package io.gpuwatch.notify;

import java.util.List;

/**
 * Why a receiver gave up on a batch: which receiver, after how many attempts, the last error, and whether
 * trying again later could help (retries exhausted or the server asked for a long pause) or not (rejected
 * as a client error). The message never carries a URL's path or query, however the error was worded.
 */
public final class DeliveryFailure extends RuntimeException {
    private final String receiver;
    private final int attempts;
    private final String lastError;
    private final boolean retryable;

    public DeliveryFailure(String receiver, int attempts, String lastError, boolean retryable) {
        super("receiver '" + receiver + "' failed after " + attempts + (attempts == 1 ? " attempt" : " attempts")
                + (retryable ? "" : " (not retried)") + ": " + Redaction.text(lastError, List.of()),
                null, false, false);
        this.receiver = receiver;
        this.attempts = attempts;
        this.lastError = Redaction.text(lastError, List.of());
        this.retryable = retryable;
    }

    /** The receiver's configured name. */
    public String receiver() {
        return receiver;
    }

    /** How many times delivery was tried. */
    public int attempts() {
        return attempts;
    }

    /** The last error, already redacted. */
    public String lastError() {
        return lastError;
    }

    /** True when the same batch may succeed later; false when the target rejected it outright. */
    public boolean retryable() {
        return retryable;
    }
}
