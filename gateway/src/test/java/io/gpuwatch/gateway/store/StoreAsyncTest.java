package io.gpuwatch.gateway.store;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.rules.eval.AlertState;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(VertxExtension.class)
class StoreAsyncTest {
    private static final Instant T0 = Instant.parse("2025-03-01T10:00:00Z");

    @TempDir
    Path dir;
    private final TestClock clock = new TestClock(T0);

    @Test
    void workRunsOffTheEventLoopAndAnswersOnTheCallersContext(Vertx vertx, VertxTestContext tc) {
        Context ctx = vertx.getOrCreateContext();
        ctx.runOnContext(v -> AsyncStore.open(vertx, dir.resolve("gateway"), clock, Backoff.standard())
                .compose(store -> store.run(s -> {
                    String thread = Thread.currentThread().getName();
                    boolean onEventLoop = Context.isOnEventLoopThread();
                    s.alerts().save(new Alert("fp1", "GpuHot", "page", Map.of("node", "n1"), Map.of(), 1, 2, 0,
                            AlertState.FIRING), T0);
                    long id = s.outbox().enqueue("pagerduty", "fp1", "{}");
                    return List.of(thread, onEventLoop, id);
                }).compose(r -> {
                    tc.verify(() -> {
                        assertEquals("gpuwatch-store", r.get(0));
                        assertEquals(false, r.get(1));
                        assertSame(ctx, Vertx.currentContext(), "the answer comes back on the caller's context");
                    });
                    return store.run(s -> s.outbox().get((Long) r.get(2)).orElseThrow());
                }).compose(row -> {
                    tc.verify(() -> assertEquals("pagerduty", row.receiver()));
                    return store.close();
                }).compose(closed -> store.run(s -> s.alerts().live())))
                .onComplete(tc.failing(e -> tc.verify(() -> {
                    assertInstanceOf(StoreException.class, e, "a closed store refuses work");
                    tc.completeNow();
                }))));
    }

    @Test
    void aFailingTransactionFailsTheFutureAndKeepsNothing(Vertx vertx, VertxTestContext tc) {
        AsyncStore.open(vertx, dir.resolve("gateway"), clock, Backoff.standard())
                .compose(store -> store.run(s -> {
                    s.outbox().enqueue("slack", "g1", "{}");
                    throw new IllegalArgumentException("no such receiver");
                }).recover(e -> {
                    tc.verify(() -> assertEquals("no such receiver", e.getMessage()));
                    return store.run(s -> s.outbox().count(OutboxEntry.State.PENDING));
                }).eventually(store::close))
                .onComplete(tc.succeeding(n -> tc.verify(() -> {
                    assertEquals(0L, n);
                    tc.completeNow();
                })));
    }

    @Test
    void aDamagedFileFailsTheOpenWithTheFileNamed(Vertx vertx, VertxTestContext tc) throws Exception {
        Path f = dir.resolve("gateway.mv.db");
        Files.writeString(f, "not h2 at all\n".repeat(500));
        AsyncStore.open(vertx, f, clock, Backoff.standard())
                .onComplete(tc.failing(e -> tc.verify(() -> {
                    assertInstanceOf(StoreException.class, e);
                    assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
                    tc.completeNow();
                })));
    }
}
