package io.gpuwatch.gateway.store;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.rules.eval.AlertState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the store keeps for the operators' API: which rows tell of an alert, every attempt to send each, a
 * receiver's health and outbox depth from them, and an acknowledgement's withdrawal; all across a reopen.
 */
class StoreDeliveryRecordTest {
    private static final Instant T0 = Instant.parse("2025-03-01T10:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);

    @TempDir
    Path dir;
    private final TestClock clock = new TestClock(T0);
    private final Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10), 2.0, 0.2, 4, () -> 0.5);
    private Store store;

    @BeforeEach
    void open() {
        store = Store.open(dir.resolve("gateway"), clock, backoff);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aRowFailedThenSentIsFoundByItsAlertsWithBothAttempts() {
        long both = store.outbox().enqueue("pager", "g1", "{}", List.of("fp-a", "fp-b", "fp-a"));
        long other = store.outbox().enqueue("pager", "g2", "{}", List.of("fp-c"));
        store.outbox().enqueue("pager", "g3", "{}");
        OutboxEntry claimed = store.outbox().claim(1, LEASE).get(0);
        assertEquals(both, claimed.id());
        store.outbox().fail(claimed, "503 Service Unavailable", null);
        clock.advance(Duration.ofSeconds(2));
        OutboxEntry again = store.outbox().claim(10, LEASE).stream().filter(r -> r.id() == both).findFirst()
                .orElseThrow();
        assertTrue(store.outbox().complete(again));

        store.close();
        store = Store.open(dir.resolve("gateway"), clock, backoff);
        assertEquals(List.of(both), store.outbox().mentioning("fp-a").stream().map(OutboxEntry::id).toList());
        assertEquals(List.of(both), store.outbox().mentioning("fp-b").stream().map(OutboxEntry::id).toList());
        assertEquals(List.of(other), store.outbox().mentioning("fp-c").stream().map(OutboxEntry::id).toList());
        assertEquals(List.of(), store.outbox().mentioning("fp-unknown"));
        List<DeliveryAttempt> attempts = store.outbox().attempts(List.of(both));
        assertEquals(List.of(DeliveryAttempt.Outcome.RETRY, DeliveryAttempt.Outcome.SENT),
                attempts.stream().map(DeliveryAttempt::outcome).toList());
        assertEquals("503 Service Unavailable", attempts.get(0).error());
        assertEquals(T0, attempts.get(0).at());
        assertEquals(T0.plusSeconds(2), attempts.get(1).at());
        assertNull(attempts.get(1).error());
    }

    @Test
    void aReceiversHealthCountsTheFailuresSinceItsLastSuccessAndItsDepthThePendingRows() {
        store.outbox().enqueue("pager", "g1", "{}");
        store.outbox().enqueue("chat", "g1", "{}");
        store.outbox().enqueue("chat", "g2", "{}");
        ReceiverHealth untouched = store.outbox().health("pager");
        assertNull(untouched.lastSuccess());
        assertNull(untouched.lastFailure());
        assertEquals(0, untouched.consecutiveFailures());
        assertEquals(Map.of("pager", 1L, "chat", 2L), store.outbox().pendingByReceiver());

        OutboxEntry pager = store.outbox().claim(10, LEASE).stream().filter(r -> r.receiver().equals("pager"))
                .findFirst().orElseThrow();
        store.outbox().complete(pager);
        clock.advance(Duration.ofSeconds(5));
        store.outbox().enqueue("pager", "g2", "{}");
        store.outbox().fail(store.outbox().claim(10, LEASE).stream().filter(r -> r.receiver().equals("pager"))
                .findFirst().orElseThrow(), "timeout", null);
        clock.advance(Duration.ofSeconds(5));
        store.outbox().giveUp(store.outbox().claim(10, LEASE).stream().filter(r -> r.receiver().equals("pager"))
                .findFirst().orElseThrow(), "400 bad request");

        ReceiverHealth h = store.outbox().health("pager");
        assertEquals(T0, h.lastSuccess());
        assertEquals(T0.plusSeconds(10), h.lastFailure());
        assertEquals("400 bad request", h.lastError());
        assertEquals(2, h.consecutiveFailures());
        assertEquals(Map.of("chat", 2L), store.outbox().pendingByReceiver(), "the pager's rows are sent or given up");
    }

    @Test
    void aWithdrawnAcknowledgementIsKeptButNotInForce() {
        Alert live = new Alert("fp-a", "too-hot", "page", Map.of("alertname", "too-hot"), Map.of(),
                T0.toEpochMilli(), T0.toEpochMilli(), 0, AlertState.FIRING);
        store.acks().add(new Acknowledgement("fp-a", "ana", T0, "on it", "api"));
        assertEquals(1, store.acks().inForce(List.of(live)).size());
        store.acks().add(new Acknowledgement("fp-a", "bo", T0, "not mine after all", "api", true));
        List<Acknowledgement> kept = store.acks().of("fp-a");
        assertEquals(2, kept.size());
        assertTrue(kept.get(0).withdrawn(), "the withdrawal, made last, is the newest");
        assertFalse(kept.get(1).withdrawn());
        assertEquals(List.of(), store.acks().inForce(List.of(live)));
    }
}
