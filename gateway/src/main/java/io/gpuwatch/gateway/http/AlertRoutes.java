package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.gateway.store.Acknowledgement;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Live and ended alerts, filtered by labels and state, and acknowledging one or taking that back; handlers run on
 * the gateway's event loop.
 */
final class AlertRoutes {
    private final ApiHost gateway;
    private final AckRecorder acks;
    private final Changes changes;

    AlertRoutes(ApiHost gateway, AckRecorder acks, Changes changes) {
        this.gateway = gateway;
        this.acks = acks;
        this.changes = changes;
    }

    void mount(Router router, AccessGuard guard) {
        router.get("/api/v1/alerts").handler(guard.require(Role.VIEWER, false)).handler(this::alerts);
        router.get("/api/v1/alerts/history").handler(guard.require(Role.VIEWER, false))
                .handler(this::history);
        router.post("/api/v1/alerts/:fingerprint/ack").handler(guard.require(Role.OPERATOR, true))
                .handler(Replies.body()).handler(this::acknowledge);
        router.delete("/api/v1/alerts/:fingerprint/ack").handler(guard.require(Role.OPERATOR, false))
                .handler(Replies.body()).handler(this::unacknowledge);
    }

    /** The alerts firing now, or those in the states asked for, that match every filter; a page of them. */
    private void alerts(RoutingContext ctx) {
        AlertQuery query = AlertQuery.of(ctx);
        if (query == null) {
            return;
        }
        Page page = Page.of(ctx);
        if (page == null) {
            return;
        }
        List<Alert> candidates = new ArrayList<>(gateway.ledger().live());
        if (query.looksAtPending()) {
            gateway.evaluator().engine().pending().forEach(t -> candidates.add(gateway.ledger().pending(t)));
        }
        Instant now = gateway.clock().instant();
        List<AlertView> chosen = candidates.stream().map(a -> AlertView.of(gateway, a, now)).filter(query::test)
                .toList();
        reply(ctx, page.of(chosen), chosen.size());
    }

    /** Ended alerts, newest first, that match every filter; states do not apply to them. */
    private void history(RoutingContext ctx) {
        AlertQuery query = AlertQuery.of(ctx);
        if (query == null) {
            return;
        }
        if (!query.states().isEmpty()) {
            Replies.badRequest(ctx, "state", "ended alerts have no state to choose by; list them with filter only");
            return;
        }
        Page page = Page.of(ctx);
        if (page == null) {
            return;
        }
        Instant now = gateway.clock().instant();
        List<AlertView> chosen = gateway.ledger().history().stream().map(a -> AlertView.of(gateway, a, now))
                .filter(v -> Matcher.all(query.matchers(), v.alert().labels())).toList();
        reply(ctx, page.of(chosen), chosen.size());
    }

    private static void reply(RoutingContext ctx, List<AlertView> page, int total) {
        JsonArray out = new JsonArray();
        page.forEach(v -> out.add(v.json()));
        Replies.json(ctx, 200, new JsonObject().put("alerts", out).put("total", total));
    }

    /**
     * Records who acknowledged a live alert (in the store first, when there is one), then tells each receiver it
     * was routed to that tracks alerts itself (a pager); 200 with each receiver's outcome, 404 for an alert that
     * is not live, 400 without {@code by}, 503 when the store could not keep it.
     */
    private void acknowledge(RoutingContext ctx) {
        String fingerprint = ctx.pathParam("fingerprint");
        JsonObject body = Replies.jsonBody(ctx);
        if (body == null) {
            return;
        }
        Object by = body.getValue("by");
        Object comment = body.getValue("comment");
        if (!(by instanceof String who) || who.isBlank()) {
            Replies.badRequest(ctx, "by", "the person or tool acknowledging, as text, is required");
            return;
        }
        if (comment != null && !(comment instanceof String)) {
            Replies.badRequest(ctx, "comment", "expected text");
            return;
        }
        Optional<Alert> alert = live(fingerprint);
        if (alert.isEmpty()) {
            Replies.notFound(ctx, "no live alert with fingerprint " + fingerprint);
            return;
        }
        Acknowledgement ack = new Acknowledgement(fingerprint, who.strip(), gateway.clock().instant(),
                (String) comment, "api");
        acks.record(ack, changes.audit(ctx, "alert.ack", fingerprint, "by " + ack.by()
                        + (ack.comment().isEmpty() ? "" : ": " + ack.comment())))
                .onSuccess(v -> changes.share(ack))
                .onSuccess(v -> acks.tellPagers(alert.get(), false).onSuccess(told ->
                        Replies.json(ctx, 200, new JsonObject().put("fingerprint", fingerprint)
                                .put("acked", AckRecorder.json(ack)).put("receivers", AckRecorder.json(told)))))
                .onFailure(e -> Replies.unstored(ctx, "the acknowledgement", e));
    }

    /**
     * Takes back the acknowledgement of a live alert, the same way one is given: kept (and audited as
     * {@code alert.unack}) before it is answered, shared with the cluster, then told to the pagers the alert
     * went to. The body is optional: {@code by} (the caller's token name unless given) and {@code comment}.
     * 200 with each pager's outcome, 404 for an alert that is not live or not acknowledged.
     */
    private void unacknowledge(RoutingContext ctx) {
        String fingerprint = ctx.pathParam("fingerprint");
        JsonObject body = ctx.body().isEmpty() ? new JsonObject() : Replies.jsonBody(ctx);
        if (body == null) {
            return;
        }
        Object by = body.getValue("by");
        Object comment = body.getValue("comment");
        if (by != null && (!(by instanceof String text) || text.isBlank())) {
            Replies.badRequest(ctx, "by", "expected the person or tool taking the acknowledgement back, as text");
            return;
        }
        if (comment != null && !(comment instanceof String)) {
            Replies.badRequest(ctx, "comment", "expected text");
            return;
        }
        Optional<Alert> alert = live(fingerprint);
        if (alert.isEmpty()) {
            Replies.notFound(ctx, "no live alert with fingerprint " + fingerprint);
            return;
        }
        Optional<Acknowledgement> given = gateway.acknowledgements().of(fingerprint, alert.get().activeSince());
        if (given.isEmpty()) {
            Replies.notFound(ctx, "alert " + fingerprint + " is not acknowledged");
            return;
        }
        String who = by == null ? AccessGuard.caller(ctx).name() : ((String) by).strip();
        Acknowledgement withdrawal = new Acknowledgement(fingerprint, who, gateway.clock().instant(),
                (String) comment, "api", true);
        acks.record(withdrawal, changes.audit(ctx, "alert.unack", fingerprint, "by " + who + ", taking back "
                        + given.get().by() + "'s of " + given.get().at()
                        + (withdrawal.comment().isEmpty() ? "" : ": " + withdrawal.comment())))
                .onSuccess(v -> changes.share(withdrawal))
                .onSuccess(v -> acks.tellPagers(alert.get(), true).onSuccess(told ->
                        Replies.json(ctx, 200, new JsonObject().put("fingerprint", fingerprint)
                                .put("unacked", AckRecorder.json(withdrawal))
                                .put("was", AckRecorder.json(given.get()))
                                .put("receivers", AckRecorder.json(told)))))
                .onFailure(e -> Replies.unstored(ctx, "the withdrawal of the acknowledgement", e));
    }

    private Optional<Alert> live(String fingerprint) {
        return gateway.ledger().live().stream().filter(a -> a.fingerprint().equals(fingerprint)).findFirst();
    }
}
