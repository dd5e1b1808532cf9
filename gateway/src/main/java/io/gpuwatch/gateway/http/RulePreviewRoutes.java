package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.backtest.Backtest;
import io.gpuwatch.gateway.backtest.Episode;
import io.gpuwatch.gateway.backtest.RecentFrames;
import io.gpuwatch.gateway.backtest.TraceFrame;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.source.Diagnostic;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

/**
 * {@code POST /api/v1/rules/preview}: what a rule file (pasted or edited, not saved) would have fired over the
 * gateway's last hour of frames, by the backtest engine, without touching the running rules. The frames are
 * taken on the event loop (a copy of references) and replayed on a worker thread. Operator: a replay costs CPU.
 */
final class RulePreviewRoutes {
    private final ApiHost gateway;

    RulePreviewRoutes(ApiHost gateway) {
        this.gateway = gateway;
    }

    void mount(Router router, AccessGuard guard) {
        router.post("/api/v1/rules/preview").handler(guard.require(Role.OPERATOR, true)).handler(Replies.body())
                .handler(this::preview);
    }

    private void preview(RoutingContext ctx) {
        JsonObject body = Replies.jsonBody(ctx);
        if (body == null) {
            return;
        }
        if (!(body.getValue("rules") instanceof String text) || text.isBlank()) {
            Replies.badRequest(ctx, "rules", "a rule file's text (group, layer, scope, rules) is required");
            return;
        }
        RuleLoad load = RuleSet.parse("preview.yml", text);
        if (!load.ok()) {
            Replies.json(ctx, 400, new JsonObject().put("field", "rules")
                    .put("error", "rules: the rule file does not compile")
                    .put("diagnostics", diagnostics(load.diagnostics())));
            return;
        }
        RecentFrames recent = gateway.recentFrames();
        List<TraceFrame> trace = recent.snapshot();
        long from = recent.from();
        long to = recent.to();
        // ordered: one preview at a time per gateway, so previews cannot take every worker thread
        ctx.vertx().executeBlocking(() -> Backtest.run(load.ruleSet(), trace, s -> { }, (frames, at) -> { }))
                .onSuccess(r -> {
                    JsonArray alerts = new JsonArray();
                    for (Episode e : r.alerts()) {
                        alerts.add(new JsonObject().put("rule", e.rule()).put("severity", e.severity())
                                .put("labels", new JsonObject(new TreeMap<String, Object>(e.labels())))
                                .put("summary", e.summary()).put("from", AlertView.time(e.from()))
                                .put("to", AlertView.time(e.to())).put("stillFiring", e.stillFiring())
                                .put("notifications", e.notifications()));
                    }
                    Replies.json(ctx, 200, new JsonObject()
                            .put("from", from == TraceFrame.NO_TS ? null : AlertView.time(from))
                            .put("to", to == TraceFrame.NO_TS ? null : AlertView.time(to))
                            .put("frames", trace.size()).put("rules", load.ruleSet().rules().size())
                            .put("alerts", alerts).put("diagnostics", diagnostics(load.diagnostics()))
                            .put("runtimeErrors", diagnostics(r.runtimeErrors())));
                })
                .onFailure(e -> Replies.json(ctx, 500, new JsonObject().put("error", "the preview failed: "
                        + e.getMessage())));
    }

    private static JsonArray diagnostics(List<Diagnostic> list) {
        JsonArray out = new JsonArray();
        for (Diagnostic d : list) {
            out.add(new JsonObject().put("level", d.level().name().toLowerCase(Locale.ROOT)).put("line", d.line())
                    .put("column", d.column()).put("message", d.message()).put("text", d.toString()));
        }
        return out;
    }
}
