package io.gpuwatch.gateway.http.alertmanager;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.group.Aggregator;
import io.gpuwatch.gateway.http.AccessGuard;
import io.gpuwatch.gateway.http.ApiExtension;
import io.gpuwatch.gateway.http.ApiHost;
import io.gpuwatch.gateway.http.Replies;
import io.gpuwatch.gateway.http.SilenceEdits;
import io.gpuwatch.gateway.route.Route;
import io.gpuwatch.notify.Notification;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The part of Alertmanager's v2 API that amtool and Grafana's Alertmanager data source use (docs/api.md,
 * Alertmanager v2 API): alerts and their groups, silences, and status, over the gateway's own alerts, silences
 * and routing. Reads need the viewer role, silence changes the operator role, as on {@code /api/v1}. gpuwatch
 * evaluates its own rules, so it takes no alerts from elsewhere: {@code POST /api/v2/alerts} is refused with 501.
 * Handlers run on the gateway's event loop, which owns the alerts and silences.
 */
public final class AlertmanagerApi {
    private final ApiHost gateway;
    private final SilenceApi silences;
    private final StatusApi status;

    /** The API over {@code gateway}, changing silences through {@code edits}. */
    /** Alertmanager's v2 API as an extension of the gateway's own API. */
    public static ApiExtension extension(ApiHost gateway) {
        return (router, guard, silences) -> new AlertmanagerApi(gateway, silences).mount(router, guard);
    }

    public AlertmanagerApi(ApiHost gateway, SilenceEdits edits) {
        this.gateway = gateway;
        this.silences = new SilenceApi(gateway, edits);
        this.status = new StatusApi(gateway);
    }

    /** Mounts the routes under {@code /api/v2}, each behind the role it needs. */
    public void mount(Router router, AccessGuard guard) {
        router.get("/api/v2/alerts").handler(guard.require(Role.VIEWER, false)).handler(this::alerts);
        router.post("/api/v2/alerts").handler(guard.require(Role.OPERATOR, true)).handler(ctx -> Answer.error(ctx,
                501, "gpuwatch evaluates its own rules and takes no alerts from elsewhere: send these to an "
                        + "Alertmanager (a receiver of type alertmanager sends gpuwatch's own alerts there too)"));
        router.get("/api/v2/alerts/groups").handler(guard.require(Role.VIEWER, false)).handler(this::groups);
        router.get("/api/v2/silences").handler(guard.require(Role.VIEWER, false)).handler(silences::list);
        router.post("/api/v2/silences").handler(guard.require(Role.OPERATOR, true)).handler(Replies.body())
                .handler(silences::post);
        router.get("/api/v2/silence/:id").handler(guard.require(Role.VIEWER, false)).handler(silences::one);
        router.delete("/api/v2/silence/:id").handler(guard.require(Role.OPERATOR, false))
                .handler(silences::expire);
        router.get("/api/v2/status").handler(guard.require(Role.VIEWER, false)).handler(status::status);
    }

    /** The live alerts the query asks for, by fingerprint, as Alertmanager lists them. */
    private void alerts(RoutingContext ctx) {
        AlertFilter filter = AlertFilter.of(ctx);
        if (filter == null) {
            return;
        }
        JsonArray out = new JsonArray();
        views(gateway.clock().instant()).values().stream()
                .filter(v -> filter.shows(v) && (filter.receiver() == null
                        || v.receivers().stream().anyMatch(filter::receiverMatches)))
                .sorted(Comparator.comparing(v -> v.alert().fingerprint()))
                .forEach(v -> out.add(v.json()));
        Answer.json(ctx, 200, out);
    }

    /**
     * The delivery groups held now, each with the live alerts of it the query asks for; a group left with none is
     * left out, as is one whose receiver the receiver filter does not match.
     */
    private void groups(RoutingContext ctx) {
        AlertFilter filter = AlertFilter.of(ctx);
        if (filter == null) {
            return;
        }
        Map<String, AlertView> views = views(gateway.clock().instant());
        JsonArray out = new JsonArray();
        for (Aggregator.GroupView g : gateway.dispatcher().groups()) {
            if (!filter.receiverMatches(g.route().receiver())) {
                continue;
            }
            JsonArray alerts = new JsonArray();
            for (Notification n : g.alerts()) {
                AlertView v = views.get(n.fingerprint());
                if (v != null && filter.shows(v)) {
                    alerts.add(v.json());
                }
            }
            if (!alerts.isEmpty()) {
                out.add(new JsonObject()
                        .put("labels", new JsonObject(new TreeMap<String, Object>(g.groupLabels())))
                        .put("receiver", new JsonObject().put("name", g.route().receiver()))
                        .put("alerts", alerts));
            }
        }
        Answer.json(ctx, 200, out);
    }

    /** Every live alert with its receivers and what mutes it at {@code now}, by fingerprint. */
    private Map<String, AlertView> views(Instant now) {
        Map<String, AlertView> out = new LinkedHashMap<>();
        for (Alert a : gateway.ledger().live()) {
            Set<String> receivers = new LinkedHashSet<>();
            for (Route r : gateway.dispatcher().routing().routes(a.labels())) {
                receivers.add(r.receiver());
            }
            out.put(a.fingerprint(), new AlertView(a, receivers.stream().toList(),
                    gateway.dispatcher().silences().silenced(a.labels(), now),
                    gateway.dispatcher().inhibitedBy(a.fingerprint(), a.labels()),
                    gateway.ledger().notification(a).generatorUrl()));
        }
        return out;
    }
}
