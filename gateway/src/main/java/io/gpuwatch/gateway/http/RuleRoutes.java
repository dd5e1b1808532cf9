package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.reload.ReloadStatus;
import io.gpuwatch.gateway.reload.RuleReloader;
import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.eval.AlertState;
import io.gpuwatch.rules.eval.DisabledRule;
import io.gpuwatch.rules.eval.RuleEngine;
import io.gpuwatch.rules.source.Diagnostic;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** The loaded rules with their last reload, and {@code POST /-/reload}; handlers run on the event loop. */
final class RuleRoutes {
    private final ApiHost gateway;
    private final Changes changes;

    RuleRoutes(ApiHost gateway, Changes changes) {
        this.gateway = gateway;
        this.changes = changes;
    }

    void mount(Router router, AccessGuard guard) {
        router.get("/api/v1/rules").handler(guard.require(Role.VIEWER, false)).handler(this::rules);
        router.post("/-/reload").handler(guard.require(Role.ADMIN, false)).handler(this::reload);
    }

    /** 200 with the number of rules now running, 400 with every diagnostic, 409 without rule files. */
    private void reload(RoutingContext ctx) {
        Optional<RuleReloader> reloader = gateway.reloader();
        if (reloader.isEmpty()) {
            Replies.text(ctx, 409, "this gateway runs a fixed rule set, not rule files, so there is nothing to reload\n");
            return;
        }
        reloader.get().reload("http").onComplete(ar -> {
            ReloadStatus s = ar.result();
            String outcome = s.ok() ? "reloaded " + ReloadStatus.count(s.rules()) : "refused, old rules kept";
            changes.stored(changes.audit(ctx, "rules.reload", "", outcome), st -> { })
                    .onComplete(logged -> {
                        if (s.ok()) {
                            Replies.text(ctx, 200, outcome + "\n" + s.text());
                        } else {
                            Replies.text(ctx, 400, s.text());
                        }
                    });
        });
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
            RuleEngine.Cost cost = engine.cost(r.name());
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
                    .put("forSeconds", r.forMs() / 1000.0)
                    .put("keepFiringForSeconds", r.keepFiringForMs() / 1000.0)
                    .put("pending", counts.get(AlertState.PENDING))
                    .put("firing", counts.get(AlertState.FIRING))
                    .put("evaluations", cost.evaluations())
                    .put("meanEvaluationMicros", cost.meanNanos() / 1000.0)
                    .put("lastEvaluationMicros", cost.lastNanos() / 1000.0)
                    .put("error", engine.runtimeError(r.name()).map(Diagnostic::toString).orElse(null))
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
}
