package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.auth.Role;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.List;

/**
 * The HTTP API: health and readiness, alerts ({@link AlertRoutes}, one with its timeline in
 * {@link AlertDetailRoutes}), silences ({@link SilenceRoutes}), delivery groups, receivers' health, rules and
 * reload, the audit log, status, who is on call and the schedules' calendars ({@link ScheduleRoutes}), digest
 * charts, the paging services' webhooks ({@link PagerWebhooks}), the scrape paths ({@link MetricsRoute}),
 * extensions such as Alertmanager's v2 API ({@link ApiExtension}), and the web console ({@link ConsoleRoutes}) with its login
 * ({@link SessionRoutes}), live updates ({@link EventStream}) and fleet views ({@link FleetRoutes}), each behind
 * the access check its role needs ({@link AccessGuard}). Handlers run on the gateway's event loop, which owns
 * the silences and acknowledgements.
 */
public final class ApiRoutes {
    private final ApiHost gateway;
    private final AccessGuard guard;
    private final ApiAccess access;

    /** The API of {@code gateway}, open to callers as {@code access} says. */
    public ApiRoutes(ApiHost gateway, ApiAccess access) {
        this.gateway = gateway;
        this.guard = new AccessGuard(access, gateway.clock());
        this.access = access;
    }

    /**
     * Mounts every route: health and readiness open, {@code /metrics} and {@code /metrics/gpus} open or for
     * viewers as {@link ApiAccess} says, reads for viewers, alert and silence changes for operators, reload and
     * the audit log for admins, and the paging services' webhooks, which prove themselves with their own
     * signatures; {@code extensions} go where the API's own routes do, before the catch-all 404.
     */
    public void mount(Router router, List<ApiExtension> extensions) {
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
        AckRecorder acks = new AckRecorder(gateway);
        Changes changes = new Changes(gateway);
        // the webhooks go first: a paging service signs its calls and holds no API token
        new PagerWebhooks(gateway, acks).mount(router);
        SilenceEdits silenceEdits = new SilenceEdits(gateway, changes);
        AlertActions alertActions = new AlertActions(gateway, acks, silenceEdits);
        new ChatActions(gateway, alertActions).mount(router);
        new FeishuCallbacks(gateway, alertActions).mount(router);
        new AckLinks(gateway, acks).mount(router);
        new AlertRoutes(gateway, acks, changes).mount(router, guard);
        // after the alert routes, so /api/v1/alerts/history is not taken for a fingerprint
        new AlertDetailRoutes(gateway).mount(router, guard);
        new SilenceRoutes(gateway, silenceEdits).mount(router, guard);
        new GroupRoutes(gateway).mount(router, guard);
        new ReceiverRoutes(gateway).mount(router, guard);
        for (ApiExtension e : extensions) {
            e.mount(router, guard, silenceEdits);
        }
        new RuleRoutes(gateway, changes).mount(router, guard);
        new RulePreviewRoutes(gateway).mount(router, guard);
        new AuditRoutes(gateway).mount(router, guard);
        new StatusRoutes(gateway, gateway.clock().instant()).mount(router, guard);
        new ScheduleRoutes(gateway).mount(router, guard);
        new SessionRoutes(guard.sessions()).mount(router, guard);
        new EventStream(gateway).mount(router, guard);
        new FleetRoutes(gateway).mount(router, guard);
        new CoverageRoutes(gateway).mount(router, guard);
        new CapacityRoutes(gateway).mount(router, guard);
        new ConsoleRoutes().mount(router);
        // chat services fetch a digest's chart without a token; its random id is what keeps it private
        router.get("/api/v1/digests/:id/chart.png").handler(ctx -> gateway.digests()
                .flatMap(d -> d.chart(ctx.pathParam("id")))
                .ifPresentOrElse(png -> ctx.response().putHeader("Content-Type", "image/png")
                                .putHeader("Cache-Control", "public, max-age=604800").end(Buffer.buffer(png)),
                        () -> Replies.text(ctx, 404, "no such digest chart (charts are kept for the newest digests "
                                + "only)\n")));
        // scheduler adapters we have none for post their frames with a probe token, not an API token
        new SchedRoute(gateway).mount(router);
        MetricsRoute scrape = new MetricsRoute(gateway);
        metrics(router, "/metrics", scrape::metrics);
        metrics(router, "/metrics/gpus", scrape::gpus);
        // any other /api path: the caller learns it is unknown only once it may use the API at all
        router.route("/api/*").handler(guard.require(Role.VIEWER, false)).handler(ctx -> Replies.json(ctx, 404,
                new JsonObject().put("error", "no such API route: " + ctx.request().method() + " "
                        + ctx.request().path())));
    }

    /** A scrape path, open or for viewers as {@link ApiAccess#metricsOpen} says. */
    private void metrics(Router router, String path, Handler<RoutingContext> handler) {
        if (access.metricsOpen()) {
            router.get(path).handler(handler);
        } else {
            router.get(path).handler(guard.require(Role.VIEWER, false)).handler(handler);
        }
    }
}
