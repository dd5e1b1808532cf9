package io.gpuwatch.gateway.reload;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
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

import static io.gpuwatch.gateway.reload.LiveGateway.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code POST /-/reload} and {@code GET /api/v1/rules} over HTTP, as an operator's curl would see them. */
@ExtendWith(VertxExtension.class)
class ReloadEndpointTest {
    @TempDir
    Path dir;

    private static HttpResponse<Buffer> post(WebClient web, Gateway g, String uri) throws Exception {
        return await(web.post(g.port(), "127.0.0.1", uri).send());
    }

    private static JsonObject rules(WebClient web, Gateway g) throws Exception {
        return await(web.get(g.port(), "127.0.0.1", "/api/v1/rules").send()).bodyAsJsonObject();
    }

    @Test
    void reloadAnswers400WithEveryDiagnosticThen200WithTheRuleCount(Vertx vertx) throws Exception {
        Files.writeString(dir.resolve("a.yml"), RuleReloaderTest.HEAD + RuleReloaderTest.HOT);
        LiveGateway live = LiveGateway.start(vertx, dir, Duration.ZERO);
        live.sample(95, 60);
        WebClient web = WebClient.create(vertx);

        Files.writeString(dir.resolve("a.yml"), RuleReloaderTest.HEAD + RuleReloaderTest.HOT
                + "  - name: bad\n    when: gpuUtil > 1; System.exit(0)\n    for: soon\n");
        HttpResponse<Buffer> refused = post(web, live.gateway, "/-/reload");
        assertEquals(400, refused.statusCode());
        assertTrue(refused.getHeader("Content-Type").startsWith("text/plain"));
        String a = dir.resolve("a.yml").toString();
        assertEquals(a + ":9:10: error: `for`: expected a duration such as 30s or 5m, found `soon`\n"
                + a + ":8:22: error: `;` is not allowed: a rule expression is one condition, not statements\n",
                refused.bodyAsString());

        JsonObject listed = rules(web, live.gateway);
        JsonObject status = listed.getJsonObject("reload");
        assertFalse(status.getBoolean("ok"));
        assertEquals("http", status.getString("trigger"));
        assertEquals(Instant.ofEpochMilli(LiveGateway.T0 + 1000).toString(), status.getString("at"));
        JsonObject second = status.getJsonArray("diagnostics").getJsonObject(1);
        assertEquals(new JsonObject().put("level", "error").put("file", a).put("line", 8).put("column", 22)
                .put("message", "`;` is not allowed: a rule expression is one condition, not statements")
                .put("text", a + ":8:22: error: `;` is not allowed: a rule expression is one condition, not "
                        + "statements"), second);
        JsonArray running = listed.getJsonArray("rules");
        assertEquals(1, running.size(), "the old rule set still runs");
        JsonObject hot = running.getJsonObject(0).copy();
        // the evaluation cost is measured, so only its presence is checked here
        assertTrue(hot.getLong("evaluations") >= 1, hot.encode());
        assertTrue(hot.getDouble("meanEvaluationMicros") >= 0 && hot.getDouble("lastEvaluationMicros") >= 0);
        hot.remove("evaluations");
        hot.remove("meanEvaluationMicros");
        hot.remove("lastEvaluationMicros");
        assertEquals(new JsonObject().put("name", "hot").put("group", "t").put("layer", "device")
                .put("scope", "card").put("severity", "ticket").put("file", a).put("line", 5)
                .put("location", a + ":5").put("when", "tempC > 90").put("forSeconds", 0.0)
                .put("keepFiringForSeconds", 0.0).put("pending", 0).put("firing", 1).putNull("error")
                .put("disabled", false).putNull("disabledReason"), hot);

        Files.writeString(dir.resolve("a.yml"), RuleReloaderTest.HEAD + RuleReloaderTest.HOT
                + RuleReloaderTest.WARM);
        HttpResponse<Buffer> ok = post(web, live.gateway, "/-/reload");
        assertEquals(200, ok.statusCode(), ok.bodyAsString());
        assertEquals("reloaded 2 rules\n", ok.bodyAsString());
        listed = rules(web, live.gateway);
        assertTrue(listed.getJsonObject("reload").getBoolean("ok"));
        assertEquals(List.of("hot", "warm"), listed.getJsonArray("rules").stream()
                .map(r -> ((JsonObject) r).getString("name")).toList());

        String metrics = await(web.get(live.gateway.port(), "127.0.0.1", "/metrics").send()).bodyAsString();
        assertTrue(metrics.contains("\ngpuwatch_rules_loaded 2\n"), metrics);
        assertTrue(metrics.contains("\ngpuwatch_rules_disabled 0\n"), metrics);
        assertTrue(metrics.contains("\ngpuwatch_rule_reload_failures_total 1\n"), metrics);
    }

    @Test
    void aGatewayWithoutRuleFilesHasNothingToReload(Vertx vertx) throws Exception {
        RuleSet set = RuleSet.parse("t.yml", RuleReloaderTest.HEAD + RuleReloaderTest.HOT).ruleSet();
        Gateway g = new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 1000, "http://localhost"),
                set, () -> null, List.of(), () -> Instant.ofEpochMilli(LiveGateway.T0));
        await(vertx.deployVerticle(g));
        WebClient web = WebClient.create(vertx);
        HttpResponse<Buffer> r = post(web, g, "/-/reload");
        assertEquals(409, r.statusCode());
        assertEquals("this gateway runs a fixed rule set, not rule files, so there is nothing to reload\n",
                r.bodyAsString());
        JsonObject listed = rules(web, g);
        assertNull(listed.getValue("reload"));
        assertEquals(1, listed.getJsonArray("rules").size());
    }
}
