package io.gpuwatch.gateway.store;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StoreOutboxTest {
    private static final Instant T0 = Instant.parse("2025-03-01T10:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);

    @TempDir
    Path dir;
    private final TestClock clock = new TestClock(T0);
    // no jitter (random 0.5 is the middle of the spread), so the due times are exact
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

    private void reopen() {
        store.close();
        store = Store.open(dir.resolve("gateway"), clock, backoff);
    }

    @Test
    void aRowWaitingOutItsBackoffHoldsBackTheLaterRowsOfItsGroupOnly() {
        long trigger = store.outbox().enqueue("pagerduty", "g1", "{\"event_action\":\"trigger\"}");
        OutboxEntry claimed = store.outbox().claim(10, LEASE).get(0);
        store.outbox().fail(claimed, "503", null);
        long resolve = store.outbox().enqueue("pagerduty", "g1", "{\"event_action\":\"resolve\"}");
        long otherReceiver = store.outbox().enqueue("slack", "g1", "{}");
        long otherGroup = store.outbox().enqueue("pagerduty", "g2", "{}");
        assertEquals(List.of(otherReceiver, otherGroup), store.outbox().claim(10, LEASE).stream()
                .map(OutboxEntry::id).toList(), "g1's resolve waits for its trigger");

        clock.advance(Duration.ofSeconds(2));
        List<OutboxEntry> retry = store.outbox().claim(10, LEASE);
        assertEquals(List.of(trigger), retry.stream().map(OutboxEntry::id).toList(), "one row of a group at a time");
        assertTrue(store.outbox().complete(retry.get(0)));
        assertEquals(List.of(resolve), store.outbox().claim(10, LEASE).stream().map(OutboxEntry::id).toList());
    }

    @Test
    void aRowGivenUpHoldsNothingBack() {
        store.outbox().enqueue("pagerduty", "g1", "{}");
        store.outbox().giveUp(store.outbox().claim(1, LEASE).get(0), "400 bad request");
        long next = store.outbox().enqueue("pagerduty", "g1", "{}");
        assertEquals(List.of(next), store.outbox().claim(10, LEASE).stream().map(OutboxEntry::id).toList());
    }

    @Test
    void aClaimedRowIsNotHandedOutTwiceAndCompletingItSendsItForGood() {
        long a = store.outbox().enqueue("pagerduty", "fp1", "{\"event_action\":\"trigger\"}");
        long b = store.outbox().enqueue("slack", "g1", "{\"text\":\"x\"}");
        List<OutboxEntry> first = store.outbox().claim(10, LEASE);
        assertEquals(List.of(a, b), first.stream().map(OutboxEntry::id).toList());
        OutboxEntry pd = first.get(0);
        assertEquals("pagerduty", pd.receiver());
        assertEquals("fp1", pd.key());
        assertEquals("{\"event_action\":\"trigger\"}", pd.payload());
        assertEquals(1, pd.attempts());
        assertEquals(T0.plus(LEASE), pd.leaseUntil());
        assertEquals(List.of(), store.outbox().claim(10, LEASE), "both are leased");

        assertTrue(store.outbox().complete(pd));
        OutboxEntry sent = store.outbox().get(a).orElseThrow();
        assertEquals(OutboxEntry.State.SENT, sent.state());
        assertEquals(T0, sent.sentAt());
        assertNull(sent.leaseToken());
        assertFalse(store.outbox().complete(pd), "a second completion changes nothing");
        assertEquals(1, store.outbox().count(OutboxEntry.State.SENT));
        assertEquals(1, store.outbox().count(OutboxEntry.State.PENDING));
    }

    @Test
    void anExpiredLeaseLetsAnotherWorkerTakeTheRowAndTheStaleWorkerIsRefused() {
        long id = store.outbox().enqueue("pagerduty", "fp1", "{}");
        OutboxEntry stale = store.outbox().claim(1, LEASE).get(0);
        clock.advance(LEASE.minusSeconds(1));
        assertEquals(List.of(), store.outbox().claim(1, LEASE));
        clock.advance(Duration.ofSeconds(1));
        OutboxEntry fresh = store.outbox().claim(1, LEASE).get(0);
        assertEquals(id, fresh.id());
        assertEquals(2, fresh.attempts());
        assertNotEquals(stale.leaseToken(), fresh.leaseToken());
        assertFalse(store.outbox().complete(stale));
        assertEquals(Optional.empty(), store.outbox().fail(stale, "timeout", null));
        assertTrue(store.outbox().complete(fresh));
    }

    @Test
    void aSendThatOutlivesItsLeaseStillCountsWhenNobodyTookTheRow() {
        store.outbox().enqueue("jira", "fp1", "{}");
        OutboxEntry slow = store.outbox().claim(1, LEASE).get(0);
        clock.advance(LEASE.plusSeconds(5));
        assertTrue(store.outbox().complete(slow));
        assertEquals(List.of(), store.outbox().claim(1, LEASE));
    }

    @Test
    void failuresBackOffExponentiallyHonourRetryAfterAndFinallyFail() {
        long id = store.outbox().enqueue("pagerduty", "fp1", "{}");
        OutboxEntry e = store.outbox().claim(1, LEASE).get(0);
        OutboxEntry after1 = store.outbox().fail(e, "HTTP 503", null).orElseThrow();
        assertEquals(OutboxEntry.State.PENDING, after1.state());
        assertEquals("HTTP 503", after1.lastError());
        assertEquals(T0.plusSeconds(1), after1.nextAttemptAt());
        assertNull(after1.leaseToken());
        assertEquals(Optional.of(T0.plusSeconds(1)), store.outbox().nextDue());
        assertEquals(List.of(), store.outbox().claim(1, LEASE), "not due yet");

        clock.advance(Duration.ofSeconds(1));
        e = store.outbox().claim(1, LEASE).get(0);
        assertEquals(T0.plusSeconds(1 + 2), store.outbox().fail(e, "HTTP 500", null).orElseThrow().nextAttemptAt());

        clock.advance(Duration.ofSeconds(2));
        e = store.outbox().claim(1, LEASE).get(0);
        // a Retry-After longer than the back-off wins
        OutboxEntry after3 = store.outbox().fail(e, "HTTP 429", Duration.ofSeconds(60)).orElseThrow();
        assertEquals(clock.instant().plusSeconds(60), after3.nextAttemptAt());

        clock.advance(Duration.ofSeconds(60));
        e = store.outbox().claim(1, LEASE).get(0);
        assertEquals(4, e.attempts());
        OutboxEntry last = store.outbox().fail(e, "HTTP 502", null).orElseThrow();
        assertEquals(OutboxEntry.State.FAILED, last.state());
        assertTrue(last.lastError().startsWith("HTTP 502"), last.lastError());
        assertEquals(Optional.empty(), store.outbox().nextDue());
        assertEquals(List.of(id), store.outbox().list(OutboxEntry.State.FAILED, 10).stream()
                .map(OutboxEntry::id).toList());
    }

    @Test
    void aNonRetryableErrorFailsTheRowAtOnce() {
        store.outbox().enqueue("slack", "g1", "{}");
        OutboxEntry e = store.outbox().claim(1, LEASE).get(0);
        OutboxEntry failed = store.outbox().giveUp(e, "HTTP 400 invalid_payload").orElseThrow();
        assertEquals(OutboxEntry.State.FAILED, failed.state());
        assertEquals("HTTP 400 invalid_payload", failed.lastError());
        assertEquals(0, store.outbox().count(OutboxEntry.State.PENDING));
    }

    @Test
    void aRestartFreesTheLeasesOfTheDeadProcessAndLosesNoRow() {
        long a = store.outbox().enqueue("pagerduty", "fp1", "{\"n\":1}");
        long b = store.outbox().enqueue("pagerduty", "fp2", "{\"n\":2}");
        store.outbox().claim(2, Duration.ofMinutes(10));
        reopen();
        List<OutboxEntry> again = store.outbox().claim(10, LEASE);
        assertEquals(List.of(a, b), again.stream().map(OutboxEntry::id).toList());
        assertEquals(List.of(2, 2), again.stream().map(OutboxEntry::attempts).toList());
        assertEquals("{\"n\":2}", again.get(1).payload());
    }

    @Test
    void completingTheRowAndLoggingTheSendHappenTogether() {
        store.outbox().enqueue("pagerduty", "fp1", "{}");
        OutboxEntry e = store.outbox().claim(1, LEASE).get(0);
        String firing = NotificationLogEntry.hash(List.of("fp1"));
        String none = NotificationLogEntry.hash(List.of());
        boolean done = store.transact(s -> {
            boolean ok = s.outbox().complete(e);
            if (ok) {
                s.notificationLog().record(new NotificationLogEntry("pagerduty", "fp1", firing, none, clock.instant(),
                        List.of("fp1")));
            }
            return ok;
        });
        assertTrue(done);
        reopen();
        assertEquals(OutboxEntry.State.SENT, store.outbox().get(e.id()).orElseThrow().state());
        assertTrue(store.notificationLog().last("pagerduty", "fp1").orElseThrow().covers(firing, none));
    }
}
