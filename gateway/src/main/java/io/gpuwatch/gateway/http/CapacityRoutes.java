package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.capacity.CapacityHtml;
import io.gpuwatch.gateway.capacity.CapacityJson;
import io.gpuwatch.gateway.capacity.CapacityText;
import io.gpuwatch.gateway.capacity.Since;
import io.gpuwatch.gateway.capacity.UsageKeeper;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.Optional;

/**
 * The capacity report over the usage history ({@code GET /api/v1/reports/capacity?since=7d&format=json|md|html};
 * docs/capacity.md): for viewers, with a token or a console session, so a browser logged in to the console opens
 * the HTML form. The report is built on the store's thread.
 */
final class CapacityRoutes {
    /** The page draws its charts inline and runs no script: nothing else may load into it. */
    private static final String POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
            + "frame-ancestors 'none'";

    private static final long DEFAULT_SINCE_MS = 7 * 86_400_000L;

    private final ApiHost gateway;

    CapacityRoutes(ApiHost gateway) {
        this.gateway = gateway;
    }

    void mount(Router router, AccessGuard guard) {
        router.get("/api/v1/reports/capacity").handler(guard.require(Role.VIEWER, false)).handler(this::capacity);
    }

    private void capacity(RoutingContext ctx) {
        String format = ctx.request().getParam("format", "json");
        if (!format.equals("json") && !format.equals("md") && !format.equals("html")) {
            Replies.badRequest(ctx, "format", "expected json, md or html, got " + format);
            return;
        }
        Optional<UsageKeeper> usage = gateway.usage();
        if (usage.isEmpty()) {
            Replies.json(ctx, 503, new JsonObject().put("error", "this gateway keeps no usage history: it runs "
                    + "without --data-dir, or has not opened its store yet"));
            return;
        }
        long retention = usage.get().settings().retentionMs();
        String asked = ctx.request().getParam("since");
        // without one, a week, or all the history when less is kept
        Since.Parsed since = asked == null ? new Since.Parsed(Math.min(DEFAULT_SINCE_MS, retention), null)
                : Since.parse(asked, retention);
        if (!since.ok()) {
            Replies.badRequest(ctx, "since", since.error());
            return;
        }
        usage.get().report(since.millis()).onSuccess(report -> {
            switch (format) {
                case "md" -> ctx.response().putHeader("Content-Type", "text/markdown; charset=utf-8")
                        .end(CapacityText.markdown(report));
                case "html" -> ctx.response().putHeader("Content-Type", "text/html; charset=utf-8")
                        .putHeader("Content-Security-Policy", POLICY).putHeader("X-Content-Type-Options", "nosniff")
                        .end(CapacityHtml.page(report));
                default -> Replies.json(ctx, 200, CapacityJson.of(report));
            }
        }).onFailure(e -> Replies.json(ctx, 503, new JsonObject().put("error", "the usage history could not be "
                + "read: " + e.getMessage())));
    }
}
