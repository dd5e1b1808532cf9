package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.ApiTokens;
import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
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

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code GET /api/v1/reports/capacity} of a gateway on a data directory, its history sampled on a stepped clock:
 * viewers only (401 without a token, 403 from a foreign page), JSON, Markdown or HTML with inline charts and
 * escaped names, a clear 400 for a bad window, 503 without a store.
 */
@ExtendWith(VertxExtension.class)
class CapacityRouteTest {
    private static final long T0 = 1_767_571_200_000L;
    private static final long MIN = 60_000L;
    private static final String VIEWER = "viewer-token";
    private static final String OWNER = "<img src=x onerror=alert(1)>";

    @TempDir
    Path dir;

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    private static RuleSet rules() {
        RuleLoad rules = RuleSet.parse("device.yml", """
                group: device
                layer: device
                scope: card
                rules:
                  - name: hot
                    severity: notice
                    when: tempC > 95
                """);
        assertTrue(rules.ok(), rules.diagnostics().toString());
        return rules.ruleSet();
    }

    private static Gateway gateway(GatewayConfig config, AtomicLong now) {
        return new Gateway(config, rules(), () -> null, List.of(), () -> Instant.ofEpochMilli(now.get()))
                .access(new ApiAccess(() -> ApiTokens.of(List.of(ApiTokens.entry(VIEWER, Role.VIEWER, "dash"))),
                        Set.of(), true, 100, 100));
    }

    private static CardReading card(String uuid, double util, String task, String owner) {
        return new CardReading(uuid, MetricValues.builder().set(Metric.GPU_UTIL, util).build(),
                List.of(new ProcessInfo(7, null, task, owner, "research")));
    }

    @Test
    void viewersGetTheReportInEachFormat(Vertx vertx) throws Exception {
        AtomicLong now = new AtomicLong(T0);
        Gateway g = gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 3_600_000, "http://localhost",
                dir), now);
        g.fleet().usePricing(new Pricing("USD", 2.00, List.of(), Map.of()));
        await(vertx.deployVerticle(g));
        await(g.onEventLoop(() -> {
            g.hello(new Hello(1, "n1", "b1", "test", null, null, Map.of("pool", "owned"), List.of(
                    new CardInfo("GPU-0", 0, "NVIDIA H100 80GB HBM3", null, null, null, null, null),
                    new CardInfo("GPU-1", 1, "NVIDIA H100 80GB HBM3", null, null, null, null, null))));
            return null;
        }));
        for (int m = 1; m <= 40; m++) {
            now.set(T0 + m * MIN);
            long seq = m;
            await(g.onEventLoop(() -> {
                g.frame("n1", new Sample(seq, now.get(), List.of(card("GPU-0", 90, "train-a", "ana"),
                        card("GPU-1", 0, "notebook", OWNER))));
                return g.usage().orElseThrow().sampleNow();
            }).compose(f -> f));
        }
        WebClient web = WebClient.create(vertx);
        String path = "/api/v1/reports/capacity?since=1h";
        assertEquals(401, await(web.get(g.port(), "127.0.0.1", path).send()).statusCode());
        assertEquals(403, await(web.get(g.port(), "127.0.0.1", path).bearerTokenAuthentication(VIEWER)
                .putHeader("Origin", "https://evil.example").send()).statusCode());

        HttpResponse<Buffer> json = await(web.get(g.port(), "127.0.0.1", path).bearerTokenAuthentication(VIEWER)
                .send());
        assertEquals(200, json.statusCode(), json.bodyAsString());
        JsonObject r = json.bodyAsJsonObject();
        JsonObject idle = r.getJsonArray("idleOwners").getJsonObject(0);
        assertEquals(OWNER, idle.getString("owner"));
        // idle from the first sample after the start (minute 1) to minute 40; reclaimable from minute 31
        assertEquals(40 / 60.0, idle.getDouble("idleCardHours"), 1e-9);
        assertEquals(10 / 60.0, idle.getDouble("reclaimableCardHours"), 1e-9);
        assertEquals(80 / 60.0, r.getJsonObject("totals").getDouble("cardHours"), 1e-9);
        assertEquals("USD", r.getString("currency"));

        HttpResponse<Buffer> week = await(web.get(g.port(), "127.0.0.1", "/api/v1/reports/capacity")
                .bearerTokenAuthentication(VIEWER).send());
        assertEquals(Instant.ofEpochMilli(now.get() - 7 * 86_400_000L).toString(),
                week.bodyAsJsonObject().getString("from"), "a week without since");
        assertEquals(80 / 60.0, week.bodyAsJsonObject().getJsonObject("totals").getDouble("cardHours"), 1e-9);

        HttpResponse<Buffer> md = await(web.get(g.port(), "127.0.0.1", path + "&format=md")
                .bearerTokenAuthentication(VIEWER).send());
        assertEquals(200, md.statusCode());
        assertTrue(md.getHeader("Content-Type").startsWith("text/markdown"));
        assertTrue(md.bodyAsString().contains("## Idle cards by owner"), md.bodyAsString());

        HttpResponse<Buffer> html = await(web.get(g.port(), "127.0.0.1", path + "&format=html")
                .bearerTokenAuthentication(VIEWER).send());
        assertEquals(200, html.statusCode());
        assertTrue(html.getHeader("Content-Type").startsWith("text/html"));
        assertTrue(html.getHeader("Content-Security-Policy").contains("default-src 'none'"));
        String page = html.bodyAsString();
        assertTrue(page.contains("<svg"), "charts are drawn inline");
        assertFalse(page.contains(OWNER), "a producer's name is escaped");
        assertTrue(page.contains("&#60;img src=x onerror=alert(1)&#62;"), page);
        assertFalse(page.contains("<script"), "no script");

        HttpResponse<Buffer> bad = await(web.get(g.port(), "127.0.0.1", "/api/v1/reports/capacity?since=7days")
                .bearerTokenAuthentication(VIEWER).send());
        assertEquals(400, bad.statusCode());
        assertEquals("since", bad.bodyAsJsonObject().getString("field"));
        assertTrue(bad.bodyAsJsonObject().getString("error").contains("like 90m, 12h, 7d or 2w"));
        HttpResponse<Buffer> tooFar = await(web.get(g.port(), "127.0.0.1", "/api/v1/reports/capacity?since=60d")
                .bearerTokenAuthentication(VIEWER).send());
        assertEquals(400, tooFar.statusCode());
        assertTrue(tooFar.bodyAsString().contains("30 days of history"), tooFar.bodyAsString());
        HttpResponse<Buffer> format = await(web.get(g.port(), "127.0.0.1", path + "&format=pdf")
                .bearerTokenAuthentication(VIEWER).send());
        assertEquals(400, format.statusCode());
        assertEquals("format", format.bodyAsJsonObject().getString("field"));
        await(vertx.undeploy(g.deploymentID()));
    }

    @Test
    void aGatewayWithoutADataDirectoryKeepsNoHistory(Vertx vertx) throws Exception {
        AtomicLong now = new AtomicLong(T0);
        Gateway g = gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 3_600_000, "http://localhost"),
                now);
        await(vertx.deployVerticle(g));
        HttpResponse<Buffer> r = await(WebClient.create(vertx).get(g.port(), "127.0.0.1", "/api/v1/reports/capacity")
                .bearerTokenAuthentication(VIEWER).send());
        assertEquals(503, r.statusCode());
        assertTrue(r.bodyAsString().contains("--data-dir"), r.bodyAsString());
    }
}
