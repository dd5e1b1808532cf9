package io.gpuwatch.gateway.store;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.gateway.silence.Silence;
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
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StoreRoundTripTest {
    private static final Instant T0 = Instant.parse("2025-03-01T10:00:00Z");

    @TempDir
    Path dir;
    private final TestClock clock = new TestClock(T0);
    private Store store;

    @BeforeEach
    void open() {
        store = Store.open(dir.resolve("gateway"), clock, Backoff.standard());
    }

    @AfterEach
    void close() {
        store.close();
    }

    private Store reopen() {
        store.close();
        store = Store.open(dir.resolve("gateway"), clock, Backoff.standard());
        return store;
    }

    private static Alert firing(String fp, long at) {
        return new Alert(fp, "GpuHot", "page", Map.of("alertname", "GpuHot", "node", "n1", "gpu", "3"),
                Map.of("summary", "GPU 3 at 91 °C", "runbook", "https://runbooks/x?a=\"b\""), at - 60_000, at, 0,
                AlertState.FIRING);
    }

    private static Alert resolved(Alert a, long at) {
        return new Alert(a.fingerprint(), a.rule(), a.severity(), a.labels(), a.annotations(), a.activeSince(),
                a.firedAt(), at, AlertState.RESOLVED);
    }

    @Test
    void alertsRoundTripWithTheirHistoryAcrossAReopen() {
        Alert a = firing("00000000000000a1", T0.toEpochMilli());
        assertEquals(Optional.empty(), store.alerts().save(a, T0));
        Alert refreshed = new Alert(a.fingerprint(), a.rule(), a.severity(), a.labels(),
                Map.of("summary", "GPU 3 at 93 °C"), a.activeSince(), a.firedAt(), 0, AlertState.FIRING);
        assertEquals(Optional.of(AlertState.FIRING), store.alerts().save(refreshed, T0.plusSeconds(30)));
        Alert other = firing("00000000000000b2", T0.plusSeconds(10).toEpochMilli());
        store.alerts().save(other, T0.plusSeconds(10));
        Alert ended = resolved(refreshed, T0.plusSeconds(120).toEpochMilli());
        store.alerts().save(ended, T0.plusSeconds(120));

        reopen();
        assertEquals(Optional.of(ended), store.alerts().get(a.fingerprint()));
        assertEquals(List.of(other), store.alerts().live());
        assertEquals(List.of(ended), store.alerts().ended(10));
        // an annotation refresh is not a transition: history and last transition only see state changes
        assertEquals(Optional.of(T0.plusSeconds(120)), store.alerts().lastTransition(a.fingerprint()));
        List<AlertTransition> h = store.alerts().history(a.fingerprint());
        assertEquals(2, h.size());
        assertNull(h.get(0).from());
        assertEquals(AlertState.FIRING, h.get(0).to());
        assertEquals(T0, h.get(0).at());
        assertEquals(AlertState.FIRING, h.get(1).from());
        assertEquals(AlertState.RESOLVED, h.get(1).to());
        assertEquals("GpuHot", h.get(1).rule());

        assertEquals(1, store.alerts().pruneHistory(T0.plusSeconds(5)));
        assertEquals(1, store.alerts().history(a.fingerprint()).size());
        assertEquals(1, store.alerts().history(other.fingerprint()).size());
    }

    @Test
    void aRefiringAlertReusesItsRowAndExtendsItsHistory() {
        Alert a = firing("00000000000000a1", T0.toEpochMilli());
        store.alerts().save(a, T0);
        store.alerts().save(resolved(a, T0.plusSeconds(60).toEpochMilli()), T0.plusSeconds(60));
        Alert again = firing("00000000000000a1", T0.plusSeconds(300).toEpochMilli());
        assertEquals(Optional.of(AlertState.RESOLVED), store.alerts().save(again, T0.plusSeconds(300)));
        assertEquals(List.of(again), store.alerts().live());
        assertEquals(List.of(), store.alerts().ended(10));
        assertEquals(List.of(AlertState.FIRING, AlertState.RESOLVED, AlertState.FIRING),
                store.alerts().history(a.fingerprint()).stream().map(AlertTransition::to).toList());
    }

    @Test
    void acknowledgementsAreKeptNewestFirst() {
        store.acks().add(new Acknowledgement("fp1", "alice", T0, "looking", "api"));
        store.acks().add(new Acknowledgement("fp1", "pagerduty:bob", T0.plusSeconds(5), null, "pagerduty"));
        store.acks().add(new Acknowledgement("fp2", "carol", T0, "other", "api"));
        reopen();
        List<Acknowledgement> acks = store.acks().of("fp1");
        assertEquals(List.of(new Acknowledgement("fp1", "pagerduty:bob", T0.plusSeconds(5), "", "pagerduty"),
                new Acknowledgement("fp1", "alice", T0, "looking", "api")), acks);
        assertEquals(Optional.of(acks.get(0)), store.acks().latest("fp1"));
        assertEquals(Optional.empty(), store.acks().latest("fp3"));
    }

    @Test
    void onlyAnAcknowledgementOfTheCurrentEpisodeIsInForce() {
        Alert now = firing("fp1", T0.plusSeconds(600).toEpochMilli());
        Alert other = firing("fp2", T0.toEpochMilli());
        // given during fp1's earlier episode, which resolved before the alert began again 9 minutes later
        store.acks().add(new Acknowledgement("fp1", "alice", T0, "first time", "api"));
        store.acks().add(new Acknowledgement("fp2", "bob", T0.plusSeconds(30), "", "pagerduty"));
        reopen();
        assertEquals(List.of(new Acknowledgement("fp2", "bob", T0.plusSeconds(30), "", "pagerduty")),
                store.acks().inForce(List.of(now, other)));

        Acknowledgement again = new Acknowledgement("fp1", "carol", T0.plusSeconds(700), "second time", "api");
        store.acks().add(again);
        assertEquals(List.of(again), store.acks().inForce(List.of(now)));
    }

    @Test
    void silencesRoundTripAndExpiredOnesAreKept() {
        Silence s = new Silence("s-1", List.of(Matcher.equal("node", "n1"), Matcher.regex("alertname", "Gpu.*|X\"y"),
                Matcher.of("severity", Matcher.Op.NOT_EQUAL, "notice")), T0, T0.plus(Duration.ofHours(2)), "alice",
                "maintenance, with \"quotes\"\nand a newline", T0);
        Silence later = new Silence("s-2", List.of(Matcher.of("rack", Matcher.Op.NOT_REGEX, "r[0-9]+")),
                T0.plusSeconds(60), T0.plusSeconds(600), "bob", "", T0);
        store.silences().save(later);
        store.silences().save(s);
        reopen();
        assertEquals(Optional.of(s), store.silences().get("s-1"));
        assertEquals(List.of(s, later), store.silences().all());

        Instant at = T0.plusSeconds(90);
        assertTrue(store.silences().expire("s-1", at));
        assertFalse(store.silences().expire("s-1", at.plusSeconds(1)), "already expired");
        assertFalse(store.silences().expire("nope", at));
        reopen();
        Silence expired = store.silences().get("s-1").orElseThrow();
        assertEquals(at, expired.endsAt());
        assertEquals(at, expired.updatedAt());
        assertEquals(Silence.State.EXPIRED, expired.state(at));
        assertEquals(2, store.silences().all().size());

        Silence edited = new Silence("s-2", later.matchers(), later.startsAt(), T0.plusSeconds(900), "bob",
                "longer", T0.plusSeconds(95));
        store.silences().save(edited);
        assertEquals(Optional.of(edited), store.silences().get("s-2"));
    }

    @Test
    void theNotificationLogTellsWhatWasAlreadySent() {
        String firing = NotificationLogEntry.hash(List.of("fp2", "fp1"));
        String none = NotificationLogEntry.hash(List.of());
        assertEquals(firing, NotificationLogEntry.hash(List.of("fp1", "fp2")), "order does not matter");
        assertFalse(firing.equals(NotificationLogEntry.hash(List.of("fp1"))));
        assertFalse(NotificationLogEntry.hash(List.of("ab", "c")).equals(NotificationLogEntry.hash(List.of("a", "bc"))));

        String key = "{}/{severity=\"page\"}:{alertname=\"GpuHot\"}";
        store.notificationLog().record(new NotificationLogEntry("pagerduty", key, firing, none, T0,
                List.of("fp2", "fp1")));
        store.notificationLog().record(new NotificationLogEntry("slack", key, none, none, T0, null));
        reopen();
        NotificationLogEntry e = store.notificationLog().last("pagerduty", key).orElseThrow();
        assertTrue(e.covers(firing, none));
        assertEquals(List.of("fp1", "fp2"), e.firing(), "which alerts it was told fire, for a restart");
        assertEquals(null, store.notificationLog().last("slack", key).orElseThrow().firing(),
                "unknown for an entry written without them");
        assertEquals(2, store.notificationLog().all().size());
        assertFalse(e.covers(firing, NotificationLogEntry.hash(List.of("fp1"))));
        assertEquals(Optional.empty(), store.notificationLog().last("jira", key));

        store.notificationLog().record(new NotificationLogEntry("pagerduty", key, none, firing, T0.plusSeconds(60),
                List.of()));
        assertTrue(store.notificationLog().last("pagerduty", key).orElseThrow().covers(none, firing));
        assertEquals(1, store.notificationLog().prune(T0.plusSeconds(30)));
        assertEquals(Optional.empty(), store.notificationLog().last("slack", key));
        assertTrue(store.notificationLog().last("pagerduty", key).isPresent());
    }

    @Test
    void aTransactionThatThrowsLeavesNothingBehind() {
        assertThrows(IllegalStateException.class, () -> store.transact(s -> {
            s.alerts().save(firing("fp-x", T0.toEpochMilli()), T0);
            s.outbox().enqueue("pagerduty", "fp-x", "{}");
            throw new IllegalStateException("receiver config vanished");
        }));
        reopen();
        assertEquals(Optional.empty(), store.alerts().get("fp-x"));
        assertEquals(0, store.outbox().count(OutboxEntry.State.PENDING));
    }

    @Test
    void aClosedStoreSaysSo() {
        store.close();
        StoreException e = assertThrows(StoreException.class, () -> store.alerts().live());
        assertTrue(e.getMessage().contains("gateway.mv.db"), e.getMessage());
    }
}
