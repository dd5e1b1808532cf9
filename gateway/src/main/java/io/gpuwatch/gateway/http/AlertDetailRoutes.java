package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.delivery.BatchPayload;
import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.gateway.silence.Silence;
import io.gpuwatch.gateway.store.Acknowledgement;
import io.gpuwatch.gateway.store.DeliveryAttempt;
import io.gpuwatch.gateway.store.OutboxEntry;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.rules.eval.AlertState;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * One alert, live, pending or ended, with the timeline of its latest episode (pending, firing, acknowledgements
 * and their withdrawal, silences starting and ending, resolved) and, with a store, every delivery of it and each
 * attempt to send it. This is the page a notification's {@code generatorURL} links to.
 */
final class AlertDetailRoutes {
    private final ApiHost gateway;

    AlertDetailRoutes(ApiHost gateway) {
        this.gateway = gateway;
    }

    void mount(Router router, AccessGuard guard) {
        router.get("/api/v1/alerts/:fingerprint").handler(guard.require(Role.VIEWER, false)).handler(this::alert);
    }

    /** What the store adds to an alert: its acknowledgements, and its deliveries with their attempts. */
    private record Kept(Optional<Alert> alert, List<Acknowledgement> acks, List<OutboxEntry> rows,
                        List<DeliveryAttempt> attempts) {
    }

    /** 200 with the alert, its timeline and its deliveries; 404 for a fingerprint neither memory nor store knows. */
    private void alert(RoutingContext ctx) {
        String fingerprint = ctx.pathParam("fingerprint");
        Optional<Alert> held = Stream.of(gateway.ledger().live().stream(),
                        gateway.evaluator().engine().pending().stream().map(gateway.ledger()::pending),
                        gateway.ledger().history().stream())
                .flatMap(s -> s).filter(a -> a.fingerprint().equals(fingerprint)).findFirst();
        Future<Kept> kept = gateway.store().map(store -> store.run(s -> {
            List<OutboxEntry> rows = s.outbox().mentioning(fingerprint);
            return new Kept(held.isPresent() ? held : s.alerts().get(fingerprint), s.acks().of(fingerprint), rows,
                    s.outbox().attempts(rows.stream().map(OutboxEntry::id).toList()));
        })).orElseGet(() -> Future.succeededFuture(new Kept(held,
                gateway.acknowledgements().of(fingerprint).stream().toList(), null, null)));
        kept.onSuccess(k -> {
            if (k.alert().isEmpty()) {
                Replies.notFound(ctx, "no alert with fingerprint " + fingerprint + " is live, pending or kept");
                return;
            }
            Alert a = k.alert().get();
            Instant now = gateway.clock().instant();
            Replies.json(ctx, 200, new JsonObject().put("alert", AlertView.of(gateway, a, now).json())
                    .put("timeline", timeline(a, k.acks(), now))
                    .put("deliveries", k.rows() == null ? null : deliveries(a, k.rows(), k.attempts())));
        }).onFailure(e -> Replies.json(ctx, 503, new JsonObject().put("error", "alert " + fingerprint
                + " could not be read from the store: " + e.getMessage())));
    }

    /** One event of the timeline; {@code order} breaks ties at the same instant in the order things happen. */
    private record Event(Instant at, int order, JsonObject json) {
    }

    /** The events of {@code a}'s latest episode, oldest first. */
    private JsonArray timeline(Alert a, List<Acknowledgement> acks, Instant now) {
        List<Event> events = new ArrayList<>();
        Instant since = Instant.ofEpochMilli(a.activeSince());
        boolean ended = a.resolvedAt() != 0;
        Instant until = ended ? Instant.ofEpochMilli(a.resolvedAt()) : now;
        if (a.state() == AlertState.PENDING || a.firedAt() > a.activeSince()) {
            events.add(event(since, 0, "pending"));
        }
        if (a.firedAt() != 0) {
            events.add(event(Instant.ofEpochMilli(a.firedAt()), 1, "firing"));
        }
        for (Acknowledgement ack : acks) {
            if (!ack.at().isBefore(since) && !ack.at().isAfter(until)) {
                events.add(new Event(ack.at(), 3, new JsonObject().put("at", ack.at().toString())
                        .put("event", ack.withdrawn() ? "unack" : "ack").put("by", ack.by())
                        .put("comment", ack.comment()).put("source", ack.source())));
            }
        }
        for (Silence s : gateway.dispatcher().silences().list()) {
            if (!Matcher.all(s.matchers(), a.labels()) || !s.startsAt().isBefore(until)
                    || !s.endsAt().isAfter(since)) {
                continue;
            }
            Instant from = s.startsAt().isBefore(since) ? since : s.startsAt();
            events.add(new Event(from, 2, event(from, 2, "silenced").json().put("silence", s.id())
                    .put("by", s.createdBy()).put("comment", s.comment())));
            if (!s.endsAt().isAfter(until)) {
                events.add(new Event(s.endsAt(), 4, event(s.endsAt(), 4, "unsilenced").json()
                        .put("silence", s.id())));
            }
        }
        if (ended) {
            events.add(event(until, 5, "resolved"));
        }
        events.sort(Comparator.comparing(Event::at).thenComparingInt(Event::order));
        JsonArray out = new JsonArray();
        events.forEach(e -> out.add(e.json()));
        return out;
    }

    private static Event event(Instant at, int order, String what) {
        return new Event(at, order, new JsonObject().put("at", at.toString()).put("event", what));
    }

    /** The notifications of {@code a}'s latest episode, oldest first, each with its attempts. */
    private static JsonArray deliveries(Alert a, List<OutboxEntry> rows, List<DeliveryAttempt> attempts) {
        Instant since = Instant.ofEpochMilli(a.activeSince());
        JsonArray out = new JsonArray();
        for (OutboxEntry row : rows) {
            if (row.createdAt().isBefore(since)) {
                continue;
            }
            JsonArray tries = new JsonArray();
            attempts.stream().filter(t -> t.row() == row.id()).forEach(t -> tries.add(new JsonObject()
                    .put("at", t.at().toString()).put("outcome", t.outcome().name().toLowerCase(Locale.ROOT))
                    .put("error", t.error())));
            out.add(new JsonObject().put("id", row.id()).put("receiver", row.receiver())
                    .put("queuedAt", row.createdAt().toString()).put("status", status(row, a.fingerprint()))
                    .put("state", row.state().name().toLowerCase(Locale.ROOT))
                    .put("sentAt", row.sentAt() == null ? null : row.sentAt().toString())
                    .put("attempts", tries));
        }
        return out;
    }

    /** Whether the row told of the alert firing or resolved; null for a payload that cannot be read. */
    private static String status(OutboxEntry row, String fingerprint) {
        try {
            return BatchPayload.decode(row.payload(), "outbox row " + row.id()).alerts().stream()
                    .filter(n -> n.fingerprint().equals(fingerprint)).findFirst()
                    .map(n -> n.status() == Notification.Status.FIRING ? "firing" : "resolved").orElse(null);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
