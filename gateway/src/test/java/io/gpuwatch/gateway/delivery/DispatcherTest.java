package io.gpuwatch.gateway.delivery;

import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.gateway.route.RoutingLoad;
import io.gpuwatch.gateway.store.NotificationLogEntry;
import io.gpuwatch.gateway.store.ReceiverHealth;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.vertx.core.Future;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DispatcherTest {
    private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");

    /** Each batch {@code r} was given, as alertname@uuid:status lists. */
    private static List<List<String>> batches(RecordingReceiver r) {
        return r.batches().stream().map(b -> b.stream().map(n -> n.labels().get("alertname") + "@"
                + n.labels().getOrDefault("uuid", "") + ":" + n.status()).toList()).toList();
    }

    private final AtomicReference<Instant> now = new AtomicReference<>(T0);
    private final InstantSource clock = () -> now.get();

    private static Notification firing(String rule, String severity, String node, String uuid, Instant at) {
        Map<String, String> labels = uuid == null
                ? Map.of("alertname", rule, "severity", severity, "node", node)
                : Map.of("alertname", rule, "severity", severity, "node", node, "uuid", uuid);
        return new Notification(rule + "/" + node + "/" + uuid, Notification.Status.FIRING, labels, Map.of(), at, null, "");
    }

    private static Notification resolved(Notification n, Instant at) {
        return new Notification(n.fingerprint(), Notification.Status.RESOLVED, n.labels(), n.annotations(),
                n.startsAt(), at, n.generatorUrl());
    }

    private void advance(Duration d) {
        now.set(now.get().plus(d));
    }

    @Test
    void withoutARoutingFileEveryChangeGoesToEveryReceiverAtOnceOneAlertPerMessage() {
        RecordingReceiver console = new RecordingReceiver("console");
        RecordingReceiver hook = new RecordingReceiver("webhook-1");
        Dispatcher d = Dispatcher.broadcast(List.of(console, hook), clock);
        Notification a = firing("xid-fallen-off-bus", "page", "gpu-1", "GPU-1", T0);
        Notification b = firing("thermal", "ticket", "gpu-2", "GPU-9", T0);
        d.dispatch(a);
        d.dispatch(b);
        advance(Duration.ofSeconds(30));
        d.dispatch(resolved(a, now.get()));
        d.tick();
        List<List<String>> expected = List.of(List.of("xid-fallen-off-bus@GPU-1:FIRING"), List.of("thermal@GPU-9:FIRING"),
                List.of("xid-fallen-off-bus@GPU-1:RESOLVED"));
        assertEquals(expected, batches(console));
        assertEquals(expected, batches(hook));
        assertEquals(6, d.sent());
        advance(Duration.ofHours(4));
        d.tick();
        assertEquals(List.of("thermal@GPU-9:FIRING"), batches(hook).get(3), "a firing alert repeats after 4 h");
    }

    @Test
    void eachReceiversHealthFollowsItsSendsAndItsFailuresSinceTheLastSuccess() {
        RecordingReceiver good = new RecordingReceiver("good");
        AtomicReference<Boolean> down = new AtomicReference<>(true);
        Receiver flaky = new Receiver() {
            @Override
            public String name() {
                return "flaky";
            }

            @Override
            public Future<Void> send(List<Notification> batch) {
                return down.get() ? Future.failedFuture("HTTP 503") : Future.succeededFuture();
            }
        };
        Dispatcher d = Dispatcher.broadcast(List.of(good, flaky), clock);
        assertEquals(List.of("good", "flaky"), d.health().stream().map(ReceiverHealth::receiver).toList());
        assertNull(d.health().get(0).lastSuccess(), "nothing was sent yet");
        d.dispatch(firing("a", "page", "gpu-1", "GPU-1", T0));
        advance(Duration.ofSeconds(10));
        d.dispatch(firing("b", "page", "gpu-1", "GPU-2", now.get()));
        assertEquals(T0.plusSeconds(10), d.health().get(0).lastSuccess());
        assertEquals(0, d.health().get(0).consecutiveFailures());
        assertEquals(2, d.health().get(1).consecutiveFailures());
        assertEquals("HTTP 503", d.health().get(1).lastError());
        assertEquals(T0.plusSeconds(10), d.health().get(1).lastFailure());
        down.set(false);
        advance(Duration.ofSeconds(10));
        d.dispatch(firing("c", "page", "gpu-1", "GPU-3", now.get()));
        assertEquals(0, d.health().get(1).consecutiveFailures());
        assertEquals(T0.plusSeconds(20), d.health().get(1).lastSuccess());
        assertEquals("HTTP 503", d.health().get(1).lastError(), "the last error stays to be read");
    }

    @Test
    void noReceiverAtAllDeliversNothingAndDoesNotFail() {
        Dispatcher d = Dispatcher.broadcast(List.of(), clock);
        d.dispatch(firing("x", "page", "n", "u", T0));
        d.tick();
        assertEquals(0, d.sent());
    }

    private static RoutingConfig routing(String yaml, Set<String> receivers) {
        RoutingLoad load = RoutingConfig.parse("routes.yml", yaml, receivers);
        assertTrue(load.ok(), load.diagnostics().toString());
        return load.config();
    }

    private static final String ROUTES = """
            route:
              receiver: chat
              group_by: [alertname, node]
              group_wait: 30s
              group_interval: 5m
              repeat_interval: 4h
              routes:
                - matchers: ['severity="page"']
                  receiver: paging
                  group_by: ['...']
                  group_wait: 0s
                  group_interval: 1s
            """;

    @Test
    void aPageLeavesAtOnceWhileOtherAlertsWaitForTheirGroupAndAreSentTogether() {
        RecordingReceiver chat = new RecordingReceiver("chat");
        RecordingReceiver paging = new RecordingReceiver("paging");
        Dispatcher d = new Dispatcher(routing(ROUTES, Set.of("chat", "paging")), List.of(chat, paging), clock);
        d.dispatch(firing("xid-fallen-off-bus", "page", "gpu-1", "GPU-1", T0));
        assertEquals(List.of(List.of("xid-fallen-off-bus@GPU-1:FIRING")), batches(paging), "no group_wait on pages");
        d.dispatch(firing("thermal", "ticket", "gpu-2", "GPU-3", T0));
        advance(Duration.ofSeconds(10));
        d.dispatch(firing("thermal", "ticket", "gpu-2", "GPU-4", now.get()));
        d.tick();
        assertTrue(batches(chat).isEmpty(), "the chat group waits 30 s");
        advance(Duration.ofSeconds(20));
        d.tick();
        assertEquals(List.of(List.of("thermal@GPU-3:FIRING", "thermal@GPU-4:FIRING")), batches(chat));
    }

    /** What the notification log would say after {@code chat} was told that {@code fps} fire, ten minutes ago. */
    private List<NotificationLogEntry> toldChat(Dispatcher d, List<String> fps) {
        return d.groups().stream().filter(g -> g.route().receiver().equals("chat"))
                .map(g -> new NotificationLogEntry("chat", g.groupKey(), NotificationLogEntry.hash(fps),
                        NotificationLogEntry.hash(List.of()), T0.minus(Duration.ofMinutes(10)), fps))
                .toList();
    }

    @Test
    void aResolveStoredButNeverQueuedBeforeARestartIsSentAfterIt() {
        Notification hot = firing("thermal", "ticket", "gpu-2", "GPU-3", T0);
        // the receiver heard it fire; the gateway stored its end and died before the group was due again
        Dispatcher before = new Dispatcher(routing(ROUTES, Set.of("chat", "paging")),
                List.of(new RecordingReceiver("chat"), new RecordingReceiver("paging")), clock);
        before.dispatch(hot);
        List<NotificationLogEntry> log = toldChat(before, List.of(hot.fingerprint()));

        RecordingReceiver chat = new RecordingReceiver("chat");
        Dispatcher after = new Dispatcher(routing(ROUTES, Set.of("chat", "paging")),
                List.of(chat, new RecordingReceiver("paging")), clock);
        after.resume(List.of(), List.of(resolved(hot, T0)), log);
        assertEquals(List.of(List.of("thermal@GPU-3:RESOLVED")), batches(chat), "its group_interval ran out before");

        RecordingReceiver unheard = new RecordingReceiver("chat");
        Dispatcher other = new Dispatcher(routing(ROUTES, Set.of("chat", "paging")),
                List.of(unheard, new RecordingReceiver("paging")), clock);
        other.resume(List.of(), List.of(resolved(hot, T0)), toldChat(before, List.of()));
        other.resume(List.of(), List.of(resolved(hot, T0)), List.of());
        advance(Duration.ofHours(1));
        other.tick();
        assertTrue(unheard.batches().isEmpty(), "an end the receiver heard, or of an alert it never heard of: nothing");
    }

    @Test
    void aGroupRebuiltAfterARestartSendsOnlyWhatItsReceiverWasNotTold() {
        Notification a = firing("thermal", "ticket", "gpu-2", "GPU-3", T0);
        Notification b = firing("thermal", "ticket", "gpu-2", "GPU-4", T0);
        Dispatcher before = new Dispatcher(routing(ROUTES, Set.of("chat", "paging")),
                List.of(new RecordingReceiver("chat"), new RecordingReceiver("paging")), clock);
        before.dispatch(a);

        RecordingReceiver told = new RecordingReceiver("chat");
        Dispatcher same = new Dispatcher(routing(ROUTES, Set.of("chat", "paging")),
                List.of(told, new RecordingReceiver("paging")), clock);
        same.resume(List.of(a), List.of(), toldChat(before, List.of(a.fingerprint())));
        advance(Duration.ofMinutes(30));
        same.tick();
        assertTrue(told.batches().isEmpty(), "the receiver holds it already");

        RecordingReceiver chat = new RecordingReceiver("chat");
        Dispatcher grown = new Dispatcher(routing(ROUTES, Set.of("chat", "paging")),
                List.of(chat, new RecordingReceiver("paging")), clock);
        grown.resume(List.of(a, b), List.of(), toldChat(before, List.of(a.fingerprint())));
        assertEquals(List.of(List.of("thermal@GPU-3:FIRING", "thermal@GPU-4:FIRING")), batches(chat),
                "the alert that fired unheard joins its group's next message");
    }

    @Test
    void aSilencedAlertIsHeldBackAndANodeSilentAlertInhibitsItsCards() {
        RecordingReceiver paging = new RecordingReceiver("paging");
        RecordingReceiver chat = new RecordingReceiver("chat");
        Dispatcher d = new Dispatcher(routing(ROUTES, Set.of("chat", "paging")), List.of(chat, paging), clock);
        assertTrue(d.silences().create(List.of(Matcher.equal("node", "gpu-7")), null, T0.plus(Duration.ofHours(1)),
                "ann", "draining gpu-7", T0).ok());
        d.dispatch(firing("xid-fallen-off-bus", "page", "gpu-7", "GPU-70", T0));
        assertTrue(batches(paging).isEmpty(), "gpu-7 is silenced");

        d.dispatch(firing("node-silent", "page", "gpu-8", null, T0));
        d.dispatch(firing("ecc-uncorrectable", "page", "gpu-8", "GPU-81", T0));
        assertEquals(List.of(List.of("node-silent@:FIRING")), batches(paging),
                "a silent node's card alerts are inhibited by the node-silent page");
    }

    @Test
    void anAlertPagedBeforeAnInhibitionIsNotPagedAgainWhenItEndsButOneThatFiredDuringItIs() {
        RecordingReceiver console = new RecordingReceiver("console");
        Dispatcher d = Dispatcher.broadcast(List.of(console), clock);
        d.dispatch(firing("ecc-uncorrectable", "page", "gpu-8", "GPU-81", T0));
        Notification silent = firing("node-silent", "page", "gpu-8", null, T0);
        advance(Duration.ofSeconds(10));
        d.dispatch(silent);
        advance(Duration.ofSeconds(10));
        d.dispatch(firing("xid-nvlink-error", "page", "gpu-8", "GPU-82", now.get()));
        d.tick();
        advance(Duration.ofSeconds(60));
        d.dispatch(resolved(silent, now.get()));
        advance(Duration.ofSeconds(1));
        d.tick();
        assertEquals(List.of(List.of("ecc-uncorrectable@GPU-81:FIRING"), List.of("node-silent@:FIRING"),
                        List.of("node-silent@:RESOLVED"), List.of("xid-nvlink-error@GPU-82:FIRING")), batches(console),
                "the ECC page was delivered before the node went silent, so its return repeats nothing; the "
                        + "NVLink alert was hidden from its start, so it goes out now");
    }

    @Test
    void anAlertHeldBackByASilenceGoesOutOnceWhenTheSilenceRunsOut() {
        RecordingReceiver console = new RecordingReceiver("console");
        Dispatcher d = Dispatcher.broadcast(List.of(console), clock);
        assertTrue(d.silences().create(List.of(Matcher.equal("node", "gpu-7")), null, T0.plus(Duration.ofMinutes(10)),
                "ann", "draining gpu-7", T0).ok());
        d.dispatch(firing("xid-fallen-off-bus", "page", "gpu-7", "GPU-70", T0));
        advance(Duration.ofMinutes(5));
        d.tick();
        assertEquals(List.of(), batches(console), "silenced");
        advance(Duration.ofMinutes(5));
        d.tick();
        advance(Duration.ofSeconds(1));
        d.tick();
        assertEquals(List.of(List.of("xid-fallen-off-bus@GPU-70:FIRING")), batches(console),
                "the silence ended by itself, with no call to say so");
    }

    @Test
    void anAlertHeldBackByASilenceGoesOutWhenTheSilenceIsExpired() {
        RecordingReceiver console = new RecordingReceiver("console");
        Dispatcher d = Dispatcher.broadcast(List.of(console), clock);
        String id = d.silences().create(List.of(Matcher.equal("node", "gpu-7")), null, T0.plus(Duration.ofHours(1)),
                "ann", "draining gpu-7", T0).silence().id();
        d.dispatch(firing("xid-fallen-off-bus", "page", "gpu-7", "GPU-70", T0));
        advance(Duration.ofMinutes(1));
        assertTrue(d.silences().expire(id, now.get()));
        d.tick();
        assertEquals(List.of(List.of("xid-fallen-off-bus@GPU-70:FIRING")), batches(console));
    }

    @Test
    void aRoutingThatNamesAnUnconfiguredReceiverIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Dispatcher(routing(ROUTES, null), List.of(new RecordingReceiver("chat")), clock));
        assertTrue(e.getMessage().contains("not configured: paging"), e.getMessage());
    }

    /** A recording receiver that, like Alertmanager's, asks for what fires again every {@code every}. */
    private static final class Forgetful implements io.gpuwatch.notify.Receiver {
        final RecordingReceiver inner;
        final Duration every;

        Forgetful(String name, Duration every) {
            this.inner = new RecordingReceiver(name);
            this.every = every;
        }

        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public io.vertx.core.Future<Void> send(List<Notification> batch) {
            return inner.send(batch);
        }

        @Override
        public java.util.Optional<Duration> resendInterval() {
            return java.util.Optional.of(every);
        }
    }

    @Test
    void aReceiverThatForgetsHearsEveryAlertItWasToldFiresAgainEachIntervalAndNotThoseThatEnded() {
        Forgetful paging = new Forgetful("paging", Duration.ofMinutes(1));
        RecordingReceiver chat = new RecordingReceiver("chat");
        Dispatcher d = new Dispatcher(routing(ROUTES, Set.of("chat", "paging")), List.of(chat, paging), clock);
        d.tick();
        Notification a = firing("xid-fallen-off-bus", "page", "gpu-1", "GPU-1", T0);
        d.dispatch(a);
        d.dispatch(firing("ecc-uncorrectable", "page", "gpu-1", "GPU-2", T0));
        d.dispatch(firing("thermal", "ticket", "gpu-2", "GPU-3", T0));
        advance(Duration.ofSeconds(59));
        d.tick();
        assertEquals(2, batches(paging.inner).size(), "nothing again before the interval");
        advance(Duration.ofSeconds(1));
        d.tick();
        assertEquals(List.of("ecc-uncorrectable@GPU-2:FIRING", "xid-fallen-off-bus@GPU-1:FIRING"),
                batches(paging.inner).get(2).stream().sorted().toList(), "both pages again, in one message");
        advance(Duration.ofSeconds(5));
        d.dispatch(resolved(a, now.get()));
        assertEquals(List.of("xid-fallen-off-bus@GPU-1:RESOLVED"), batches(paging.inner).get(3));
        advance(Duration.ofSeconds(55));
        d.tick();
        assertEquals(List.of(List.of("ecc-uncorrectable@GPU-2:FIRING")), batches(paging.inner).subList(4, 5),
                "the ended alert is not re-sent");
        assertEquals(5, batches(paging.inner).size());
        assertEquals(List.of(List.of("thermal@GPU-3:FIRING")), batches(chat), "the chat receiver keeps what it hears");
        assertEquals(4, d.sent(), "two pages, a resolution and a ticket: re-sends are not counted");
    }
}
