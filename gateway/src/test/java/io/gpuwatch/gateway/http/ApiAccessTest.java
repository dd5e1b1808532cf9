package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.ApiTokens;
import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.reload.RuleFiles;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Who may do what over HTTP: 401 without a token, 403 below the role, the audit log of every change, a page
 * elsewhere refused, bodies only as JSON, and the limits on size, rate and page length.
 */
@ExtendWith(VertxExtension.class)
class ApiAccessTest {
    private static final long T0 = 1_764_700_000_000L;
    private static final String VIEWER = "viewer-token";
    private static final String OPERATOR = "operator-token";
    private static final String ADMIN = "admin-token";
    private static final String GRAFANA = "https://grafana.example.com";
    private static final ApiTokens TOKENS = ApiTokens.of(List.of(ApiTokens.entry(VIEWER, Role.VIEWER, "dash"),
            ApiTokens.entry(OPERATOR, Role.OPERATOR, "ana"), ApiTokens.entry(ADMIN, Role.ADMIN, "root")));
    private static final JsonObject SILENCE = new JsonObject().put("matchers", new JsonArray().add("node=\"gpu-7\""))
            .put("endsAt", "2030-01-01T00:00:00Z").put("createdBy", "ana").put("comment", "re-cabling");

    @TempDir
    Path dir;

    private RuleSet rules;
    private WebClient web;

    @BeforeEach
    void setUp(Vertx vertx) {
        // no rule is needed: the alerts and silences here are only what the test makes through the API
        RuleLoad load = RuleSet.parse("access.yml", "group: access\nlayer: device\nscope: card\nrules: []\n");
        assertTrue(load.ok(), load.diagnostics().toString());
        rules = load.ruleSet();
        web = WebClient.create(vertx);
    }

    /** A gateway on {@code host} with a store, a clock that stands still and {@code access}. */
    private Future<Gateway> deploy(Vertx vertx, String host, ApiAccess access) {
        Gateway g = new Gateway(new GatewayConfig(host, 0, IngestConfig.DEFAULTS, 3_600_000, "http://localhost")
                .withDataDir(dir.resolve("data")), rules, RuleFiles.none(), () -> null, List.of(),
                () -> Instant.ofEpochMilli(T0)).access(access);
        return vertx.deployVerticle(g).map(id -> g);
    }

    private Gateway start(Vertx vertx, ApiAccess access) throws Exception {
        return await(deploy(vertx, "127.0.0.1", access));
    }

    private static ApiAccess tokens(boolean metricsOpen, int burst) {
        return new ApiAccess(() -> TOKENS, Set.of(GRAFANA), metricsOpen, 1, burst);
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private HttpRequest<Buffer> call(Gateway g, HttpMethod method, String path, String token) {
        HttpRequest<Buffer> r = web.request(method, g.port(), "127.0.0.1", path);
        return token == null ? r : r.bearerTokenAuthentication(token);
    }

    private HttpResponse<Buffer> send(Gateway g, HttpMethod method, String path, String token) throws Exception {
        return await(call(g, method, path, token).send());
    }

    private HttpResponse<Buffer> silence(Gateway g, String token) throws Exception {
        return await(call(g, HttpMethod.POST, "/api/v1/silences", token).sendJsonObject(SILENCE));
    }

    @Test
    void eachEndpointClassWantsItsRoleAndHealthStaysOpen(Vertx vertx) throws Exception {
        Gateway g = start(vertx, tokens(false, 1000));
        assertEquals(200, send(g, HttpMethod.GET, "/-/healthy", null).statusCode());
        assertEquals(200, send(g, HttpMethod.GET, "/-/ready", null).statusCode());

        for (String path : List.of("/api/v1/alerts", "/api/v1/alerts/history", "/api/v1/silences", "/api/v1/groups",
                "/api/v1/rules", "/metrics", "/metrics/gpus", "/api/v1/nothing-here")) {
            HttpResponse<Buffer> none = send(g, HttpMethod.GET, path, null);
            assertEquals(401, none.statusCode(), path);
            assertEquals("Bearer realm=\"gpuwatch\"", none.getHeader("WWW-Authenticate"), path);
            assertEquals(401, send(g, HttpMethod.GET, path, "not-a-token").statusCode(), path);
            assertEquals(path.endsWith("nothing-here") ? 404 : 200, send(g, HttpMethod.GET, path, VIEWER).statusCode(),
                    path);
        }
        assertEquals(401, silence(g, null).statusCode());
        HttpResponse<Buffer> refused = silence(g, VIEWER);
        assertEquals(403, refused.statusCode());
        assertTrue(refused.bodyAsString().contains("token dash has role viewer; this needs operator"),
                refused.bodyAsString());
        HttpResponse<Buffer> made = silence(g, OPERATOR);
        assertEquals(201, made.statusCode(), made.bodyAsString());
        String id = made.bodyAsJsonObject().getString("id");
        assertEquals(403, send(g, HttpMethod.DELETE, "/api/v1/silences/" + id, VIEWER).statusCode());
        assertEquals(200, send(g, HttpMethod.DELETE, "/api/v1/silences/" + id, OPERATOR).statusCode());
        HttpResponse<Buffer> ack = await(call(g, HttpMethod.POST, "/api/v1/alerts/f00/ack", VIEWER)
                .sendJsonObject(new JsonObject().put("by", "ana")));
        assertEquals(403, ack.statusCode());
        // the operator passes the check and learns the alert is not live
        assertEquals(404, await(call(g, HttpMethod.POST, "/api/v1/alerts/f00/ack", OPERATOR)
                .sendJsonObject(new JsonObject().put("by", "ana"))).statusCode());

        assertEquals(401, send(g, HttpMethod.POST, "/-/reload", null).statusCode());
        assertEquals(403, send(g, HttpMethod.POST, "/-/reload", OPERATOR).statusCode());
        // past the check: this gateway runs a fixed rule set
        assertEquals(409, send(g, HttpMethod.POST, "/-/reload", ADMIN).statusCode());
        assertEquals(403, send(g, HttpMethod.GET, "/api/v1/audit", OPERATOR).statusCode());

        JsonObject audit = send(g, HttpMethod.GET, "/api/v1/audit", ADMIN).bodyAsJsonObject();
        assertEquals(2, audit.getLong("total"), audit.encodePrettily());
        JsonObject expired = audit.getJsonArray("entries").getJsonObject(0);
        JsonObject created = audit.getJsonArray("entries").getJsonObject(1);
        assertEquals("silence.expire", expired.getString("action"));
        assertEquals("silence.create", created.getString("action"));
        for (JsonObject e : List.of(expired, created)) {
            assertEquals("ana", e.getString("who"));
            assertEquals(id, e.getString("target"));
            assertEquals("127.0.0.1", e.getString("remote"));
            assertEquals(Instant.ofEpochMilli(T0).toString(), e.getString("at"));
        }
        assertTrue(created.getString("detail").contains("node=\"gpu-7\""), created.getString("detail"));
        JsonObject second = send(g, HttpMethod.GET, "/api/v1/audit?limit=1&offset=1", ADMIN).bodyAsJsonObject();
        assertEquals(1, second.getJsonArray("entries").size());
        assertEquals("silence.create", second.getJsonArray("entries").getJsonObject(0).getString("action"));
    }

    @Test
    void metricsAreOpenUnlessToldOtherwise(Vertx vertx) throws Exception {
        Gateway g = start(vertx, tokens(true, 1000));
        assertEquals(200, send(g, HttpMethod.GET, "/metrics", null).statusCode());
        assertEquals(200, send(g, HttpMethod.GET, "/metrics/gpus", null).statusCode());
        assertEquals(401, send(g, HttpMethod.GET, "/api/v1/alerts", null).statusCode());
    }

    @Test
    void aPageElsewhereCannotChangeAnythingAndBodiesAreJsonOnly(Vertx vertx) throws Exception {
        Gateway g = start(vertx, tokens(false, 1000));
        // the classic cross-site form post: text/plain, which a browser sends without asking first
        HttpResponse<Buffer> csrf = await(call(g, HttpMethod.POST, "/api/v1/silences", OPERATOR)
                .putHeader("Origin", "https://evil.example").putHeader("Content-Type", "text/plain")
                .sendBuffer(Buffer.buffer(SILENCE.encode())));
        assertEquals(403, csrf.statusCode(), csrf.bodyAsString());
        assertTrue(csrf.bodyAsString().contains("--cors-origin https://evil.example"), csrf.bodyAsString());
        assertEquals(403, await(call(g, HttpMethod.GET, "/api/v1/alerts", VIEWER)
                .putHeader("Origin", "null").send()).statusCode());
        HttpResponse<Buffer> text = await(call(g, HttpMethod.POST, "/api/v1/silences", OPERATOR)
                .putHeader("Content-Type", "text/plain").sendBuffer(Buffer.buffer(SILENCE.encode())));
        assertEquals(415, text.statusCode());
        assertEquals(415, await(call(g, HttpMethod.POST, "/-/reload", ADMIN)
                .putHeader("Content-Type", "application/x-www-form-urlencoded").sendBuffer(Buffer.buffer("a=b")))
                .statusCode());

        // the gateway's own origin, and a listed one, which alone gets CORS headers
        HttpResponse<Buffer> own = await(call(g, HttpMethod.POST, "/api/v1/silences", OPERATOR)
                .putHeader("Origin", "http://127.0.0.1:" + g.port()).sendJsonObject(SILENCE));
        assertEquals(201, own.statusCode(), own.bodyAsString());
        assertNull(own.getHeader("Access-Control-Allow-Origin"));
        HttpResponse<Buffer> listed = await(call(g, HttpMethod.POST, "/api/v1/silences", OPERATOR)
                .putHeader("Origin", GRAFANA).sendJsonObject(SILENCE));
        assertEquals(201, listed.statusCode(), listed.bodyAsString());
        assertEquals(GRAFANA, listed.getHeader("Access-Control-Allow-Origin"));
        HttpResponse<Buffer> preflight = await(call(g, HttpMethod.OPTIONS, "/api/v1/silences", null)
                .putHeader("Origin", GRAFANA).putHeader("Access-Control-Request-Method", "POST").send());
        assertEquals(204, preflight.statusCode());
        assertTrue(preflight.getHeader("Access-Control-Allow-Headers").contains("Authorization"));
        assertEquals(403, await(call(g, HttpMethod.OPTIONS, "/api/v1/silences", null)
                .putHeader("Origin", "https://evil.example").send()).statusCode());
    }

    @Test
    void bodySizeRateAndPageLengthAreLimitedAndABadParameterIsNamed(Vertx vertx) throws Exception {
        Gateway g = start(vertx, tokens(false, 8));
        for (int i = 0; i < 3; i++) {
            assertEquals(201, silence(g, OPERATOR).statusCode());
        }
        JsonObject page = send(g, HttpMethod.GET, "/api/v1/silences?limit=2&offset=1", VIEWER).bodyAsJsonObject();
        assertEquals(3, page.getInteger("total"));
        assertEquals(2, page.getJsonArray("silences").size());
        HttpResponse<Buffer> bad = send(g, HttpMethod.GET, "/api/v1/alerts?limit=0", VIEWER);
        assertEquals(400, bad.statusCode());
        assertEquals("limit", bad.bodyAsJsonObject().getString("field"));
        assertEquals("offset", send(g, HttpMethod.GET, "/api/v1/groups?offset=x", VIEWER).bodyAsJsonObject()
                .getString("field"));

        String big = "x".repeat(70 * 1024);
        HttpResponse<Buffer> huge = await(call(g, HttpMethod.POST, "/api/v1/silences", OPERATOR)
                .sendJsonObject(SILENCE.copy().put("comment", big)));
        assertEquals(413, huge.statusCode());

        // 8 at once, then the clock stands still, so nothing refills: the operator's ninth call is one too many
        for (int i = 4; i < 8; i++) {
            assertEquals(200, send(g, HttpMethod.GET, "/api/v1/silences", OPERATOR).statusCode(), "call " + (i + 1));
        }
        HttpResponse<Buffer> over = send(g, HttpMethod.GET, "/api/v1/silences", OPERATOR);
        assertEquals(429, over.statusCode(), over.bodyAsString());
        assertEquals("1", over.getHeader("Retry-After"));
        // each token has a budget of its own
        assertEquals(200, send(g, HttpMethod.GET, "/api/v1/silences", ADMIN).statusCode());
    }

    @Test
    void anOpenApiRefusesAPublicAddressAndAnswersOnlyThisMachine(Vertx vertx) throws Exception {
        ExecutionException refused = assertThrows(ExecutionException.class,
                () -> await(deploy(vertx, "0.0.0.0", ApiAccess.open())));
        assertTrue(refused.getCause().getMessage().contains("refusing to listen on 0.0.0.0 with no API tokens"),
                refused.getCause().getMessage());

        Gateway g = start(vertx, ApiAccess.open());
        assertEquals(201, silence(g, null).statusCode());
        // a page whose own name was made to point here still names itself in Host
        HttpResponse<Buffer> rebound = await(call(g, HttpMethod.GET, "/api/v1/silences", null)
                .virtualHost("evil.example").send());
        assertEquals(401, rebound.statusCode());
        JsonObject audit = send(g, HttpMethod.GET, "/api/v1/audit", null).bodyAsJsonObject();
        assertEquals("local", audit.getJsonArray("entries").getJsonObject(0).getString("who"));
    }

    @Test
    void onlyLoopbackNamesCountAsThisMachine() {
        for (String host : List.of("localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]", "LOCALHOST")) {
            assertTrue(AccessGuard.loopbackHost(host), host);
        }
        for (String host : List.of("evil.example", "127.0.0.1.evil.example", "10.0.0.1", "localhost.evil.example")) {
            assertTrue(!AccessGuard.loopbackHost(host), host);
        }
    }

    @Test
    void aGatewayWithTokensMayListenOnEveryAddress(Vertx vertx) throws Exception {
        Gateway g = await(deploy(vertx, "0.0.0.0", tokens(true, 10)));
        assertEquals(401, send(g, HttpMethod.GET, "/api/v1/alerts", null).statusCode());
    }
}
