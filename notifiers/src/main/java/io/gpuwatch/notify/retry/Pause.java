package io.gpuwatch.notify.retry;

import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.util.concurrent.TimeUnit;

/** Waits without blocking; tests substitute one that records the schedule and returns at once. */
@FunctionalInterface
public interface Pause {
    /** A future that completes after about {@code millis} milliseconds. */
    Future<Void> after(long millis);

    /** Pauses on Vert.x timers. */
    static Pause timers(Vertx vertx) {
        // Vert.x refuses timers under 1 ms, and a zero Retry-After means "now".
        return millis -> vertx.timer(Math.max(1, millis), TimeUnit.MILLISECONDS);
    }
}
