package io.gpuwatch.notify.receiver.chat;

import io.gpuwatch.notify.retry.Pause;
import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.time.Duration;
import java.time.InstantSource;
import java.util.function.Supplier;

/**
 * Keeps one chat target within its rate limit: deliveries run one at a time in the order they were queued
 * (nothing is dropped), requests are spaced at least {@code minIntervalMs} apart, and after the target asks for
 * a pause ({@link #hold}) no request goes out before it ends. Waiting uses the injected pause and clock.
 */
public final class Pacer {
    private final long minIntervalMs;
    private final Pause pause;
    private final InstantSource clock;
    private Future<Void> tail = Future.succeededFuture();
    private long lastSentMs = Long.MIN_VALUE;
    private long heldUntilMs = Long.MIN_VALUE;

    public Pacer(long minIntervalMs, Pause pause, InstantSource clock) {
        if (minIntervalMs < 0) {
            throw new IllegalArgumentException("minIntervalMs must not be negative, got " + minIntervalMs);
        }
        this.minIntervalMs = minIntervalMs;
        this.pause = pause;
        this.clock = clock;
    }

    /** Runs {@code job} once every job queued before it has finished, however that ended. */
    public synchronized <T> Future<T> enqueue(Supplier<Future<T>> job) {
        Promise<T> done = Promise.promise();
        tail = tail.transform(previous -> {
            Future<T> run;
            try {
                run = job.get();
            } catch (RuntimeException e) {
                run = Future.failedFuture(e);
            }
            run.onComplete(done);
            return run.transform(ended -> Future.<Void>succeededFuture());
        });
        return done.future();
    }

    /** Completes when the next request may go out, and counts that request as sent. */
    public Future<Void> slot() {
        long wait;
        synchronized (this) {
            long notBefore = Math.max(lastSentMs == Long.MIN_VALUE ? Long.MIN_VALUE : lastSentMs + minIntervalMs,
                    heldUntilMs);
            wait = notBefore == Long.MIN_VALUE ? 0 : notBefore - clock.millis();
        }
        if (wait <= 0) {
            mark();
            return Future.succeededFuture();
        }
        return pause.after(wait).map(v -> {
            mark();
            return null;
        });
    }

    /** No request before {@code wait} from now, as a target's rate-limit answer asked. */
    public synchronized void hold(Duration wait) {
        heldUntilMs = Math.max(heldUntilMs, clock.millis() + wait.toMillis());
    }

    private synchronized void mark() {
        lastSentMs = clock.millis();
    }
}
