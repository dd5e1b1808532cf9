package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.store.ReceiverHealth;
import io.gpuwatch.notify.Receiver;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Each receiver's health: its last success, its last error and how many failed since, and with a store how many
 * notifications wait in its outbox. With a store these come from the outbox's record of every attempt, so they
 * survive a restart; without one, from the sends since this gateway started.
 */
final class ReceiverRoutes {
    private final ApiHost gateway;

    ReceiverRoutes(ApiHost gateway) {
        this.gateway = gateway;
    }

    void mount(Router router, AccessGuard guard) {
        router.get("/api/v1/receivers").handler(guard.require(Role.VIEWER, false)).handler(this::receivers);
    }

    private record Read(List<ReceiverHealth> health, Map<String, Long> depth) {
    }

    private void receivers(RoutingContext ctx) {
        List<String> names = gateway.receivers().stream().map(Receiver::name).toList();
        Future<Read> read = gateway.store().map(store -> store.run(s -> {
            List<ReceiverHealth> health = new ArrayList<>();
            names.forEach(n -> health.add(s.outbox().health(n)));
            return new Read(health, s.outbox().pendingByReceiver());
        })).orElseGet(() -> Future.succeededFuture(new Read(gateway.dispatcher().health(), null)));
        read.onSuccess(r -> {
            JsonArray out = new JsonArray();
            for (ReceiverHealth h : r.health()) {
                out.add(new JsonObject().put("name", h.receiver())
                        .put("lastSuccess", time(h.lastSuccess()))
                        .put("lastError", h.lastFailure() == null ? null : new JsonObject()
                                .put("at", h.lastFailure().toString()).put("message", h.lastError()))
                        .put("consecutiveFailures", h.consecutiveFailures())
                        .put("outboxDepth", r.depth() == null ? null : r.depth().getOrDefault(h.receiver(), 0L)));
            }
            Replies.json(ctx, 200, new JsonObject().put("receivers", out).put("durable", r.depth() != null));
        }).onFailure(e -> Replies.json(ctx, 503, new JsonObject().put("error", "the receivers' health could not "
                + "be read from the store: " + e.getMessage())));
    }

    private static String time(Instant t) {
        return t == null ? null : t.toString();
    }
}
