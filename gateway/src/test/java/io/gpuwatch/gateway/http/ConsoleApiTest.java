package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.ApiTokens;
import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.reload.RuleFiles;
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
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The console's side of the gateway over real HTTP: its files from the jar, login to a session cookie with the
 * attributes that keep it from scripts and other sites, the CSRF token a change with it must carry, logout,
 * expiry and revocation, the live stream, the fleet, card and task endpoints it draws from, and the rule preview.
 */
@ExtendWith(VertxExtension.class)
class ConsoleApiTest {
    private static final long T0 = 1_764_700_000_000L;
    private static final String VIEWER = "viewer-token";
    private static final String OPERATOR = "operator-token";
    private static final ApiTokens TOKENS = ApiTokens.of(List.of(ApiTokens.entry(VIEWER, Role.VIEWER, "dash"),
            ApiTokens.entry(OPERATOR, Role.OPERATOR, "ana")));
    private static final JsonObject SILENCE = new JsonObject().put("matchers", new JsonArray().add("node=\"gpu-7\""))
            .put("endsAt", "2030-01-01T00:00:00Z").put("createdBy", "ana").put("comment", "re-cabling");

    private final long[] now = {T0};
    private final AtomicReference<ApiTokens> tokens = new AtomicReference<>(TOKENS);
    private WebClient web;
    private Gateway g;

    @BeforeEach
    void setUp(Vertx vertx) throws Exception {
        RuleLoad load = RuleSet.parse("console.yml", "group: console\nlayer: device\nscope: card\nrules: []\n");
        assertTrue(load.ok(), load.diagnostics().toString());
        // no redirects followed and no cookies kept: each request says exactly what it sends
        web = WebClient.create(vertx, new WebClientOptions().setFollowRedirects(false));
        g = new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 3_600_000, "http://localhost"),
                load.ruleSet(), RuleFiles.none(), () -> null, List.of(), () -> Instant.ofEpochMilli(now[0]))
                .access(new ApiAccess(tokens::get, Set.of(), true, 1000, 1000));
        await(vertx.deployVerticle(g));
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private HttpRequest<Buffer> call(HttpMethod method, String path) {
        return web.request(method, g.port(), "127.0.0.1", path);
    }

    /** Logs in with {@code token}: the session cookie ({@code name=value}) and the answer. */
    private Login login(String token) throws Exception {
        HttpResponse<Buffer> r = await(call(HttpMethod.POST, "/api/v1/session")
                .sendJsonObject(new JsonObject().put("token", token)));
        assertEquals(200, r.statusCode(), r.bodyAsString());
        String set = r.cookies().get(0);
        return new Login(set.split(";", 2)[0], set, r.bodyAsJsonObject());
    }

    private record Login(String cookie, String setCookie, JsonObject body) {
        String csrf() {
            return body.getString("csrf");
        }
    }

    @Test
    void theConsoleIsServedFromTheJarWithAPolicyThatKeepsItToThisGateway() throws Exception {
        HttpResponse<Buffer> root = await(call(HttpMethod.GET, "/").send());
        assertEquals(302, root.statusCode());
        assertEquals("/console/", root.getHeader("Location"));
        assertEquals("/console/", await(call(HttpMethod.GET, "/console").send()).getHeader("Location"));
        HttpResponse<Buffer> page = await(call(HttpMethod.GET, "/console/").send());
        assertEquals(200, page.statusCode());
        assertTrue(page.getHeader("Content-Type").startsWith("text/html"));
        assertTrue(page.getHeader("Content-Security-Policy").contains("default-src 'self'"));
        assertEquals("nosniff", page.getHeader("X-Content-Type-Options"));
        // everything the page loads is served here, and nothing from elsewhere
        String html = page.bodyAsString();
        for (String file : List.of("style.css", "app.js", "chart.js")) {
            assertTrue(file.equals("chart.js") || html.contains("\"" + file + "\""), file);
            HttpResponse<Buffer> r = await(call(HttpMethod.GET, "/console/" + file).send());
            assertEquals(200, r.statusCode(), file);
            assertFalse(r.bodyAsString().contains("https://"), file + " loads nothing from elsewhere");
        }
        assertTrue(await(call(HttpMethod.GET, "/console/app.js").send()).bodyAsString()
                .contains("from './chart.js'"));
        HttpResponse<Buffer> js = await(call(HttpMethod.GET, "/console/app.js").send());
        assertTrue(js.getHeader("Content-Type").startsWith("text/javascript"));
        assertEquals(304, await(call(HttpMethod.GET, "/console/app.js")
                .putHeader("If-None-Match", js.getHeader("ETag")).send()).statusCode());
        assertEquals(404, await(call(HttpMethod.GET, "/console/nothing.js").send()).statusCode());
        assertEquals(404, await(call(HttpMethod.GET, "/console/%2e%2e/%2e%2e/pom.xml").send()).statusCode());
        assertEquals(404, await(call(HttpMethod.GET, "/console/.hidden.js").send()).statusCode());
    }

    @Test
    void aTokenBecomesAnHttpOnlyStrictSessionWhoseChangesNeedTheirCsrfToken() throws Exception {
        HttpResponse<Buffer> wrong = await(call(HttpMethod.POST, "/api/v1/session")
                .sendJsonObject(new JsonObject().put("token", "guess")));
        assertEquals(401, wrong.statusCode());
        assertTrue(wrong.cookies().isEmpty());
        assertEquals(400, await(call(HttpMethod.POST, "/api/v1/session").sendJsonObject(new JsonObject()))
                .statusCode());

        Login ana = login(OPERATOR);
        assertTrue(ana.setCookie().toLowerCase(java.util.Locale.ROOT).contains("; httponly"), ana.setCookie());
        assertTrue(ana.setCookie().contains("SameSite=Strict"), ana.setCookie());
        assertTrue(ana.setCookie().contains("Path=/"), ana.setCookie());
        assertFalse(ana.setCookie().contains("Secure"), "plain HTTP: a Secure cookie would never come back");
        assertEquals("operator", ana.body().getString("role"));
        assertTrue(ana.body().getJsonObject("may").getBoolean("change"));
        assertNotNull(ana.csrf());

        HttpResponse<Buffer> me = await(call(HttpMethod.GET, "/api/v1/session").putHeader("Cookie", ana.cookie())
                .send());
        assertEquals(200, me.statusCode());
        assertEquals("ana", me.bodyAsJsonObject().getString("name"));
        assertEquals(ana.csrf(), me.bodyAsJsonObject().getString("csrf"));
        assertEquals(200, await(call(HttpMethod.GET, "/api/v1/alerts").putHeader("Cookie", ana.cookie()).send())
                .statusCode());

        // the cookie alone changes nothing: a page elsewhere could make the browser send it
        HttpResponse<Buffer> bare = await(call(HttpMethod.POST, "/api/v1/silences").putHeader("Cookie", ana.cookie())
                .sendJsonObject(SILENCE));
        assertEquals(403, bare.statusCode());
        assertTrue(bare.bodyAsString().contains("X-CSRF-Token"), bare.bodyAsString());
        assertEquals(403, await(call(HttpMethod.POST, "/api/v1/silences").putHeader("Cookie", ana.cookie())
                .putHeader("X-CSRF-Token", ana.csrf() + "x").sendJsonObject(SILENCE)).statusCode());
        assertEquals(403, await(call(HttpMethod.POST, "/api/v1/silences").putHeader("Cookie", ana.cookie())
                .putHeader("X-CSRF-Token", ana.csrf()).putHeader("Origin", "https://evil.example")
                .sendJsonObject(SILENCE)).statusCode());
        HttpResponse<Buffer> made = await(call(HttpMethod.POST, "/api/v1/silences").putHeader("Cookie", ana.cookie())
                .putHeader("X-CSRF-Token", ana.csrf()).sendJsonObject(SILENCE));
        assertEquals(201, made.statusCode(), made.bodyAsString());

        // a viewer's session with its CSRF token still may not change anything
        Login dash = login(VIEWER);
        assertFalse(dash.body().getJsonObject("may").getBoolean("change"));
        assertEquals(403, await(call(HttpMethod.POST, "/api/v1/silences").putHeader("Cookie", dash.cookie())
                .putHeader("X-CSRF-Token", dash.csrf()).sendJsonObject(SILENCE)).statusCode());
        // nor may a page elsewhere log in
        assertEquals(403, await(call(HttpMethod.POST, "/api/v1/session").putHeader("Origin", "https://evil.example")
                .sendJsonObject(new JsonObject().put("token", OPERATOR))).statusCode());
    }

    @Test
    void aSessionEndsAtLogoutWhenIdleAndWhenItsTokenIsRevoked() throws Exception {
        Login first = login(OPERATOR);
        assertEquals(403, await(call(HttpMethod.DELETE, "/api/v1/session").putHeader("Cookie", first.cookie())
                .send()).statusCode(), "logging out is a change too");
        HttpResponse<Buffer> out = await(call(HttpMethod.DELETE, "/api/v1/session")
                .putHeader("Cookie", first.cookie()).putHeader("X-CSRF-Token", first.csrf()).send());
        assertEquals(200, out.statusCode());
        assertTrue(out.cookies().get(0).contains("Max-Age=0"), out.cookies().toString());
        assertEquals(401, await(call(HttpMethod.GET, "/api/v1/session").putHeader("Cookie", first.cookie()).send())
                .statusCode());
        assertEquals(409, await(call(HttpMethod.DELETE, "/api/v1/session").bearerTokenAuthentication(OPERATOR)
                .send()).statusCode(), "a bearer token has no session to end");

        Login idle = login(OPERATOR);
        now[0] += Sessions.IDLE_MS - 1;
        assertEquals(200, await(call(HttpMethod.GET, "/api/v1/session").putHeader("Cookie", idle.cookie()).send())
                .statusCode(), "used just in time, so it lives on");
        now[0] += Sessions.IDLE_MS + 1;
        assertEquals(401, await(call(HttpMethod.GET, "/api/v1/session").putHeader("Cookie", idle.cookie()).send())
                .statusCode(), "idle too long");

        Login revoked = login(OPERATOR);
        tokens.set(ApiTokens.of(List.of(ApiTokens.entry(VIEWER, Role.VIEWER, "dash"))));
        assertEquals(401, await(call(HttpMethod.GET, "/api/v1/session").putHeader("Cookie", revoked.cookie())
                .send()).statusCode(), "its token is gone from the file");
        // a token of the same name but another secret does not bring the session back
        tokens.set(ApiTokens.of(List.of(ApiTokens.entry("another-secret", Role.OPERATOR, "ana"))));
        assertEquals(401, await(call(HttpMethod.GET, "/api/v1/session").putHeader("Cookie", revoked.cookie())
                .send()).statusCode());
    }

    @Test
    void theFleetCardAndTaskEndpointsGiveWhatTheHeatmapAndChartsDraw() throws Exception {
        ProcessInfo train = new ProcessInfo(1, null, "train-7", "team-llm", "chat");
        await(g.onEventLoop(() -> {
            g.fleet().hello(new Hello(1, "gpu-1", "b1", "test", null, null, Map.of("cluster", "bj-1", "pool", "train"),
                    List.of(new CardInfo("GPU-a", 0, "H100", null, 80_000_000_000L, null, null, null),
                            new CardInfo("GPU-b", 1, "H100", null, 80_000_000_000L, null, null, null))), T0);
            for (int s = 0; s < 3; s++) {
                long at = T0 + s * 30_000L;
                g.fleet().sample("gpu-1", new Sample(s + 1, at, List.of(
                        new CardReading("GPU-a", MetricValues.builder().set(Metric.GPU_UTIL, 90 + s)
                                .set(Metric.TEMP_C, 70).set(Metric.MEM_USED_BYTES, 40_000_000_000.0)
                                .set(Metric.CLOCK_EVENT_REASONS, 0x40).build(), List.of(train)),
                        new CardReading("GPU-b", MetricValues.builder().set(Metric.GPU_UTIL, 0).build(),
                                List.of()))), at, c -> { });
            }
            return null;
        }));
        now[0] = T0 + 60_000;
        JsonObject fleet = await(call(HttpMethod.GET, "/api/v1/fleet?metric=memUsed").bearerTokenAuthentication(VIEWER)
                .send()).bodyAsJsonObject();
        JsonObject node = fleet.getJsonArray("nodes").getJsonObject(0);
        assertEquals("gpu-1", node.getString("name"));
        assertEquals("bj-1", node.getJsonObject("labels").getString("cluster"));
        JsonArray a = node.getJsonArray("cards").getJsonArray(0);
        assertEquals("GPU-a", a.getString(1));
        assertEquals(50.0, a.getDouble(2), "memory used as a share of the card's 80 GB");
        assertEquals("train-7", fleet.getJsonArray("strings").getString(a.getInteger(3)));
        assertEquals("team-llm", fleet.getJsonArray("strings").getString(a.getInteger(4)));
        assertNull(node.getJsonArray("cards").getJsonArray(1).getValue(2), "no memory reading, no value");
        assertEquals(1.0, await(call(HttpMethod.GET, "/api/v1/fleet?metric=throttling").bearerTokenAuthentication(
                VIEWER).send()).bodyAsJsonObject().getJsonArray("nodes").getJsonObject(0).getJsonArray("cards")
                .getJsonArray(0).getDouble(2), "hardware thermal slowdown is throttling");
        HttpResponse<Buffer> bad = await(call(HttpMethod.GET, "/api/v1/fleet?metric=vibes")
                .bearerTokenAuthentication(VIEWER).send());
        assertEquals(400, bad.statusCode());
        assertTrue(bad.bodyAsString().contains("gpuUtil"), bad.bodyAsString());

        JsonObject card = await(call(HttpMethod.GET, "/api/v1/fleet/gpu-1/GPU-a").bearerTokenAuthentication(VIEWER)
                .send()).bodyAsJsonObject();
        assertEquals("train-7", card.getString("task"));
        JsonArray util = card.getJsonObject("series").getJsonObject("metrics").getJsonArray("gpuUtil");
        assertEquals(180, util.size());
        // readings at 0 s, 30 s and 60 s fall in 20 s slots 0, 1 and 3 of the last four; slot 2 had none
        assertEquals(92.0, util.getDouble(179));
        assertNull(util.getValue(178));
        assertEquals(91.0, util.getDouble(177));
        assertEquals(90.0, util.getDouble(176));
        assertEquals(404, await(call(HttpMethod.GET, "/api/v1/fleet/gpu-1/GPU-z").bearerTokenAuthentication(VIEWER)
                .send()).statusCode());

        JsonObject tasks = await(call(HttpMethod.GET, "/api/v1/tasks").bearerTokenAuthentication(VIEWER).send())
                .bodyAsJsonObject();
        JsonObject t = tasks.getJsonArray("tasks").getJsonObject(0);
        assertEquals("train-7", t.getString("name"));
        assertEquals("team-llm", t.getString("owner"));
        assertEquals("GPU-a", t.getJsonArray("cards").getJsonObject(0).getString("uuid"));
        assertEquals(0.0, t.getDouble("idleRatio"));
        assertNull(t.getValue("effectiveComputeRatio"), "no model declared: unknown, not 0");
        assertNull(t.getValue("requestedVsUsed"), "no scheduler listing: unknown, not 0");
        assertEquals(401, await(call(HttpMethod.GET, "/api/v1/fleet").send()).statusCode());
        assertEquals(401, await(call(HttpMethod.GET, "/api/v1/fleet/gpu-1/GPU-a").send()).statusCode());
        assertEquals(401, await(call(HttpMethod.GET, "/api/v1/tasks").send()).statusCode());
    }

    @Test
    void aRulePreviewReplaysTheGatewaysRecentFramesWithoutTouchingTheRunningRules() throws Exception {
        await(g.onEventLoop(() -> {
            g.hello(new Hello(1, "gpu-1", "b1", "test", null, null, Map.of(),
                    List.of(new CardInfo("GPU-a", 0, "H100", null, null, null, null, null))));
            for (int s = 0; s <= 120; s++) {
                long at = T0 + s * 1000L;
                g.frame("gpu-1", new Sample(s + 1, at, List.of(new CardReading("GPU-a",
                        MetricValues.builder().set(Metric.GPU_UTIL, s < 30 ? 10 : 95).build(), List.of()))));
            }
            return null;
        }));
        String rule = "group: preview\nlayer: device\nscope: card\nrules:\n  - name: busy\n    severity: ticket\n"
                + "    when: gpuUtil > 90\n    for: 20s\n    summary: busy @{node}\n";
        Login ana = login(OPERATOR);
        HttpResponse<Buffer> r = await(call(HttpMethod.POST, "/api/v1/rules/preview").putHeader("Cookie", ana.cookie())
                .putHeader("X-CSRF-Token", ana.csrf()).sendJsonObject(new JsonObject().put("rules", rule)));
        assertEquals(200, r.statusCode(), r.bodyAsString());
        JsonObject preview = r.bodyAsJsonObject();
        assertEquals(Instant.ofEpochMilli(T0).toString(), preview.getString("from"));
        assertEquals(122, preview.getInteger("frames"), "the hello and 121 samples");
        JsonArray alerts = preview.getJsonArray("alerts");
        assertEquals(1, alerts.size(), alerts.encodePrettily());
        JsonObject busy = alerts.getJsonObject(0);
        assertEquals("busy", busy.getString("rule"));
        assertEquals("GPU-a", busy.getJsonObject("labels").getString("uuid"));
        assertTrue(busy.getBoolean("stillFiring"));
        // busy from 30 s, firing once it held for 20 s more
        assertEquals(Instant.ofEpochMilli(T0 + 50_000).toString(), busy.getString("from"));
        // the running rules are untouched: the gateway has none, and fired nothing
        assertEquals(0, await(call(HttpMethod.GET, "/api/v1/alerts").bearerTokenAuthentication(VIEWER).send())
                .bodyAsJsonObject().getInteger("total"));

        HttpResponse<Buffer> bad = await(call(HttpMethod.POST, "/api/v1/rules/preview")
                .bearerTokenAuthentication(OPERATOR).sendJsonObject(new JsonObject()
                        .put("rules", rule.replace("gpuUtil > 90", "gpuUtill > 90"))));
        assertEquals(400, bad.statusCode());
        assertTrue(bad.bodyAsJsonObject().getJsonArray("diagnostics").getJsonObject(0).getString("text")
                .contains("preview.yml:"), bad.bodyAsString());
        assertEquals(403, await(call(HttpMethod.POST, "/api/v1/rules/preview").bearerTokenAuthentication(VIEWER)
                .sendJsonObject(new JsonObject().put("rules", rule))).statusCode());
    }

    @Test
    void theLiveStreamSendsTheAlertsAndEndsWithItsSession(Vertx vertx) throws Exception {
        Login ana = login(OPERATOR);
        StringBuilder got = new StringBuilder();
        Promise<Void> first = Promise.promise();
        Promise<Void> ended = Promise.promise();
        HttpClient http = vertx.createHttpClient();
        await(http.request(HttpMethod.GET, g.port(), "127.0.0.1", "/api/v1/events")
                .compose(req -> req.putHeader("Cookie", ana.cookie()).send())
                .onSuccess(res -> {
                    assertEquals("text/event-stream; charset=utf-8", res.getHeader("Content-Type"));
                    res.handler(chunk -> {
                        got.append(chunk.toString());
                        if (got.indexOf("event: alerts") >= 0) {
                            first.tryComplete();
                        }
                    });
                    res.endHandler(v -> ended.tryComplete());
                }));
        await(first.future());
        assertTrue(got.toString().contains("data: {\"alerts\":[],\"total\":0}"), got.toString());
        assertEquals(200, await(call(HttpMethod.DELETE, "/api/v1/session").putHeader("Cookie", ana.cookie())
                .putHeader("X-CSRF-Token", ana.csrf()).send()).statusCode());
        await(ended.future());
        assertTrue(got.toString().endsWith("event: ended\ndata: {}\n\n"), got.toString());
        assertEquals(401, await(call(HttpMethod.GET, "/api/v1/events").putHeader("Cookie", ana.cookie()).send())
                .statusCode());
    }
}
