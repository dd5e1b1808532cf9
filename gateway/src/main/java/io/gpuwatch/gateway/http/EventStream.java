package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.auth.Role;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Live updates for the console, as server-sent events ({@code GET /api/v1/events}): an {@code alerts} event with
 * every live and pending alert, as {@code GET /api/v1/alerts} lists them, whenever any of them changes (checked
 * every {@value #CHECK_MS} ms), and a {@code fleet} event every {@value #FLEET_MS} ms saying the fleet's readings
 * moved on; an {@code ended} event closes it once its session or token no longer lets it in. A browser's
 * {@code EventSource} sends the session cookie, which is how the console authenticates it. Runs on the gateway's
 * event loop.
 */
final class EventStream {
    static final long CHECK_MS = 1_000;
    static final long FLEET_MS = 5_000;

    private final ApiHost gateway;
    private AccessGuard guard;

    EventStream(ApiHost gateway) {
        this.gateway = gateway;
    }

    void mount(Router router, AccessGuard guard) {
        this.guard = guard;
        router.get("/api/v1/events").handler(guard.require(Role.VIEWER, false)).handler(this::stream);
    }

    private void stream(RoutingContext ctx) {
        Caller caller = AccessGuard.caller(ctx);
        HttpServerResponse res = ctx.response();
        res.setChunked(true).putHeader("Content-Type", "text/event-stream; charset=utf-8")
                .putHeader("Cache-Control", "no-cache").putHeader("X-Accel-Buffering", "no");
        String[] sent = {null};
        long[] fleetAt = {0};
        // false once the stream is over, so its timer stops
        BooleanSupplier push = () -> {
            if (res.closed() || res.ended()) {
                return false;
            }
            // a logout, an idle session or a revoked token ends the stream, as it would end the next request
            if (!guard.stillAllowed(caller)) {
                res.end("event: ended\ndata: {}\n\n");
                return false;
            }
            if (res.writeQueueFull()) {
                // a reader that does not keep up gets the state as it is once it has caught up, not a backlog
                return true;
            }
            String alerts = alerts().encode();
            if (!alerts.equals(sent[0])) {
                sent[0] = alerts;
                res.write("event: alerts\ndata: " + alerts + "\n\n");
            }
            long now = gateway.clock().millis();
            if (now - fleetAt[0] >= FLEET_MS) {
                fleetAt[0] = now;
                res.write("event: fleet\ndata: {\"at\":\"" + Instant.ofEpochMilli(now) + "\"}\n\n");
            }
            return true;
        };
        // the browser reconnects after this long if the stream breaks
        res.write("retry: 2000\n\n");
        if (push.getAsBoolean()) {
            ctx.vertx().setPeriodic(CHECK_MS, id -> {
                if (!push.getAsBoolean()) {
                    ctx.vertx().cancelTimer(id);
                }
            });
        }
    }

    /** Every live and pending alert, with what mutes it and who acknowledged it. */
    private JsonObject alerts() {
        List<Alert> all = new ArrayList<>(gateway.ledger().live());
        gateway.evaluator().engine().pending().forEach(t -> all.add(gateway.ledger().pending(t)));
        Instant now = gateway.clock().instant();
        JsonArray out = new JsonArray();
        all.forEach(a -> out.add(AlertView.of(gateway, a, now).json()));
        return new JsonObject().put("alerts", out).put("total", all.size());
    }
}
