package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.ApiTokens;
import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.reload.RuleFiles;
import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.gateway.route.RoutingLoad;
import io.gpuwatch.notify.Acknowledging;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operators' API against a gateway with a store, API tokens and a probe: alerts by labels and state (firing,
 * pending, silenced, inhibited, acknowledged), one alert's timeline and deliveries, taking an acknowledgement
 * back, a silence's preview, the receivers' health and the status.
 */
@ExtendWith(VertxExtension.class)
class OperatorApiTest {
    private static final long T0 = 1_764_700_000_000L;
    private static final String PROBE = "operator-api-probe";
    private static final String VIEWER = "viewer-token";
    private static final String OPERATOR = "operator-token";
    private static final String ADMIN = "admin-token";
    private static final ApiTokens TOKENS = ApiTokens.of(List.of(ApiTokens.entry(VIEWER, Role.VIEWER, "dash"),
            ApiTokens.entry(OPERATOR, Role.OPERATOR, "ana"), ApiTokens.entry(ADMIN, Role.ADMIN, "root")));
    /** Acks every 20 ms, so waiting for one is quick. */
    private static final IngestConfig FAST_ACKS = new IngestConfig(64 * 1024, 50, 200, 64, 3, 10_000, 20, 1000);

    /** A pager that fails the first send telling of {@code too-hot}, and remembers what it was told. */
    private static final class Pager implements Receiver, Acknowledging {
        final List<Notification> delivered = new CopyOnWriteArrayList<>();
        final List<String> unacked = new CopyOnWriteArrayList<>();
        final AtomicBoolean failedOnce = new AtomicBoolean();

        @Override
        public String name() {
            return "pager";
        }

        @Override
        public Future<Void> send(List<Notification> batch) {
            boolean tooHot = batch.stream().anyMatch(n -> n.labels().get("alertname").equals("too-hot"));
            if (tooHot && failedOnce.compareAndSet(false, true)) {
                return Future.failedFuture("pager answered 503");
            }
            delivered.addAll(batch);
            return Future.succeededFuture();
        }

        @Override
        public Future<Void> acknowledge(String fingerprint) {
            return Future.succeededFuture();
        }

        @Override
        public Future<Void> unacknowledge(String fingerprint) {
            unacked.add(fingerprint);
            return Future.succeededFuture();
        }
    }

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(T0);
    private final Pager pager = new Pager();
    private final BlockingQueue<JsonObject> fromGateway = new LinkedBlockingQueue<>();
    private Gateway gateway;
    private WebClient web;
    private WebSocketClient wsClient;
    private WebSocket ws;
    private long seq;

    @BeforeEach
    void start(Vertx vertx) throws Exception {
        RuleLoad rules = RuleSet.parse("ops.yml", """
                group: ops
                layer: device
                scope: card
                rules:
                  - name: too-hot
                    severity: page
                    when: tempC > 85
                    summary: "too hot"
                  - name: hot
                    severity: ticket
                    when: tempC > 80
                  - name: warming
                    severity: ticket
                    when: tempC > 70
                    for: 1h
                """);
        assertTrue(rules.ok(), rules.diagnostics().toString());
        RoutingLoad routing = RoutingConfig.parse("routes.yml", """
                route:
                  receiver: pager
                  group_by: [alertname, uuid]
                  group_wait: 0s
                  group_interval: 1s
                builtin_inhibit_rules: false
                inhibit_rules:
                  - source_matchers: ['alertname="too-hot"']
                    target_matchers: ['alertname="hot"']
                    equal: [uuid]
                """, Set.of("pager"));
        assertTrue(routing.ok(), routing.diagnostics().toString());
        TokenFile probes = TokenFile.of(List.of(TokenFile.entry(PROBE, "node-*")));
        gateway = new Gateway(new GatewayConfig("127.0.0.1", 0, FAST_ACKS, 3_600_000, "http://localhost")
                .withDataDir(dir.resolve("data")), rules.ruleSet(), RuleFiles.none(), () -> probes, List.of(pager),
                routing.config(), () -> Instant.ofEpochMilli(now.get()))
                .access(new ApiAccess(() -> TOKENS, Set.of(), true, 1000, 1000));
        await(vertx.deployVerticle(gateway));
        web = WebClient.create(vertx);
        WebSocketConnectOptions o = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(gateway.port())
                .setURI("/v1/probe").addHeader("Authorization", "Bearer " + PROBE);
        wsClient = vertx.createWebSocketClient();
        ws = await(wsClient.connect(o).onSuccess(s -> s.textMessageHandler(t -> fromGateway.add(new JsonObject(t)))));
        ws.writeTextMessage("{\"type\":\"hello\",\"v\":1,\"seq\":0,\"node\":\"node-1\",\"bootId\":\"boot-1\","
                + "\"cards\":[{\"uuid\":\"GPU-1\",\"index\":0,\"name\":\"H100\"},"
                + "{\"uuid\":\"GPU-2\",\"index\":1,\"name\":\"H100\"},{\"uuid\":\"GPU-3\",\"index\":2,\"name\":\"H100\"}]}");
        assertNotNull(fromGateway.poll(10, TimeUnit.SECONDS), "no welcome");
    }

    @AfterEach
    void stop() throws Exception {
        await(ws.close());
    }

    /** One second later, a sample with these card temperatures, evaluated by the time this returns. */
    private void sample(double t1, double t2, double t3) throws Exception {
        long at = now.addAndGet(1000);
        long s = ++seq;
        ws.writeTextMessage("{\"type\":\"sample\",\"seq\":" + s + ",\"ts\":" + at + ",\"cards\":["
                + "{\"uuid\":\"GPU-1\",\"tempC\":" + t1 + "},{\"uuid\":\"GPU-2\",\"tempC\":" + t2 + "},"
                + "{\"uuid\":\"GPU-3\",\"tempC\":" + t3 + "}]}");
        while (true) {
            JsonObject f = fromGateway.poll(10, TimeUnit.SECONDS);
            assertNotNull(f, "no ack for sample " + s);
            if ("ack".equals(f.getString("type")) && f.getLong("seq") >= s) {
                return;
            }
        }
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static void eventually(BooleanSupplier done, String what) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (!done.getAsBoolean()) {
            assertTrue(System.currentTimeMillis() < deadline, "timed out waiting for " + what);
            Thread.sleep(20);
        }
    }

    private HttpRequest<Buffer> call(HttpMethod method, String path, String token) {
        HttpRequest<Buffer> r = web.request(method, gateway.port(), "127.0.0.1", path);
        return token == null ? r : r.bearerTokenAuthentication(token);
    }

    private HttpResponse<Buffer> send(HttpMethod method, String path, String token, JsonObject body) throws Exception {
        HttpRequest<Buffer> r = call(method, path, token);
        return await(body == null ? r.send() : r.sendJsonObject(body));
    }

    private JsonObject get(String path) throws Exception {
        HttpResponse<Buffer> r = send(HttpMethod.GET, path, VIEWER, null);
        assertEquals(200, r.statusCode(), path + ": " + r.bodyAsString());
        return r.bodyAsJsonObject();
    }

    /** The pager's health as the receivers' API has it. */
    private JsonObject receiver() {
        try {
            return get("/api/v1/receivers").getJsonArray("receivers").getJsonObject(0);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String q(String matcher) {
        return URLEncoder.encode(matcher, StandardCharsets.UTF_8);
    }

    /** The listed alerts as {@code rule uuid state}, sorted. */
    private static List<String> listed(JsonObject answer) {
        return answer.getJsonArray("alerts").stream().map(JsonObject.class::cast)
                .map(a -> a.getString("rule") + " " + a.getJsonObject("labels").getString("uuid") + " "
                        + a.getString("state")).sorted().toList();
    }

    private JsonObject alert(String rule, String uuid) throws Exception {
        return get("/api/v1/alerts?state=firing&state=pending&filter=" + q("alertname=\"" + rule + "\"") + "&filter="
                + q("uuid=\"" + uuid + "\"")).getJsonArray("alerts").getJsonObject(0);
    }

    private static JsonObject silence(String matcher) {
        return new JsonObject().put("matchers", new JsonArray().add(matcher)).put("endsAt", "2030-01-01T00:00:00Z")
                .put("createdBy", "ana").put("comment", "maintenance");
    }

    @Test
    void alertsAreChosenByLabelsAndByEachState() throws Exception {
        // GPU-1: too-hot fires and inhibits its hot; GPU-2: hot fires; all three warm up, pending for an hour
        sample(90, 82, 75);
        assertEquals(201, send(HttpMethod.POST, "/api/v1/silences", OPERATOR, silence("uuid=\"GPU-2\"")).statusCode());
        String tooHot = alert("too-hot", "GPU-1").getString("fingerprint");
        assertEquals(200, send(HttpMethod.POST, "/api/v1/alerts/" + tooHot + "/ack", OPERATOR,
                new JsonObject().put("by", "ana")).statusCode());

        JsonObject firing = get("/api/v1/alerts");
        assertEquals(List.of("hot GPU-1 firing", "hot GPU-2 firing", "too-hot GPU-1 firing"), listed(firing),
                "without a state, the firing alerts as before");
        assertEquals(3, firing.getInteger("total"));
        assertEquals(List.of("warming GPU-1 pending", "warming GPU-2 pending", "warming GPU-3 pending"),
                listed(get("/api/v1/alerts?state=pending")));
        JsonObject silenced = get("/api/v1/alerts?state=silenced");
        assertEquals(List.of("hot GPU-2 firing", "warming GPU-2 pending"), listed(silenced));
        String silenceId = get("/api/v1/silences").getJsonArray("silences").getJsonObject(0).getString("id");
        silenced.getJsonArray("alerts").forEach(a -> assertEquals(List.of(silenceId),
                ((JsonObject) a).getJsonArray("silencedBy").getList()));
        JsonObject inhibited = get("/api/v1/alerts?state=inhibited");
        assertEquals(List.of("hot GPU-1 firing"), listed(inhibited));
        assertEquals(List.of(tooHot), inhibited.getJsonArray("alerts").getJsonObject(0).getJsonArray("inhibitedBy")
                .getList());
        JsonObject acked = get("/api/v1/alerts?state=acknowledged");
        assertEquals(List.of("too-hot GPU-1 firing"), listed(acked));
        assertEquals("ana", acked.getJsonArray("alerts").getJsonObject(0).getJsonObject("acked").getString("by"));
        assertEquals(List.of("hot GPU-1 firing", "too-hot GPU-1 firing", "warming GPU-1 pending"),
                listed(get("/api/v1/alerts?state=firing&state=pending&filter=" + q("uuid=\"GPU-1\""))));
        assertEquals(List.of("hot GPU-2 firing"), listed(get("/api/v1/alerts?filter=" + q("alertname=~\"hot|too-hot\"")
                + "&filter=" + q("uuid!=\"GPU-1\""))), "every filter must match");
        assertEquals(List.of("hot GPU-1 firing", "hot GPU-2 firing"),
                listed(get("/api/v1/alerts?filter=" + q("{severity=\"ticket\", uuid=~\"GPU-[12]\"}"))),
                "a filter may be a braced list");
        JsonObject page = get("/api/v1/alerts?state=pending&limit=1&offset=1");
        assertEquals(3, page.getInteger("total"));
        assertEquals(List.of("warming GPU-2 pending"), listed(page));
        JsonObject pending = alert("warming", "GPU-3");
        assertEquals(Instant.ofEpochMilli(T0 + 1000).toString(), pending.getJsonObject("times").getString("activeSince"));
        assertNull(pending.getValue("firedAt"));

        HttpResponse<Buffer> badFilter = send(HttpMethod.GET, "/api/v1/alerts?filter=" + q("uuid==\"GPU-1\""), VIEWER,
                null);
        assertEquals(400, badFilter.statusCode());
        assertEquals("filter", badFilter.bodyAsJsonObject().getString("field"));
        HttpResponse<Buffer> badState = send(HttpMethod.GET, "/api/v1/alerts?state=burning", VIEWER, null);
        assertEquals(400, badState.statusCode());
        assertEquals("state", badState.bodyAsJsonObject().getString("field"));
        assertTrue(badState.bodyAsString().contains("firing, pending, silenced, inhibited, acknowledged"),
                badState.bodyAsString());
        assertEquals("state", send(HttpMethod.GET, "/api/v1/alerts/history?state=firing", VIEWER, null)
                .bodyAsJsonObject().getString("field"));
        assertEquals(401, send(HttpMethod.GET, "/api/v1/alerts?state=pending", null, null).statusCode());
    }

    @Test
    void anAlertShowsItsTimelineAndADeliveryThatFailedThenWentThroughAndStaysReadableOnceResolved()
            throws Exception {
        sample(90, 40, 40);
        String fp = alert("too-hot", "GPU-1").getString("fingerprint");
        eventually(() -> receiver().getInteger("consecutiveFailures") == 1, "the failure to be recorded");
        JsonObject failing = receiver();
        assertEquals("pager", failing.getString("name"));
        assertEquals("pager answered 503", failing.getJsonObject("lastError").getString("message"));
        assertTrue(failing.getLong("outboxDepth") >= 1, failing.encode());

        now.addAndGet(60_000);
        eventually(() -> pager.delivered.stream().anyMatch(n -> n.fingerprint().equals(fp)), "the retry to go through");
        assertEquals(200, send(HttpMethod.POST, "/api/v1/alerts/" + fp + "/ack", OPERATOR,
                new JsonObject().put("by", "ana").put("comment", "on it")).statusCode());
        now.addAndGet(1000);
        assertEquals(200, send(HttpMethod.DELETE, "/api/v1/alerts/" + fp + "/ack", OPERATOR, null).statusCode());
        sample(40, 40, 40);
        eventually(() -> pager.delivered.stream().anyMatch(n -> n.fingerprint().equals(fp)
                && n.status() == Notification.Status.RESOLVED), "the resolution to be sent");

        // the row is completed in the store just after the pager took it
        eventually(() -> receiver().getLong("outboxDepth") == 0, "the outbox to empty");
        JsonObject healthy = receiver();
        assertEquals(0, healthy.getInteger("consecutiveFailures"));
        assertNotNull(healthy.getString("lastSuccess"));
        assertEquals("pager answered 503", healthy.getJsonObject("lastError").getString("message"));
        assertTrue(get("/api/v1/receivers").getBoolean("durable"));

        JsonObject page = get("/api/v1/alerts/" + fp);
        assertEquals("resolved", page.getJsonObject("alert").getString("state"));
        List<String> timeline = page.getJsonArray("timeline").stream().map(JsonObject.class::cast)
                .map(e -> e.getString("event") + (e.getString("by") == null ? "" : " " + e.getString("by"))).toList();
        assertEquals(List.of("firing", "ack ana", "unack ana", "resolved"), timeline);
        JsonArray deliveries = page.getJsonArray("deliveries");
        assertEquals(2, deliveries.size(), deliveries.encodePrettily());
        JsonObject fired = deliveries.getJsonObject(0);
        assertEquals("pager", fired.getString("receiver"));
        assertEquals("firing", fired.getString("status"));
        assertEquals("sent", fired.getString("state"));
        JsonArray tries = fired.getJsonArray("attempts");
        assertEquals(List.of("retry", "sent"), tries.stream().map(t -> ((JsonObject) t).getString("outcome")).toList());
        assertEquals("pager answered 503", tries.getJsonObject(0).getString("error"));
        assertEquals(Instant.ofEpochMilli(T0 + 1000).toString(), tries.getJsonObject(0).getString("at"));
        assertEquals("resolved", deliveries.getJsonObject(1).getString("status"));
        assertEquals(List.of("sent"), deliveries.getJsonObject(1).getJsonArray("attempts").stream()
                .map(t -> ((JsonObject) t).getString("outcome")).toList());

        sample(75, 40, 40);
        String warming = alert("warming", "GPU-1").getString("fingerprint");
        JsonObject waiting = get("/api/v1/alerts/" + warming);
        assertEquals("pending", waiting.getJsonObject("alert").getString("state"));
        assertEquals(List.of("pending"), waiting.getJsonArray("timeline").stream()
                .map(e -> ((JsonObject) e).getString("event")).toList());
        assertEquals(new JsonArray(), waiting.getJsonArray("deliveries"));
        assertEquals(404, send(HttpMethod.GET, "/api/v1/alerts/0123456789abcdef", VIEWER, null).statusCode());
        assertEquals(401, send(HttpMethod.GET, "/api/v1/alerts/" + fp, null, null).statusCode());
    }

    @Test
    void anAcknowledgementTakenBackIsAuditedToldToThePagerAndCanBeGivenAgain() throws Exception {
        sample(90, 40, 40);
        String fp = alert("too-hot", "GPU-1").getString("fingerprint");
        String path = "/api/v1/alerts/" + fp + "/ack";
        HttpResponse<Buffer> notAcked = send(HttpMethod.DELETE, path, OPERATOR, null);
        assertEquals(404, notAcked.statusCode());
        assertTrue(notAcked.bodyAsString().contains("not acknowledged"), notAcked.bodyAsString());
        assertEquals(200, send(HttpMethod.POST, path, OPERATOR, new JsonObject().put("by", "ana")).statusCode());

        assertEquals(401, send(HttpMethod.DELETE, path, null, null).statusCode());
        assertEquals(403, send(HttpMethod.DELETE, path, VIEWER, null).statusCode());
        HttpResponse<Buffer> badBy = send(HttpMethod.DELETE, path, OPERATOR, new JsonObject().put("by", 7));
        assertEquals(400, badBy.statusCode());
        assertEquals("by", badBy.bodyAsJsonObject().getString("field"));
        now.addAndGet(1000);
        HttpResponse<Buffer> unacked = send(HttpMethod.DELETE, path, OPERATOR, new JsonObject()
                .put("comment", "not mine"));
        assertEquals(200, unacked.statusCode(), unacked.bodyAsString());
        JsonObject body = unacked.bodyAsJsonObject();
        assertEquals("ana", body.getJsonObject("unacked").getString("by"), "the caller's token name");
        assertEquals("not mine", body.getJsonObject("unacked").getString("comment"));
        assertEquals("ana", body.getJsonObject("was").getString("by"));
        assertEquals(List.of(fp), pager.unacked);
        assertTrue(body.getJsonArray("receivers").getJsonObject(0).getBoolean("ok"));
        assertNull(alert("too-hot", "GPU-1").getValue("acked"));
        assertEquals(404, send(HttpMethod.DELETE, path, OPERATOR, null).statusCode(), "nothing left to take back");
        assertEquals(404, send(HttpMethod.DELETE, "/api/v1/alerts/0123456789abcdef/ack", OPERATOR, null)
                .statusCode());

        JsonObject audit = send(HttpMethod.GET, "/api/v1/audit", ADMIN, null).bodyAsJsonObject();
        JsonObject newest = audit.getJsonArray("entries").getJsonObject(0);
        assertEquals("alert.unack", newest.getString("action"));
        assertEquals("ana", newest.getString("who"));
        assertEquals(fp, newest.getString("target"));
        assertTrue(newest.getString("detail").contains("not mine"), newest.getString("detail"));

        now.addAndGet(1000);
        assertEquals(200, send(HttpMethod.POST, path, OPERATOR, new JsonObject().put("by", "bo")).statusCode());
        assertEquals("bo", alert("too-hot", "GPU-1").getJsonObject("acked").getString("by"));
    }

    @Test
    void aPreviewShowsWhatASilenceWouldMuteAndMakesNothing() throws Exception {
        sample(90, 82, 40);
        String path = "/api/v1/silences/preview";
        JsonObject body = silence("uuid=\"GPU-1\"");
        assertEquals(401, send(HttpMethod.POST, path, null, body).statusCode());
        assertEquals(403, send(HttpMethod.POST, path, VIEWER, body).statusCode());
        HttpResponse<Buffer> preview = send(HttpMethod.POST, path, OPERATOR, body);
        assertEquals(200, preview.statusCode(), preview.bodyAsString());
        assertEquals(List.of("hot GPU-1 firing", "too-hot GPU-1 firing"), listed(preview.bodyAsJsonObject()));
        assertEquals(2, preview.bodyAsJsonObject().getInteger("total"));
        assertEquals(List.of("hot GPU-2 firing"), listed(send(HttpMethod.POST, path, OPERATOR,
                new JsonObject().put("matchers", new JsonArray().add("severity=\"ticket\"").add("uuid!=\"GPU-1\"")))
                .bodyAsJsonObject()));
        assertEquals(0, get("/api/v1/silences").getInteger("total"), "nothing was made");
        assertEquals(0, send(HttpMethod.GET, "/api/v1/audit", ADMIN, null).bodyAsJsonObject().getInteger("total"),
                "nothing changed, so nothing is audited");

        HttpResponse<Buffer> everything = send(HttpMethod.POST, path, OPERATOR, new JsonObject()
                .put("matchers", new JsonArray().add("uuid=~\".*\"")));
        assertEquals(400, everything.statusCode());
        assertEquals("matchers", everything.bodyAsJsonObject().getString("field"));
        HttpResponse<Buffer> unreadable = send(HttpMethod.POST, path, OPERATOR, new JsonObject()
                .put("matchers", new JsonArray().add("uuid=\"GPU-1\"").add("=x")));
        assertEquals(400, unreadable.statusCode());
        assertEquals("matchers[1]", unreadable.bodyAsJsonObject().getString("field"));
    }

    /** One of the operators' routes and the least role that may call it. */
    private record Guarded(HttpMethod method, String path, JsonObject body, String least) {
    }

    @Test
    void eachOperatorsRouteWantsAToken401AndItsRole403() throws Exception {
        JsonObject preview = new JsonObject().put("matchers", new JsonArray().add("uuid=\"GPU-1\""));
        List<Guarded> routes = List.of(
                new Guarded(HttpMethod.GET, "/api/v1/alerts?state=pending", null, VIEWER),
                new Guarded(HttpMethod.GET, "/api/v1/alerts/0123456789abcdef", null, VIEWER),
                new Guarded(HttpMethod.GET, "/api/v1/receivers", null, VIEWER),
                new Guarded(HttpMethod.GET, "/api/v1/status", null, VIEWER),
                new Guarded(HttpMethod.DELETE, "/api/v1/alerts/0123456789abcdef/ack", null, OPERATOR),
                new Guarded(HttpMethod.POST, "/api/v1/silences/preview", preview, OPERATOR));
        List<String> ranked = List.of(VIEWER, OPERATOR, ADMIN);
        for (Guarded r : routes) {
            String what = r.method() + " " + r.path();
            HttpResponse<Buffer> none = send(r.method(), r.path(), null, r.body());
            assertEquals(401, none.statusCode(), what);
            assertEquals(AccessGuard.CHALLENGE, none.getHeader("WWW-Authenticate"), what);
            assertEquals(401, send(r.method(), r.path(), "not-a-token", r.body()).statusCode(), what);
            for (String token : ranked) {
                int status = send(r.method(), r.path(), token, r.body()).statusCode();
                if (ranked.indexOf(token) < ranked.indexOf(r.least())) {
                    assertEquals(403, status, what + " as " + token);
                } else {
                    // past the check: the unknown fingerprint is not found, the rest answers
                    assertEquals(r.path().contains("0123456789abcdef") ? 404 : 200, status, what + " as " + token);
                }
            }
        }
        assertNull(get("/api/v1/status").getJsonObject("config").getValue("hash"),
                "rules and routing given in code have no files to hash");
    }
}
