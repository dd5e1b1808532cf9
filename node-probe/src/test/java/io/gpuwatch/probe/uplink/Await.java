package io.gpuwatch.probe.uplink;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.util.function.BooleanSupplier;

/** Waits, without blocking a thread, until something observable has happened. */
public final class Await {
    private Await() {
    }

    /** Succeeds once the condition holds, checking every 5 ms; fails with {@code what} after 10 s. */
    public static Future<Void> until(Vertx vertx, String what, BooleanSupplier condition) {
        Promise<Void> p = Promise.promise();
        long deadline = System.currentTimeMillis() + 10_000;
        vertx.setPeriodic(5, id -> {
            if (condition.getAsBoolean()) {
                vertx.cancelTimer(id);
                p.tryComplete();
            } else if (System.currentTimeMillis() > deadline) {
                vertx.cancelTimer(id);
                p.tryFail(new AssertionError("timed out waiting until " + what));
            }
        });
        return p.future();
    }
}
