package io.gpuwatch.gateway.store;

/** A failure of the gateway's store, with a message that names the file and, where there is one, the remedy. */
public final class StoreException extends RuntimeException {
    public StoreException(String message) {
        super(message);
    }

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
