package io.gpuwatch.notify;

import io.vertx.core.Future;

/**
 * A receiver whose target keeps its own state of an alert and can be told that someone acknowledged it, as a
 * paging service stops escalating an acknowledged incident.
 */
public interface Acknowledging {
    /** Tells the target that the alert {@code fingerprint} is acknowledged; an unknown one is no error. */
    Future<Void> acknowledge(String fingerprint);

    /**
     * Tells the target that the acknowledgement of the alert {@code fingerprint} was withdrawn, so it escalates
     * again. A service with no way to do that fails, saying so, which is also what this default does.
     */
    default Future<Void> unacknowledge(String fingerprint) {
        return Future.failedFuture(new UnsupportedOperationException("this paging service offers no way to "
                + "withdraw an acknowledgement; re-open the incident there by hand"));
    }
}
