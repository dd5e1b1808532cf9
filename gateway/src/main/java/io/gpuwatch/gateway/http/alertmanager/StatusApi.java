package io.gpuwatch.gateway.http.alertmanager;

import io.gpuwatch.gateway.build.BuildInfo;
import io.gpuwatch.gateway.cluster.Cluster;
import io.gpuwatch.gateway.http.ApiHost;
import io.gpuwatch.notify.Receiver;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code GET /api/v2/status} in Alertmanager's shape: the cluster (ready with its members as peers, or disabled
 * for a lone gateway), gpuwatch's version where Alertmanager's would be, the routing as an Alertmanager config
 * ({@link ConfigYaml}) and when the gateway started. amtool compares the version with its own and warns when
 * they differ; Grafana's data source check wants a 200 and reads the config.
 */
final class StatusApi {
    /** What a field holds that gpuwatch's build does not record. */
    private static final String UNKNOWN = "unknown";

    private final ApiHost gateway;
    private final Instant started;

    StatusApi(ApiHost gateway) {
        this.gateway = gateway;
        // the API is mounted as the gateway starts
        this.started = gateway.clock().instant();
    }

    void status(RoutingContext ctx) {
        JsonObject cluster = new JsonObject();
        Optional<Cluster> c = gateway.cluster();
        JsonArray peers = new JsonArray();
        if (c.isPresent()) {
            cluster.put("name", c.get().memberId()).put("status", "ready");
            for (Map.Entry<String, String> m : new TreeMap<>(c.get().members()).entrySet()) {
                peers.add(new JsonObject().put("name", m.getKey()).put("address", m.getValue()));
            }
        } else {
            cluster.put("status", "disabled");
        }
        cluster.put("peers", peers);
        BuildInfo build = BuildInfo.current();
        JsonObject versionInfo = new JsonObject().put("version", build.version()).put("revision", build.revision())
                .put("branch", UNKNOWN).put("buildUser", UNKNOWN).put("buildDate", UNKNOWN)
                // the field Alertmanager fills with its Go version holds the Java runtime's
                .put("goVersion", "java" + Runtime.version());
        String config = ConfigYaml.of(gateway.dispatcher().routing(),
                gateway.receivers().stream().map(Receiver::name).toList());
        Answer.json(ctx, 200, new JsonObject().put("cluster", cluster).put("versionInfo", versionInfo)
                .put("config", new JsonObject().put("original", config)).put("uptime", started.toString()));
    }
}
