package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.ingest.IngestCounters;
import io.gpuwatch.gateway.ledger.Alert;
import io.gpuwatch.gateway.reload.ReloadStatus;
import io.gpuwatch.gateway.reload.RuleReloader;
import io.gpuwatch.rules.Diagnostic;
import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.eval.AlertState;
import io.gpuwatch.rules.eval.DisabledRule;
import io.gpuwatch.rules.eval.RuleEngine;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Health, readiness, live alerts, the loaded rules and their last reload, {@code POST /-/reload}, and /metrics
 * in the Prometheus text format.
 */
public final class ApiRoutes {
    private final Gateway gateway;

    public ApiRoutes(Gateway gateway) {
        this.gateway = gateway;
    }

    public void mount(Router router) {
        router.get("/-/healthy").handler(ctx -> ctx.response().putHeader("Content-Type", "text/plain").end("OK\n"));
        router.get("/-/ready").handler(ctx -> {
            if (gateway.ready()) {
                ctx.response().putHeader("Content-Type", "text/plain").end("ready\n");
            } else {
                ctx.response().setStatusCode(503).putHeader("Content-Type", "text/plain").end("starting\n");
            }
        });
        router.get("/api/v1/alerts").handler(ctx -> alerts(ctx, gateway.ledger().live()));
        router.get("/api/v1/alerts/history").handler(ctx -> alerts(ctx, gateway.ledger().history()));
        router.get("/api/v1/rules").handler(this::rules);
        router.post("/-/reload").handler(this::reload);
        router.get("/metrics").handler(this::metrics);
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
            if (s.ok()) {
                text(ctx, 200, "reloaded " + ReloadStatus.count(s.rules()) + "\n" + s.text());
            } else {
                text(ctx, 400, s.text());
            }
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

    private static void alerts(RoutingContext ctx, List<Alert> alerts) {
        JsonArray out = new JsonArray();
        for (Alert a : alerts) {
            out.add(new JsonObject()
                    .put("fingerprint", a.fingerprint())
                    .put("rule", a.rule())
                    .put("severity", a.severity())
                    .put("state", a.state().name().toLowerCase())
                    .put("labels", new JsonObject(new TreeMap<String, Object>(a.labels())))
                    .put("annotations", new JsonObject(new TreeMap<String, Object>(a.annotations())))
                    .put("activeSince", a.activeSince())
                    .put("firedAt", a.firedAt())
                    .put("resolvedAt", a.resolvedAt() == 0 ? null : a.resolvedAt()));
        }
        ctx.response().putHeader("Content-Type", "application/json").end(new JsonObject().put("alerts", out).encodePrettily());
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
        counter(b, "gpuwatch_ingest_shed_samples_total", "samples shed by the per-connection rate limit", c.shedSamples.get());
        counter(b, "gpuwatch_rule_evaluations_total", "scope evaluations run", gateway.evaluator().evaluations());
        counter(b, "gpuwatch_notifications_sent_total", "notifications delivered to a receiver", gateway.dispatcher().sent());
        counter(b, "gpuwatch_notifications_failed_total", "notifications a receiver failed to deliver", gateway.dispatcher().failed());
        gauge(b, "gpuwatch_nodes_connected", "nodes with an open probe connection", gateway.probes().connectedNodes());
        gauge(b, "gpuwatch_cards", "cards known", gateway.fleet().cardCount());
        gauge(b, "gpuwatch_window_bytes", "bytes held by windows and event logs", gateway.fleet().retainedBytes());
        gauge(b, "gpuwatch_alerts_firing", "alerts firing now", gateway.ledger().live().size());
        gauge(b, "gpuwatch_rules_loaded", "rules running now", gateway.rules().rules().size());
        gauge(b, "gpuwatch_rules_disabled", "rules disabled for overrunning their time budget",
                gateway.evaluator().engine().disabled().size());
        counter(b, "gpuwatch_rule_reload_failures_total", "rule reloads refused for errors, the old rules kept",
                gateway.reloader().map(RuleReloader::failures).orElse(0L));
        ctx.response().putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8").end(b.toString());
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
