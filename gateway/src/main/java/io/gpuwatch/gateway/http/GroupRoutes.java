package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.group.Aggregator;
import io.gpuwatch.notify.Notification;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

/** The delivery groups held now, with when each is next sent. */
final class GroupRoutes {
    private final ApiHost gateway;

    GroupRoutes(ApiHost gateway) {
        this.gateway = gateway;
    }

    void mount(Router router, AccessGuard guard) {
        router.get("/api/v1/groups").handler(guard.require(Role.VIEWER, false)).handler(this::groups);
    }

    private void groups(RoutingContext ctx) {
        Page page = Page.of(ctx);
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
        Replies.json(ctx, 200, new JsonObject().put("groups", out).put("total", all.size()));
    }
}
