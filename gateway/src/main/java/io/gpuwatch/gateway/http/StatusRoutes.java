package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.build.BuildInfo;
import io.gpuwatch.gateway.reload.ConfigHash;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.TreeMap;

/**
 * What is running: the version and revision ({@link BuildInfo}), since when, a hash of the configuration files
 * to compare gateways by, the rules and receivers loaded and, in a cluster, its members.
 */
final class StatusRoutes {
    private final ApiHost gateway;
    private final Instant startedAt;

    /** Routes of a gateway that started at {@code startedAt}. */
    StatusRoutes(ApiHost gateway, Instant startedAt) {
        this.gateway = gateway;
        this.startedAt = startedAt;
    }

    void mount(Router router, AccessGuard guard) {
        router.get("/api/v1/status").handler(guard.require(Role.VIEWER, false)).handler(this::status);
    }

    private void status(RoutingContext ctx) {
        List<Path> files = gateway.configFiles();
        // the files are read off the event loop; a configuration given in code has no files to compare by
        ctx.vertx().executeBlocking(() -> files.isEmpty() ? null : ConfigHash.of(files)).onComplete(hashed -> {
            Instant now = gateway.clock().instant();
            JsonArray names = new JsonArray();
            files.forEach(f -> names.add(f.toString()));
            JsonObject config = new JsonObject().put("hash", hashed.succeeded() ? hashed.result() : null)
                    .put("error", hashed.succeeded() ? null : hashed.cause().getMessage()).put("files", names);
            JsonObject rules = new JsonObject().put("loaded", gateway.rules().rules().size())
                    .put("disabled", gateway.evaluator().engine().disabled().size())
                    .put("lastReload", gateway.reloader().map(r -> new JsonObject()
                            .put("at", r.lastStatus().at().toString()).put("trigger", r.lastStatus().trigger())
                            .put("ok", r.lastStatus().ok())).orElse(null));
            JsonObject cluster = gateway.cluster().map(c -> {
                JsonArray members = new JsonArray();
                new TreeMap<>(c.members()).forEach((id, url) -> members.add(new JsonObject().put("id", id)
                        .put("probeUrl", url).put("self", id.equals(c.memberId()))));
                return new JsonObject().put("self", c.memberId()).put("members", members);
            }).orElse(null);
            Replies.json(ctx, 200, new JsonObject()
                    .put("version", BuildInfo.current().version())
                    .put("revision", BuildInfo.current().revision())
                    .put("startedAt", startedAt.toString())
                    .put("uptimeSeconds", Math.max(0, Duration.between(startedAt, now).toSeconds()))
                    .put("ready", gateway.ready())
                    .put("durable", gateway.store().isPresent())
                    .put("config", config)
                    .put("rules", rules)
                    .put("receivers", gateway.receivers().size())
                    .put("cluster", cluster));
        });
    }
}
