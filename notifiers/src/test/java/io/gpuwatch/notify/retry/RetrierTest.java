package io.gpuwatch.notify.retry;

import io.gpuwatch.notify.DeliveryFailure;
import io.vertx.core.Future;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RetrierTest {
    private final List<Long> waits = new ArrayList<>();
    private final Retrier retrier = new Retrier(new RetryPolicy(3, 10, 100), () -> 0L, ms -> {
        waits.add(ms);
        return Future.succeededFuture();
    });

    @Test
    void aThrowingAttemptIsRetriedAndReportedByTypeOnly() {
        AtomicInteger calls = new AtomicInteger();
        Future<Void> result = retrier.run("r", () -> {
            calls.incrementAndGet();
            throw new IllegalStateException("boom at https://h/secret");
        });
        DeliveryFailure f = assertInstanceOf(DeliveryFailure.class, result.cause());
        assertEquals(3, calls.get());
        assertEquals(3, f.attempts());
        assertEquals("attempt failed with IllegalStateException", f.lastError());
        assertEquals(List.of(10L, 20L), waits);
    }

    @Test
    void rejectionStopsAtOnce() {
        Future<Void> result = retrier.run("r", () -> Future.succeededFuture(Outcome.reject("HTTP 404")));
        DeliveryFailure f = assertInstanceOf(DeliveryFailure.class, result.cause());
        assertEquals(1, f.attempts());
        assertFalse(f.retryable());
        assertTrue(waits.isEmpty());
    }

    @Test
    void serverPauseReplacesTheBackoff() {
        AtomicInteger calls = new AtomicInteger();
        Future<Void> result = retrier.run("r", () -> Future.succeededFuture(calls.getAndIncrement() == 0
                ? Outcome.retryAfter("HTTP 429", Duration.ofMillis(70)) : Outcome.delivered()));
        assertTrue(result.succeeded());
        assertEquals(List.of(70L), waits);
    }
}
