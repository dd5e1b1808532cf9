package io.gpuwatch.notify.receiver.chat;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PacerTest {
    @Test
    void runsQueuedJobsOneAtATimeInOrderEvenAfterAFailure() {
        Pacer pacer = new Pacer(0, new FakeTime(Alerts.NOW), new FakeTime(Alerts.NOW));
        List<String> started = new CopyOnWriteArrayList<>();
        Promise<String> first = Promise.promise();
        Future<String> a = pacer.enqueue(() -> {
            started.add("a");
            return first.future();
        });
        Future<String> b = pacer.enqueue(() -> {
            started.add("b");
            return Future.failedFuture(new IllegalStateException("b broke"));
        });
        Future<String> c = pacer.enqueue(() -> {
            started.add("c");
            return Future.succeededFuture("c done");
        });
        assertEquals(List.of("a"), started, "b waits for a");
        first.complete("a done");
        assertEquals(List.of("a", "b", "c"), started);
        assertEquals("a done", a.result());
        assertTrue(b.failed());
        assertEquals("c done", c.result(), "a failed job does not stop the queue");
    }

    @Test
    void spacesRequestsAndHonoursHolds() {
        FakeTime time = new FakeTime(Alerts.NOW);
        Pacer pacer = new Pacer(1_000, time, time);
        pacer.slot();
        pacer.slot();
        time.after(400);
        pacer.slot();
        assertEquals(List.of(1_000L, 400L, 600L), time.waits);
        pacer.hold(Duration.ofSeconds(30));
        pacer.slot();
        assertEquals(30_000L, time.waits.get(time.waits.size() - 1));
    }
}
