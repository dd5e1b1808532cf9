package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.ledger.Alert;
import io.gpuwatch.gateway.store.Acknowledgement;
import io.gpuwatch.rules.eval.AlertState;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/** Live and ended alerts, and acknowledging one; handlers run on the gateway's event loop. */
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
        router.get("/api/v1/alerts").handler(guard.require(Role.VIEWER, false))
                .handler(ctx -> alerts(ctx, gateway.ledger().live()));
        router.get("/api/v1/alerts/history").handler(guard.require(Role.VIEWER, false))
                .handler(ctx -> alerts(ctx, gateway.ledger().history()));
        router.post("/api/v1/alerts/:fingerprint/ack").handler(guard.require(Role.OPERATOR, true))
                .handler(Replies.body()).handler(this::acknowledge);
    }

    private void alerts(RoutingContext ctx, List<Alert> all) {
        Page page = Page.of(ctx);
        if (page == null) {
            return;
        }
        JsonArray out = new JsonArray();
        for (Alert a : page.of(all)) {
            Acknowledgement ack = a.state() == AlertState.RESOLVED ? null
                    : gateway.acknowledgements().of(a.fingerprint(), a.activeSince()).orElse(null);
            out.add(new JsonObject()
                    .put("fingerprint", a.fingerprint())
                    .put("rule", a.rule())
                    .put("severity", a.severity())
                    .put("state", a.state().name().toLowerCase())
                    .put("labels", new JsonObject(new TreeMap<String, Object>(a.labels())))
                    .put("annotations", new JsonObject(new TreeMap<String, Object>(a.annotations())))
                    .put("activeSince", a.activeSince())
                    .put("firedAt", a.firedAt())
                    .put("resolvedAt", a.resolvedAt() == 0 ? null : a.resolvedAt())
                    .put("acked", ack == null ? null : AckRecorder.json(ack)));
        }
        Replies.json(ctx, 200, new JsonObject().put("alerts", out).put("total", all.size()));
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
        List<Alert> live = gateway.ledger().live();
        Optional<Alert> alert = live.stream().filter(a -> a.fingerprint().equals(fingerprint)).findFirst();
        if (alert.isEmpty()) {
            Replies.notFound(ctx, "no live alert with fingerprint " + fingerprint);
            return;
        }
        Acknowledgement ack = new Acknowledgement(fingerprint, who.strip(), gateway.clock().instant(),
                (String) comment, "api");
        acks.record(ack, changes.audit(ctx, "alert.ack", fingerprint, "by " + ack.by()
                        + (ack.comment().isEmpty() ? "" : ": " + ack.comment())))
                .onSuccess(v -> changes.share(ack))
                .onSuccess(v -> acks.tellPagers(alert.get()).onSuccess(told -> {
                    JsonArray outcomes = new JsonArray();
                    for (AckRecorder.Told t : told) {
                        outcomes.add(new JsonObject().put("receiver", t.receiver()).put("ok", t.error() == null)
                                .put("error", t.error()));
                    }
                    Replies.json(ctx, 200, new JsonObject().put("fingerprint", fingerprint)
                            .put("acked", AckRecorder.json(ack)).put("receivers", outcomes));
                }))
                .onFailure(e -> Replies.unstored(ctx, "the acknowledgement", e));
    }
}
