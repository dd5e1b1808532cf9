package io.gpuwatch.gateway.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The outbox's depth by receiver, as {@code gpuwatch_outbox_pending} reports it: pending rows only. */
class OutboxPendingTest {
    @TempDir
    Path dir;

    @Test
    void pendingRowsAreCountedByReceiverSentAndFailedOnesAreNot() {
        TestClock clock = new TestClock(Instant.parse("2025-03-01T10:00:00Z"));
        Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10), 2.0, 0.2, 4, () -> 0.5);
        try (Store store = Store.open(dir.resolve("gateway"), clock, backoff)) {
            Outbox outbox = store.outbox();
            assertEquals(Map.of(), outbox.pendingByReceiver());
            outbox.enqueue("slack", "g1", "{}");
            outbox.enqueue("pager", "g1", "{}");
            outbox.enqueue("pager", "g2", "{}");
            outbox.enqueue("pager", "g3", "{}");
            OutboxEntry sent = outbox.claim(1, Duration.ofSeconds(30)).get(0);
            assertEquals("slack", sent.receiver(), "the oldest row first");
            outbox.complete(sent);
            outbox.fail(outbox.claim(1, Duration.ofSeconds(30)).get(0), "503", null);
            outbox.giveUp(outbox.claim(1, Duration.ofSeconds(30)).get(0), "400");
            // pager's row waiting out its back-off and its unclaimed one; not the sent one, nor the one given up
            assertEquals(Map.of("pager", 2L), outbox.pendingByReceiver());
        }
    }
}
