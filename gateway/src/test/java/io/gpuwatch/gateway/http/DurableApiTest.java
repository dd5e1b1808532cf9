package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.delivery.RecordingReceiver;
import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.reload.RuleFiles;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
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
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Silences and acknowledgements made over HTTP on a gateway with a data directory are on disk before they are
 * answered: a second gateway on the same directory lists them, shows the acknowledgement and keeps muting.
 */
@ExtendWith(VertxExtension.class)
class DurableApiTest {
    private static final long T0 = 1_764_700_000_000L;
    private static final String TOKEN = "durable-api-token";
    /** Acks every 20 ms, so waiting for one is quick. */
    private static final IngestConfig FAST_ACKS = new IngestConfig(64 * 1024, 50, 200, 64, 3, 10_000, 20, 1000);

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(T0);
    private final RecordingReceiver capture = new RecordingReceiver("capture");
    private final List<Notification> delivered = capture.notifications();
    private final BlockingQueue<JsonObject> fromGateway = new LinkedBlockingQueue<>();
    private RuleSet rules;
    private WebClient web;
    /** Held while a probe is connected: Vert.x 5 closes an unreachable client and its connections. */
    private WebSocketClient wsClient;
    private WebSocket ws;
    private long seq;

    @BeforeEach
    void setUp(Vertx vertx) {
        RuleLoad load = RuleSet.parse("durable.yml", """
                group: durable
                layer: device
                scope: card
                rules:
                  - name: too-hot
                    severity: page
                    when: tempC > 85
                    summary: "hot"
                """);
        assertTrue(load.ok(), load.diagnostics().toString());
        rules = load.ruleSet();
        web = WebClient.create(vertx);
    }

    private Gateway start(Vertx vertx) throws Exception {
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(TOKEN, "node-*")));
        Gateway g = new Gateway(new GatewayConfig("127.0.0.1", 0, FAST_ACKS, 3_600_000, "http://localhost")
                .withDataDir(dir.resolve("data")), rules, RuleFiles.none(), () -> tokens, List.of(capture),
                () -> Instant.ofEpochMilli(now.get()));
        await(vertx.deployVerticle(g));
        return g;
    }

    private void connect(Vertx vertx, Gateway g) throws Exception {
        WebSocketConnectOptions o = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(g.port())
                .setURI("/v1/probe").addHeader("Authorization", "Bearer " + TOKEN);
        wsClient = vertx.createWebSocketClient();
        fromGateway.clear();
        ws = await(wsClient.connect(o).onSuccess(s -> s.textMessageHandler(t -> fromGateway.add(new JsonObject(t)))));
        ws.writeTextMessage("{\"type\":\"hello\",\"v\":1,\"seq\":0,\"node\":\"node-1\",\"bootId\":\"boot-" + seq
                + "\",\"cards\":[{\"uuid\":\"GPU-1\",\"index\":0,\"name\":\"H100\"},"
                + "{\"uuid\":\"GPU-2\",\"index\":1,\"name\":\"H100\"},{\"uuid\":\"GPU-3\",\"index\":2,\"name\":\"H100\"}]}");
        assertNotNull(fromGateway.poll(10, TimeUnit.SECONDS), "no welcome");
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

    private HttpResponse<Buffer> post(Gateway g, String path, JsonObject body) throws Exception {
        return await(web.post(g.port(), "127.0.0.1", path).sendJsonObject(body));
    }

    private JsonObject get(Gateway g, String path) throws Exception {
        HttpResponse<Buffer> r = await(web.get(g.port(), "127.0.0.1", path).send());
        assertEquals(200, r.statusCode(), r.bodyAsString());
        return r.bodyAsJsonObject();
    }

    /** Notifications delivered so far, as {@code uuid:STATUS}. */
    private List<String> deliveries() {
        return delivered.stream().map(n -> n.labels().get("uuid") + ":" + n.status()).toList();
    }

    private void waitForDelivery(String what) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (!deliveries().contains(what)) {
            assertTrue(System.currentTimeMillis() < deadline, "no delivery of " + what + ": " + deliveries());
            Thread.sleep(20);
        }
    }

    private static JsonObject silence(String matcher, String createdBy) {
        return new JsonObject().put("matchers", new JsonArray().add(matcher)).put("endsAt", "2030-01-01T00:00:00Z")
                .put("createdBy", createdBy).put("comment", "kept across restarts");
    }

    private static Map<String, String> states(JsonObject listing) {
        return listing.getJsonArray("silences").stream().map(JsonObject.class::cast)
                .collect(java.util.stream.Collectors.toMap(s -> s.getString("id"), s -> s.getString("state")));
    }

    @Test
    void silencesAndAcknowledgementsComeBackAfterARestartAndTheSilenceStillMutes(Vertx vertx) throws Exception {
        Gateway first = start(vertx);
        connect(vertx, first);
        sample(90, 40, 40);
        waitForDelivery("GPU-1:FIRING");

        HttpResponse<Buffer> muted = post(first, "/api/v1/silences", silence("uuid=\"GPU-2\"", "ana"));
        assertEquals(201, muted.statusCode(), muted.bodyAsString());
        String active = muted.bodyAsJsonObject().getString("id");
        String ended = post(first, "/api/v1/silences", silence("node=\"node-9\"", "bo")).bodyAsJsonObject()
                .getString("id");
        assertEquals(200, await(web.delete(first.port(), "127.0.0.1", "/api/v1/silences/" + ended).send())
                .statusCode());
        JsonObject alert = get(first, "/api/v1/alerts").getJsonArray("alerts").getJsonObject(0);
        HttpResponse<Buffer> acked = post(first, "/api/v1/alerts/" + alert.getString("fingerprint") + "/ack",
                new JsonObject().put("by", "ana").put("comment", "on it"));
        assertEquals(200, acked.statusCode(), acked.bodyAsString());
        await(ws.close());
        await(vertx.undeploy(first.deploymentID()));

        now.addAndGet(60_000);
        Gateway second = start(vertx);
        JsonObject listed = get(second, "/api/v1/silences");
        assertEquals(Map.of(active, "active", ended, "expired"), states(listed),
                "both silences are back, the expired one kept for audit: " + listed.encodePrettily());
        JsonObject back = get(second, "/api/v1/alerts").getJsonArray("alerts").getJsonObject(0);
        assertEquals(alert.getString("fingerprint"), back.getString("fingerprint"));
        assertEquals("ana", back.getJsonObject("acked").getString("by"));
        assertEquals("on it", back.getJsonObject("acked").getString("comment"));

        connect(vertx, second);
        sample(90, 90, 90);
        // GPU-3 is dispatched after GPU-2, and the outbox delivers in order, so once it is there GPU-2 would be too
        waitForDelivery("GPU-3:FIRING");
        assertEquals(List.of("GPU-1:FIRING", "GPU-3:FIRING"), deliveries(),
                "GPU-2 stays silenced, and GPU-1 is not paged a second time");
        await(ws.close());
    }

    @Test
    void aSilenceTheStoreCannotKeepIsRefusedAndLeavesNothingBehind(Vertx vertx) throws Exception {
        Gateway g = start(vertx);
        await(g.store().orElseThrow().close());
        HttpResponse<Buffer> refused = post(g, "/api/v1/silences", silence("uuid=\"GPU-2\"", "ana"));
        assertEquals(503, refused.statusCode(), refused.bodyAsString());
        assertTrue(refused.bodyAsJsonObject().getString("error").contains("could not be stored"), refused.bodyAsString());
        assertEquals(new JsonArray(), get(g, "/api/v1/silences").getJsonArray("silences"),
                "a silence the client was told failed does not mute anything either");
    }

    /** An id-keyed update of a silence as Alertmanager's API has it, kept like a new one. */
    @Test
    void aChangedSilenceIsKeptWithTheSilenceItReplaced(Vertx vertx) throws Exception {
        Gateway first = start(vertx);
        String id = post(first, "/api/v1/silences", silence("uuid=\"GPU-2\"", "ana")).bodyAsJsonObject().getString("id");
        now.addAndGet(1000);
        HttpResponse<Buffer> changed = post(first, "/api/v1/silences", silence("uuid=~\"GPU-[23]\"", "ana")
                .put("id", id));
        assertEquals(200, changed.statusCode(), changed.bodyAsString());
        String replacement = changed.bodyAsJsonObject().getString("id");
        assertTrue(!replacement.equals(id), "new matchers on an active silence make a new one");
        assertEquals(404, post(first, "/api/v1/silences", silence("uuid=\"GPU-2\"", "ana").put("id", "nope"))
                .statusCode());
        await(vertx.undeploy(first.deploymentID()));

        Gateway second = start(vertx);
        assertEquals(Map.of(id, "expired", replacement, "active"), states(get(second, "/api/v1/silences")));
        Function<JsonObject, String> matchers = s -> s.getJsonArray("matchers").encode();
        assertEquals("[\"uuid=~\\\"GPU-[23]\\\"\"]", get(second, "/api/v1/silences").getJsonArray("silences").stream()
                .map(JsonObject.class::cast).filter(s -> s.getString("id").equals(replacement)).map(matchers)
                .findFirst().orElseThrow());
    }
}
