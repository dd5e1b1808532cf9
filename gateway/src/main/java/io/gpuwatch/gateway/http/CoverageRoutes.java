package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.coverage.CoverageReport;
import io.gpuwatch.gateway.coverage.NodeCoverage;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Which signals of each layer arrive, per pool, card model and driver, and which rules cannot fire for want of
 * the missing ones; and per card of one node (docs/operations.md, Coverage). Runs on the gateway's event loop, which owns the counts.
 */
final class CoverageRoutes {
    private final ApiHost gateway;

    CoverageRoutes(ApiHost gateway) {
        this.gateway = gateway;
    }

    void mount(Router router, AccessGuard guard) {
        router.get("/api/v1/coverage").handler(guard.require(Role.VIEWER, false)).handler(this::coverage);
        router.get("/api/v1/coverage/:node").handler(guard.require(Role.VIEWER, false)).handler(this::node);
    }

    private void node(RoutingContext ctx) {
        String name = ctx.pathParam("node");
        NodeCoverage node = gateway.coverage().node(gateway.fleet(), name, gateway.clock().millis());
        if (node == null) {
            Replies.notFound(ctx, "no node " + name + " is known to this gateway");
            return;
        }
        Replies.json(ctx, 200, node.toJson());
    }

    private void coverage(RoutingContext ctx) {
        String format = ctx.request().getParam("format", "json");
        if (!format.equals("json") && !format.equals("md")) {
            Replies.badRequest(ctx, "format", "expected json or md, got " + format);
            return;
        }
        JsonObject report = gateway.coverage().report(gateway.fleet(), gateway.rules(), gateway.clock().millis())
                .toJson();
        if (format.equals("md")) {
            ctx.response().putHeader("Content-Type", "text/markdown; charset=utf-8")
                    .end(CoverageReport.markdown(report));
        } else {
            Replies.json(ctx, 200, report);
        }
    }
}
