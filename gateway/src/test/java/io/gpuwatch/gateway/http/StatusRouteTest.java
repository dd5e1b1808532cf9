package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.ApiTokens;
import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.build.BuildInfo;
import io.gpuwatch.gateway.delivery.RecordingReceiver;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.reload.ConfigHash;
import io.gpuwatch.gateway.reload.RuleFiles;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code GET /api/v1/status}: version, start, the configuration's hash over its files, rules and receivers. */
@ExtendWith(VertxExtension.class)
class StatusRouteTest {
    private static final long T0 = 1_764_700_000_000L;
    private static final String VIEWER = "viewer-token";

    @TempDir
    Path dir;

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void theStatusSaysWhatRunsSinceWhenAndHashesTheFilesItCameFrom(Vertx vertx) throws Exception {
        Path rules = dir.resolve("rules/hot.yml");
        Files.createDirectories(rules.getParent());
        Files.writeString(rules, """
                group: status
                layer: device
                scope: card
                rules:
                  - name: too-hot
                    severity: page
                    when: tempC > 85
                """);
        Path alerting = dir.resolve("alerting.yml");
        Files.writeString(alerting, "receivers: []\n");
        RuleLoad load = RuleSet.load(List.of(rules.getParent()));
        assertTrue(load.ok(), load.diagnostics().toString());
        AtomicLong now = new AtomicLong(T0);
        Gateway g = new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 3_600_000,
                "http://localhost"), load.ruleSet(), new RuleFiles(List.of(rules.getParent()), Duration.ZERO),
                () -> null, List.of(new RecordingReceiver("chat"), new RecordingReceiver("pager")), null,
                () -> Instant.ofEpochMilli(now.get()))
                .access(new ApiAccess(() -> ApiTokens.of(List.of(ApiTokens.entry(VIEWER, Role.VIEWER, "dash"))),
                        Set.of(), true, 100, 100))
                .alertingFile(alerting);
        await(vertx.deployVerticle(g));
        WebClient web = WebClient.create(vertx);
        assertEquals(401, await(web.get(g.port(), "127.0.0.1", "/api/v1/status").send()).statusCode());

        now.addAndGet(90_000);
        HttpResponse<Buffer> r = await(web.get(g.port(), "127.0.0.1", "/api/v1/status")
                .bearerTokenAuthentication(VIEWER).send());
        assertEquals(200, r.statusCode(), r.bodyAsString());
        JsonObject status = r.bodyAsJsonObject();
        assertEquals(BuildInfo.current().version(), status.getString("version"), "the version the build wrote");
        assertEquals(BuildInfo.current().revision(), status.getString("revision"));
        assertEquals(Instant.ofEpochMilli(T0).toString(), status.getString("startedAt"));
        assertEquals(90, status.getLong("uptimeSeconds"));
        String hash = status.getJsonObject("config").getString("hash");
        assertEquals(ConfigHash.of(List.of(rules.getParent(), alerting)), hash);
        assertEquals(List.of(rules.getParent().toString(), alerting.toString()),
                status.getJsonObject("config").getJsonArray("files").getList());
        assertEquals(1, status.getJsonObject("rules").getInteger("loaded"));
        assertEquals(0, status.getJsonObject("rules").getInteger("disabled"));
        assertEquals("startup", status.getJsonObject("rules").getJsonObject("lastReload").getString("trigger"));
        assertEquals(2, status.getInteger("receivers"));
        assertNull(status.getValue("cluster"));

        Files.writeString(alerting, "receivers: [] # changed\n");
        JsonObject after = await(web.get(g.port(), "127.0.0.1", "/api/v1/status").bearerTokenAuthentication(VIEWER)
                .send()).bodyAsJsonObject();
        assertNotEquals(hash, after.getJsonObject("config").getString("hash"), "an edited file shows");
    }
}
