package io.gpuwatch.notify;

import io.vertx.core.Future;

/**
 * A receiver whose target keeps its own state of an alert and can be told that someone acknowledged it, as a
 * paging service stops escalating an acknowledged incident.
 */
public interface Acknowledging {
    /** Tells the target that the alert {@code fingerprint} is acknowledged; an unknown one is no error. */
    Future<Void> acknowledge(String fingerprint);
}
