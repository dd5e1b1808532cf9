package io.gpuwatch.gateway.http;

import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The ids (signatures, nonces) of signed chat callbacks taken within the last {@code window}, so a replay inside it
 * is refused; older ones are forgotten, since a request that old fails its timestamp check. Owned by the event loop.
 */
final class ReplayGuard {
    private final Duration window;
    /** Ids by when they were taken, oldest first. */
    private final Map<String, Instant> seen = new LinkedHashMap<>();

    ReplayGuard(Duration window) {
        this.window = window;
    }

    /** True the first time {@code id} is taken within the window at {@code now}; false for a replay. */
    boolean firstTime(String id, Instant now) {
        Instant cutoff = now.minus(window);
        for (Iterator<Instant> it = seen.values().iterator(); it.hasNext(); ) {
            if (it.next().isBefore(cutoff)) {
                it.remove();
            } else {
                break;
            }
        }
        return seen.putIfAbsent(id, now) == null;
    }
}
