package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.ingest.DecisionLatency;
import io.gpuwatch.gateway.ingest.IngestCounters;
import io.gpuwatch.gateway.ledger.Alert;
import io.gpuwatch.gateway.reload.ReloadStatus;
import io.gpuwatch.gateway.reload.RuleReloader;
import io.gpuwatch.rules.Diagnostic;
import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.eval.AlertState;
import io.gpuwatch.rules.eval.DisabledRule;
import io.gpuwatch.rules.eval.RuleEngine;
import io.gpuwatch.gateway.group.Aggregator;
import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.gateway.match.MatcherException;
import io.gpuwatch.gateway.match.MatcherParser;
import io.gpuwatch.gateway.silence.Silence;
import io.gpuwatch.gateway.silence.Silences;
import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.store.Acknowledgement;
import io.gpuwatch.gateway.store.AuditEntry;
import io.gpuwatch.gateway.store.Store;
import io.gpuwatch.notify.Notification;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Health, readiness, live alerts (with their acknowledgements), the loaded rules and their last reload,
 * {@code POST /-/reload}, silences, acknowledging an alert (also from a paging service, {@link PagerWebhooks}),
 * the delivery groups, digest charts, the audit log, and /metrics in the Prometheus text format, each behind
 * the access check its role needs ({@link AccessGuard}). Handlers run on the gateway's event loop, which owns
 * the silences and acknowledgements; with a store, a change to them and its audit entry are committed together
 * on the store's writer thread before it is answered.
 */
public final class ApiRoutes {
    private static final Logger LOG = Logger.getLogger(ApiRoutes.class.getName());
    /** Far above any silence or acknowledgement a person writes. */
    private static final int BODY_LIMIT = 64 * 1024;

    /** The newest audit entries a page holds unless asked otherwise, and the most it may hold. */
    private static final int AUDIT_PAGE = 100;
    /** A list answer holds this many items unless asked otherwise, and at most MAX_PAGE. */
    private static final int DEFAULT_PAGE = 1_000;
    private static final int MAX_PAGE = 10_000;

    private final ApiHost gateway;
    private final AckRecorder acks;
    private final AccessGuard guard;
    private final ApiAccess access;

    /** The API of {@code gateway}, open to callers as {@code access} says. */
    public ApiRoutes(ApiHost gateway, ApiAccess access) {
        this.gateway = gateway;
        this.acks = new AckRecorder(gateway);
        this.guard = new AccessGuard(access, gateway.clock());
        this.access = access;
    }

    /**
     * Mounts every route: health and readiness open, {@code /metrics} open or for viewers as {@link ApiAccess}
     * says, reads for viewers, alert and silence changes for operators, reload and the audit log for admins,
     * and the paging services' webhooks, which prove themselves with their own signatures.
     */
    public void mount(Router router) {
        router.get("/-/healthy").handler(ctx -> ctx.response().putHeader("Content-Type", "text/plain").end("OK\n"));
        router.get("/-/ready").handler(ctx -> {
            if (gateway.ready()) {
                ctx.response().putHeader("Content-Type", "text/plain").end("ready\n");
            } else {
                ctx.response().setStatusCode(503).putHeader("Content-Type", "text/plain").end("starting\n");
            }
        });
        router.options("/api/*").handler(guard::preflight);
        router.options("/-/reload").handler(guard::preflight);
        // the webhooks go first: a paging service signs its calls and holds no API token
        new PagerWebhooks(gateway, acks).mount(router);
        Handler<RoutingContext> viewer = guard.require(Role.VIEWER, false);
        Handler<RoutingContext> body = BodyHandler.create().setBodyLimit(BODY_LIMIT);
        router.get("/api/v1/alerts").handler(viewer).handler(ctx -> alerts(ctx, gateway.ledger().live()));
        router.get("/api/v1/alerts/history").handler(viewer).handler(ctx -> alerts(ctx, gateway.ledger().history()));
        router.post("/api/v1/alerts/:fingerprint/ack").handler(guard.require(Role.OPERATOR, true)).handler(body)
                .handler(this::acknowledge);
        router.get("/api/v1/silences").handler(viewer).handler(this::silences);
        router.post("/api/v1/silences").handler(guard.require(Role.OPERATOR, true)).handler(body)
                .handler(this::createSilence);
        router.delete("/api/v1/silences/:id").handler(guard.require(Role.OPERATOR, false)).handler(this::expireSilence);
        router.get("/api/v1/groups").handler(viewer).handler(this::groups);
        // chat services fetch a digest's chart without a token; its random id is what keeps it private
        router.get("/api/v1/digests/:id/chart.png").handler(ctx -> gateway.digests()
                .flatMap(d -> d.chart(ctx.pathParam("id")))
                .ifPresentOrElse(png -> ctx.response().putHeader("Content-Type", "image/png")
                                .putHeader("Cache-Control", "public, max-age=604800").end(Buffer.buffer(png)),
                        () -> text(ctx, 404, "no such digest chart (charts are kept for the newest digests only)\n")));
        router.get("/api/v1/rules").handler(viewer).handler(this::rules);
        router.get("/api/v1/audit").handler(guard.require(Role.ADMIN, false)).handler(this::audit);
        router.post("/-/reload").handler(guard.require(Role.ADMIN, false)).handler(this::reload);
        if (access.metricsOpen()) {
            router.get("/metrics").handler(this::metrics);
        } else {
            router.get("/metrics").handler(viewer).handler(this::metrics);
        }
        // any other /api path: the caller learns it is unknown only once it may use the API at all
        router.route("/api/*").handler(viewer).handler(ctx -> json(ctx, 404, new JsonObject()
                .put("error", "no such API route: " + ctx.request().method() + " " + ctx.request().path())));
    }

    /** 200 with the number of rules now running, 400 with every diagnostic, 409 without rule files. */
    private void reload(RoutingContext ctx) {
        Optional<RuleReloader> reloader = gateway.reloader();
        if (reloader.isEmpty()) {
            text(ctx, 409, "this gateway runs a fixed rule set, not rule files, so there is nothing to reload\n");
            return;
        }
        reloader.get().reload("http").onComplete(ar -> {
            ReloadStatus s = ar.result();
            String outcome = s.ok() ? "reloaded " + ReloadStatus.count(s.rules()) : "refused, old rules kept";
            stored(audit(ctx, "rules.reload", "", outcome), st -> { })
                    .onComplete(logged -> {
                        if (s.ok()) {
                            text(ctx, 200, outcome + "\n" + s.text());
                        } else {
                            text(ctx, 400, s.text());
                        }
                    });
        });
    }

    private static void text(RoutingContext ctx, int status, String body) {
        ctx.response().setStatusCode(status).putHeader("Content-Type", "text/plain; charset=utf-8").end(body);
    }

    private void rules(RoutingContext ctx) {
        RuleEngine engine = gateway.evaluator().engine();
        Map<String, DisabledRule> disabled = new HashMap<>();
        for (DisabledRule d : engine.disabled()) {
            disabled.put(d.rule(), d);
        }
        JsonArray out = new JsonArray();
        for (Rule r : gateway.rules().rules()) {
            Map<AlertState, Integer> counts = engine.counts(r.name());
            DisabledRule d = disabled.get(r.name());
            out.add(new JsonObject()
                    .put("name", r.name())
                    .put("group", r.group())
                    .put("layer", r.layer().key())
                    .put("scope", r.scope().key())
                    .put("severity", r.severity().key())
                    .put("file", r.file())
                    .put("line", r.line())
                    .put("location", r.file() + ":" + r.line())
                    .put("when", r.when())
                    .put("pending", counts.get(AlertState.PENDING))
                    .put("firing", counts.get(AlertState.FIRING))
                    .put("disabled", d != null)
                    .put("disabledReason", d == null ? null : d.diagnostic().toString()));
        }
        JsonObject body = new JsonObject().put("rules", out)
                .put("reload", gateway.reloader().map(rl -> status(rl.lastStatus())).orElse(null));
        ctx.response().putHeader("Content-Type", "application/json").end(body.encodePrettily());
    }

    private static JsonObject status(ReloadStatus s) {
        JsonArray diagnostics = new JsonArray();
        for (Diagnostic d : s.diagnostics()) {
            diagnostics.add(new JsonObject()
                    .put("level", d.level().name().toLowerCase(Locale.ROOT))
                    .put("file", d.file())
                    .put("line", d.line())
                    .put("column", d.column())
                    .put("message", d.message())
                    .put("text", d.toString()));
        }
        return new JsonObject().put("at", s.at().toString()).put("trigger", s.trigger()).put("ok", s.ok())
                .put("rules", s.rules()).put("diagnostics", diagnostics);
    }

    private void alerts(RoutingContext ctx, List<Alert> all) {
        Page page = Page.of(ctx, DEFAULT_PAGE, MAX_PAGE);
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
                    .put("acked", ack == null ? null : ack(ack)));
        }
        json(ctx, 200, new JsonObject().put("alerts", out).put("total", all.size()));
    }

    static JsonObject ack(Acknowledgement a) {
        return new JsonObject().put("by", a.by()).put("at", a.at().toString()).put("comment", a.comment())
                .put("source", a.source());
    }

    /**
     * Records who acknowledged a live alert (in the store first, when there is one), then tells each receiver it
     * was routed to that tracks alerts itself (a pager); 200 with each receiver's outcome, 404 for an alert that
     * is not live, 400 without {@code by}, 503 when the store could not keep it.
     */
    private void acknowledge(RoutingContext ctx) {
        String fingerprint = ctx.pathParam("fingerprint");
        JsonObject body = jsonBody(ctx);
        if (body == null) {
            return;
        }
        Object by = body.getValue("by");
        Object comment = body.getValue("comment");
        if (!(by instanceof String who) || who.isBlank()) {
            badRequest(ctx, "by", "the person or tool acknowledging, as text, is required");
            return;
        }
        if (comment != null && !(comment instanceof String)) {
            badRequest(ctx, "comment", "expected text");
            return;
        }
        List<Alert> live = gateway.ledger().live();
        Optional<Alert> alert = live.stream().filter(a -> a.fingerprint().equals(fingerprint)).findFirst();
        if (alert.isEmpty()) {
            json(ctx, 404, new JsonObject().put("error", "no live alert with fingerprint " + fingerprint));
            return;
        }
        Acknowledgement ack = new Acknowledgement(fingerprint, who.strip(), gateway.clock().instant(),
                (String) comment, "api");
        acks.record(ack, audit(ctx, "alert.ack", fingerprint, "by " + ack.by()
                + (ack.comment().isEmpty() ? "" : ": " + ack.comment()))).onSuccess(v -> share(ack)).onSuccess(v -> acks.tellPagers(alert.get()).onSuccess(told -> {
            JsonArray outcomes = new JsonArray();
            for (AckRecorder.Told t : told) {
                outcomes.add(new JsonObject().put("receiver", t.receiver()).put("ok", t.error() == null)
                        .put("error", t.error()));
            }
            json(ctx, 200, new JsonObject().put("fingerprint", fingerprint).put("acked", ack(ack))
                    .put("receivers", outcomes));
        })).onFailure(e -> unstored(ctx, "the acknowledgement", e));
    }

    private void silences(RoutingContext ctx) {
        Page page = Page.of(ctx, DEFAULT_PAGE, MAX_PAGE);
        if (page == null) {
            return;
        }
        Instant now = gateway.clock().instant();
        JsonArray out = new JsonArray();
        List<Silence> all = gateway.dispatcher().silences().list();
        for (Silence s : page.of(all)) {
            out.add(silence(s, now));
        }
        json(ctx, 200, new JsonObject().put("silences", out).put("total", all.size()));
    }

    private static JsonObject silence(Silence s, Instant now) {
        JsonArray matchers = new JsonArray();
        s.matchers().forEach(m -> matchers.add(m.toString()));
        return new JsonObject().put("id", s.id()).put("matchers", matchers).put("startsAt", s.startsAt().toString())
                .put("endsAt", s.endsAt().toString()).put("createdBy", s.createdBy()).put("comment", s.comment())
                .put("updatedAt", s.updatedAt().toString())
                .put("state", s.state(now).name().toLowerCase(Locale.ROOT));
    }

    /**
     * Without {@code id}, creates a silence: 201 with the new silence's id. With one, changes that silence as
     * Alertmanager does: 200 with its id, which is a new one when the change replaced an active silence; 404 for
     * an unknown id. 400 naming the first bad field; 503 when the store could not keep the change.
     */
    private void createSilence(RoutingContext ctx) {
        JsonObject body = jsonBody(ctx);
        if (body == null) {
            return;
        }
        Object id = body.getValue("id");
        if (id != null && (!(id instanceof String text) || text.isBlank())) {
            badRequest(ctx, "id", "expected the id of the silence to change, as text");
            return;
        }
        if (!(body.getValue("matchers") instanceof JsonArray list) || list.isEmpty()) {
            badRequest(ctx, "matchers", "a non-empty list of matchers such as \"node=\\\"gpu-7\\\"\" is required");
            return;
        }
        List<Matcher> matchers = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            if (!(list.getValue(i) instanceof String text)) {
                badRequest(ctx, "matchers[" + i + "]", "expected a matcher as text");
                return;
            }
            try {
                matchers.add(MatcherParser.parse(text));
            } catch (MatcherException e) {
                badRequest(ctx, "matchers[" + i + "]", "at character " + (e.offset() + 1) + ": " + e.getMessage());
                return;
            }
        }
        Instant now = gateway.clock().instant();
        Instant startsAt = null;
        if (body.getValue("startsAt") != null) {
            startsAt = time(body.getValue("startsAt"));
            if (startsAt == null) {
                badRequest(ctx, "startsAt", "expected an RFC 3339 time such as 2026-01-05T09:00:00Z");
                return;
            }
        }
        Instant endsAt = body.getValue("endsAt") == null ? null : time(body.getValue("endsAt"));
        if (endsAt == null) {
            badRequest(ctx, "endsAt", "an RFC 3339 time such as 2026-01-05T17:00:00Z is required");
            return;
        }
        if (!(body.getValue("createdBy") instanceof String createdBy) || createdBy.isBlank()) {
            badRequest(ctx, "createdBy", "the person or tool making the silence, as text, is required");
            return;
        }
        Object comment = body.getValue("comment");
        if (comment != null && !(comment instanceof String)) {
            badRequest(ctx, "comment", "expected text");
            return;
        }
        Silences silences = gateway.dispatcher().silences();
        if (id == null) {
            Silences.Result r = silences.create(matchers, startsAt, endsAt, createdBy.strip(), (String) comment, now);
            if (refused(ctx, r)) {
                return;
            }
            Silence made = r.silence();
            stored(audit(ctx, "silence.create", made.id(), describe(made)), s -> s.silences().save(made))
                    .onSuccess(v -> share(made))
                    .onSuccess(v -> json(ctx, 201, new JsonObject().put("id", made.id()).put("silence", silence(made, now))))
                    .onFailure(e -> {
                        silences.forget(made.id());
                        unstored(ctx, "the silence", e);
                    });
            return;
        }
        Optional<Silence> before = silences.get((String) id);
        if (before.isEmpty()) {
            json(ctx, 404, new JsonObject().put("error", "no silence with id " + id));
            return;
        }
        Silences.Result r = silences.update((String) id, matchers, startsAt, endsAt, createdBy.strip(),
                (String) comment, now);
        if (refused(ctx, r)) {
            return;
        }
        Silence changed = r.silence();
        // a change that replaced an active silence expired the old one too, and both must be kept
        Silence old = silences.get((String) id).orElseThrow();
        stored(audit(ctx, "silence.update", (String) id, changed.id().equals(id) ? describe(changed)
                : "replaced by " + changed.id() + ": " + describe(changed)), s -> {
            s.silences().save(old);
            s.silences().save(changed);
        }).onSuccess(v -> {
            share(old);
            share(changed);
        }).onSuccess(v -> json(ctx, 200, new JsonObject().put("id", changed.id()).put("silence", silence(changed, now))))
                .onFailure(e -> {
                    silences.forget(changed.id());
                    silences.restore(before.get());
                    unstored(ctx, "the change of silence " + id, e);
                });
    }

    /** Answers 400 naming the field when {@code r} was refused. */
    private static boolean refused(RoutingContext ctx, Silences.Result r) {
        if (r.ok()) {
            return false;
        }
        String message = String.join("; ", r.errors());
        badRequest(ctx, message.contains("endsAt") ? "endsAt" : message.contains("expired") ? "id" : "matchers",
                message);
        return true;
    }

    /**
     * Expires a silence now, keeping it for the record; 404 for an unknown or already expired one, 503 when the
     * store could not keep the change.
     */
    private void expireSilence(RoutingContext ctx) {
        String id = ctx.pathParam("id");
        Instant now = gateway.clock().instant();
        Silences silences = gateway.dispatcher().silences();
        Optional<Silence> before = silences.get(id);
        if (!silences.expire(id, now)) {
            json(ctx, 404, new JsonObject().put("error", "no active or pending silence with id " + id));
            return;
        }
        Silence expired = silences.get(id).orElseThrow();
        stored(audit(ctx, "silence.expire", id, describe(expired)), s -> s.silences().save(expired))
                .onSuccess(v -> share(expired))
                .onSuccess(v -> json(ctx, 200, silence(expired, now)))
                .onFailure(e -> {
                    silences.restore(before.orElseThrow());
                    unstored(ctx, "the expiry of silence " + id, e);
                });
    }

    /**
     * Runs {@code write} and records {@code audit} as one transaction on the store's writer thread when the
     * gateway has a store; without one, logs the audit entry and succeeds at once. The answer waits for it, so
     * what a client was told is kept is on disk, and so is who did it.
     */
    private Future<Void> stored(AuditEntry audit, Consumer<Store> write) {
        if (gateway.store().isEmpty()) {
            LOG.info("audit: " + audit.who() + " from " + audit.remote() + ": " + audit.action() + " "
                    + audit.target() + " " + audit.detail());
            return Future.succeededFuture();
        }
        return gateway.store().get().run(s -> {
            write.accept(s);
            return s.audit().add(audit);
        }).mapEmpty();
    }

    /** The audit entry of {@code action} on {@code target} by the caller of {@code ctx}, now. */
    private AuditEntry audit(RoutingContext ctx, String action, String target, String detail) {
        Caller c = AccessGuard.caller(ctx);
        return new AuditEntry(0, gateway.clock().instant(), c.name(), action, target, detail, c.remote());
    }

    private static String describe(Silence s) {
        return s.matchers() + " until " + s.endsAt() + " by " + s.createdBy()
                + (s.comment() == null || s.comment().isEmpty() ? "" : ": " + s.comment());
    }

    /** The newest audit entries first, a page at a time; 409 without a store, which is where they are kept. */
    private void audit(RoutingContext ctx) {
        Page page = Page.of(ctx, AUDIT_PAGE, MAX_PAGE);
        if (page == null) {
            return;
        }
        if (gateway.store().isEmpty()) {
            json(ctx, 409, new JsonObject().put("error", "this gateway keeps its audit log in its store, and it "
                    + "runs without --data-dir, so the log went to its output only"));
            return;
        }
        gateway.store().get().run(s -> Map.entry(s.audit().count(), s.audit().newest(page.limit(), page.offset())))
                .onSuccess(found -> {
                    JsonArray out = new JsonArray();
                    for (AuditEntry e : found.getValue()) {
                        out.add(new JsonObject().put("id", e.id()).put("at", e.at().toString()).put("who", e.who())
                                .put("action", e.action()).put("target", e.target()).put("detail", e.detail())
                                .put("remote", e.remote()));
                    }
                    json(ctx, 200, new JsonObject().put("entries", out).put("total", found.getKey()));
                })
                .onFailure(e -> json(ctx, 503, new JsonObject().put("error", "the audit log could not be read: "
                        + e.getMessage())));
    }

    /** Tells the gateway's peers of a silence change its own store has kept. */
    private void share(Silence s) {
        gateway.cluster().ifPresent(c -> c.share(s));
    }

    /** Tells the gateway's peers of an acknowledgement its own store has kept. */
    private void share(Acknowledgement a) {
        gateway.cluster().ifPresent(c -> c.share(a));
    }

    static void unstored(RoutingContext ctx, String what, Throwable e) {
        json(ctx, 503, new JsonObject().put("error", what + " could not be stored, so it was not made: "
                + e.getMessage()));
    }

    private void groups(RoutingContext ctx) {
        Page page = Page.of(ctx, DEFAULT_PAGE, MAX_PAGE);
        if (page == null) {
            return;
        }
        JsonArray out = new JsonArray();
        List<Aggregator.GroupView> all = gateway.dispatcher().groups();
        for (Aggregator.GroupView g : page.of(all)) {
            JsonArray alerts = new JsonArray();
            for (Notification n : g.alerts()) {
                alerts.add(new JsonObject().put("fingerprint", n.fingerprint())
                        .put("status", n.status().name().toLowerCase(Locale.ROOT))
                        .put("labels", new JsonObject(new TreeMap<String, Object>(n.labels()))));
            }
            out.add(new JsonObject().put("route", g.route().id()).put("receiver", g.route().receiver())
                    .put("groupKey", g.groupKey())
                    .put("groupLabels", new JsonObject(new TreeMap<String, Object>(g.groupLabels())))
                    .put("nextFlush", g.nextTick() == null ? null : g.nextTick().toString())
                    .put("alerts", alerts));
        }
        json(ctx, 200, new JsonObject().put("groups", out).put("total", all.size()));
    }

    /** The request's JSON object, or null after answering 400. */
    private static JsonObject jsonBody(RoutingContext ctx) {
        try {
            JsonObject body = ctx.body().asJsonObject();
            if (body == null) {
                badRequest(ctx, "body", "a JSON object is required");
            }
            return body;
        } catch (DecodeException | ClassCastException e) {
            badRequest(ctx, "body", "not a JSON object: " + e.getMessage());
            return null;
        }
    }

    private static Instant time(Object value) {
        if (!(value instanceof String s)) {
            return null;
        }
        try {
            return OffsetDateTime.parse(s).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    static void badRequest(RoutingContext ctx, String field, String message) {
        json(ctx, 400, new JsonObject().put("field", field).put("error", field + ": " + message));
    }

    static void json(RoutingContext ctx, int status, JsonObject body) {
        ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(body.encodePrettily());
    }

    private void metrics(RoutingContext ctx) {
        IngestCounters c = gateway.probes().counters();
        StringBuilder b = new StringBuilder();
        counter(b, "gpuwatch_ingest_connections_total", "WebSocket connections accepted", c.connections.get());
        counter(b, "gpuwatch_ingest_refused_handshakes_total", "handshakes refused for a missing or unknown token", c.refusedHandshakes.get());
        counter(b, "gpuwatch_ingest_frames_total", "frames received", c.frames.get());
        counter(b, "gpuwatch_ingest_samples_total", "sample frames taken", c.samples.get());
        counter(b, "gpuwatch_ingest_card_readings_total", "card readings taken", c.cardReadings.get());
        counter(b, "gpuwatch_ingest_events_total", "event frames taken", c.events.get());
        counter(b, "gpuwatch_ingest_duplicates_total", "frames ignored as already taken", c.duplicates.get());
        counter(b, "gpuwatch_ingest_bad_frames_total", "malformed frames answered with an error", c.badFrames.get());
        counter(b, "gpuwatch_ingest_shed_samples_total", "samples shed: over a connection's rate, or with the gateway's backlog full", c.shedSamples.get());
        counter(b, "gpuwatch_ingest_shed_backlog_total", "of the shed samples, those shed with the gateway's backlog full", c.shedBacklog.get());
        gauge(b, "gpuwatch_ingest_queued_samples", "samples taken and waiting for evaluation", gateway.probes().queuedSamples());
        decisions(b, gateway.probes().sampleLatency(), gateway.probes().eventLatency());
        counter(b, "gpuwatch_rule_evaluations_total", "scope evaluations run", gateway.evaluator().evaluations());
        counter(b, "gpuwatch_notifications_sent_total", "notifications delivered to a receiver", gateway.dispatcher().sent());
        counter(b, "gpuwatch_notifications_failed_total", "notifications a receiver failed to deliver", gateway.dispatcher().failed());
        gauge(b, "gpuwatch_nodes_connected", "nodes with an open probe connection", gateway.probes().connectedNodes());
        gauge(b, "gpuwatch_cards", "cards known", gateway.fleet().cardCount());
        gauge(b, "gpuwatch_window_bytes", "bytes held by windows and event logs", gateway.fleet().retainedBytes());
        gauge(b, "gpuwatch_alerts_firing", "alerts firing now", gateway.ledger().live().size());
        gauge(b, "gpuwatch_rules_loaded", "rules running now", gateway.rules().rules().size());
        gauge(b, "gpuwatch_rules_disabled", "rules disabled now for overrunning their time budget, until their back-off ends",
                gateway.evaluator().engine().disabled().size());
        counter(b, "gpuwatch_rule_disablements_total", "times a rule was disabled for overrunning its time budget",
                gateway.evaluator().engine().disablements());
        counter(b, "gpuwatch_rule_overruns_total", "rule evaluations over the time budget, start-up grace included",
                gateway.evaluator().engine().overruns());
        counter(b, "gpuwatch_rule_overruns_paused_total", "of those, overruns forgiven as mostly a garbage-collection pause",
                gateway.evaluator().engine().pausedOverruns());
        counter(b, "gpuwatch_rule_reload_failures_total", "rule reloads refused for errors, the old rules kept",
                gateway.reloader().map(RuleReloader::failures).orElse(0L));
        ctx.response().putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8").end(b.toString());
    }

    /** The read-to-decided histogram, one series per frame type, in Prometheus's histogram form. */
    private static void decisions(StringBuilder b, DecisionLatency samples, DecisionLatency events) {
        String name = "gpuwatch_decision_seconds";
        b.append("# HELP ").append(name).append(" from reading a frame to the end of the evaluation of its rules "
                + "(for samples, the wait behind other samples included)\n");
        b.append("# TYPE ").append(name).append(" histogram\n");
        decisions(b, name, "sample", samples);
        decisions(b, name, "event", events);
    }

    private static void decisions(StringBuilder b, String name, String frame, DecisionLatency h) {
        String label = "{frame=\"" + frame + "\"";
        for (int i = 0; i < DecisionLatency.BOUNDS.length; i++) {
            b.append(name).append("_bucket").append(label).append(",le=\"").append(DecisionLatency.BOUNDS[i])
                    .append("\"} ").append(h.atMost(i)).append('\n');
        }
        long count = h.count();
        b.append(name).append("_bucket").append(label).append(",le=\"+Inf\"} ").append(count).append('\n');
        b.append(name).append("_sum").append(label).append("} ").append(h.sumSeconds()).append('\n');
        b.append(name).append("_count").append(label).append("} ").append(count).append('\n');
    }

    private static void counter(StringBuilder b, String name, String help, long value) {
        b.append("# HELP ").append(name).append(' ').append(help).append('\n');
        b.append("# TYPE ").append(name).append(" counter\n");
        b.append(name).append(' ').append(value).append('\n');
    }

    private static void gauge(StringBuilder b, String name, String help, long value) {
        b.append("# HELP ").append(name).append(' ').append(help).append('\n');
        b.append("# TYPE ").append(name).append(" gauge\n");
        b.append(name).append(' ').append(value).append('\n');
    }
}
