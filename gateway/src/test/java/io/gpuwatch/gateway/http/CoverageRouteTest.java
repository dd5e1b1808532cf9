package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.ApiTokens;
import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code GET /api/v1/coverage} of a running gateway fed over its frame sink: viewers only, JSON or Markdown. */
@ExtendWith(VertxExtension.class)
class CoverageRouteTest {
    private static final long T0 = 1_764_700_200_000L;
    private static final String VIEWER = "viewer-token";

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aNodeWithoutProfilingShowsItsBlindRule(Vertx vertx) throws Exception {
        RuleLoad rules = RuleSet.parse("device.yml", """
                group: device
                layer: device
                scope: card
                rules:
                  - name: tensor-idle
                    severity: inspect
                    when: tensorActive < 0.05 && gpuUtil > 80
                """);
        assertTrue(rules.ok(), rules.diagnostics().toString());
        AtomicLong now = new AtomicLong(T0);
        Gateway g = new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 3_600_000,
                "http://localhost"), rules.ruleSet(), () -> null, List.of(), () -> Instant.ofEpochMilli(now.get()))
                .access(new ApiAccess(() -> ApiTokens.of(List.of(ApiTokens.entry(VIEWER, Role.VIEWER, "dash"))),
                        Set.of(), true, 100, 100));
        await(vertx.deployVerticle(g));
        await(g.onEventLoop(() -> {
            g.hello(new Hello(1, "rent-1", "b1", "test", "535.10", null, Map.of("pool", "rented"),
                    List.of(new CardInfo("GPU-r1", 0, "L40S", null, null, null, null, null))));
            for (int s = 0; s < 30; s++) {
                now.set(T0 + s * 2000L);
                g.frame("rent-1", new Sample(s + 1, now.get(), List.of(new CardReading("GPU-r1",
                        MetricValues.builder().set(Metric.GPU_UTIL, 90).build(), List.of()))));
            }
            return null;
        }));
        now.set(T0 + 60_000);
        WebClient web = WebClient.create(vertx);
        assertEquals(401, await(web.get(g.port(), "127.0.0.1", "/api/v1/coverage").send()).statusCode());

        HttpResponse<Buffer> r = await(web.get(g.port(), "127.0.0.1", "/api/v1/coverage")
                .bearerTokenAuthentication(VIEWER).send());
        assertEquals(200, r.statusCode(), r.bodyAsString());
        JsonObject group = r.bodyAsJsonObject().getJsonArray("groups").getJsonObject(0);
        assertEquals("rented", group.getString("pool"));
        assertEquals("L40S", group.getString("model"));
        assertEquals("535.10", group.getString("driver"));
        JsonObject device = group.getJsonObject("layers").getJsonObject("device");
        JsonObject util = device.getJsonArray("present").getJsonObject(0);
        assertEquals(new JsonObject().put("signal", "gpuUtil").put("share", 1.0).put("perSecond", 0.5)
                .put("frameShare", 1.0), util, "30 readings over 60 s");
        JsonObject tensor = find(device.getJsonArray("missing"), "tensorActive");
        assertEquals(new JsonArray().add(new JsonObject().put("name", "tensor-idle").put("layer", "device")
                .put("scope", "card")), tensor.getJsonArray("rules"));

        HttpResponse<Buffer> md = await(web.get(g.port(), "127.0.0.1", "/api/v1/coverage?format=md")
                .bearerTokenAuthentication(VIEWER).send());
        assertEquals(200, md.statusCode());
        assertTrue(md.getHeader("Content-Type").startsWith("text/markdown"));
        assertTrue(md.bodyAsString().contains("cannot fire: tensor-idle (device)"), md.bodyAsString());
        HttpResponse<Buffer> node = await(web.get(g.port(), "127.0.0.1", "/api/v1/coverage/rent-1")
                .bearerTokenAuthentication(VIEWER).send());
        assertEquals(200, node.statusCode(), node.bodyAsString());
        JsonObject card = node.bodyAsJsonObject().getJsonArray("cards").getJsonObject(0);
        assertEquals("GPU-r1", card.getString("uuid"));
        assertEquals(0.5, card.getDouble("readingsPerSecond"));
        assertTrue(card.getJsonArray("missing").contains("tensorActive"), card.encode());
        assertEquals(404, await(web.get(g.port(), "127.0.0.1", "/api/v1/coverage/nope")
                .bearerTokenAuthentication(VIEWER).send()).statusCode());
        assertEquals(401, await(web.get(g.port(), "127.0.0.1", "/api/v1/coverage/rent-1").send()).statusCode());
        HttpResponse<Buffer> bad = await(web.get(g.port(), "127.0.0.1", "/api/v1/coverage?format=html")
                .bearerTokenAuthentication(VIEWER).send());
        assertEquals(400, bad.statusCode());
        assertEquals("format", bad.bodyAsJsonObject().getString("field"));
    }

    private static JsonObject find(JsonArray signals, String name) {
        for (int i = 0; i < signals.size(); i++) {
            if (signals.getJsonObject(i).getString("signal").equals(name)) {
                return signals.getJsonObject(i);
            }
        }
        throw new AssertionError(name + " not in " + signals.encode());
    }
}
