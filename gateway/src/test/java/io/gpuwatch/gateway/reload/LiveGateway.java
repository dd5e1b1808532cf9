package io.gpuwatch.gateway.reload;

import io.gpuwatch.gateway.delivery.RecordingReceiver;
import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A gateway deployed on loopback with its rules loaded from files, one connected probe with two cards, and a
 * receiver that records every notification. Each sample waits for its ack, so the gateway has evaluated it.
 */
final class LiveGateway {
    private static final String TOKEN = "reload-test-token";
    static final long T0 = 1_764_700_000_000L;
    /** Acks every 20 ms, so waiting for one is quick. */
    private static final IngestConfig FAST_ACKS = new IngestConfig(64 * 1024, 50, 200, 64, 3, 10_000, 20, 1000);

    final Gateway gateway;
    private final AtomicLong now;
    private final List<Notification> sent;
    private final BlockingQueue<JsonObject> in = new LinkedBlockingQueue<>();
    private WebSocket ws;
    /** Held while the gateway runs: Vert.x 5 closes an unreachable client and its connections. */
    private WebSocketClient client;
    private long seq;

    private LiveGateway(Gateway gateway, AtomicLong now, List<Notification> sent) {
        this.gateway = gateway;
        this.now = now;
        this.sent = sent;
    }

    static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Deploys a gateway running the rules under {@code dir}, watching them every {@code poll} (zero: never). */
    static LiveGateway start(Vertx vertx, Path dir, Duration poll) throws Exception {
        RuleLoad load = RuleSet.load(List.of(dir));
        assertTrue(load.ok(), load.diagnostics()::toString);
        AtomicLong now = new AtomicLong(T0);
        RecordingReceiver capture = new RecordingReceiver("capture");
        List<Notification> sent = capture.notifications();
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(TOKEN, "node-*")));
        InstantSource clock = () -> Instant.ofEpochMilli(now.get());
        Gateway g = new Gateway(new GatewayConfig("127.0.0.1", 0, FAST_ACKS, 1000, "http://localhost"),
                load.ruleSet(), new RuleFiles(List.of(dir), poll), () -> tokens, List.of(capture), clock);
        LiveGateway live = new LiveGateway(g, now, sent);
        await(vertx.deployVerticle(g));
        live.connect(vertx);
        return live;
    }

    private void connect(Vertx vertx) throws Exception {
        WebSocketConnectOptions o = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(gateway.port())
                .setURI("/v1/probe").addHeader("Authorization", "Bearer " + TOKEN);
        client = vertx.createWebSocketClient();
        ws = await(client.connect(o).onSuccess(s -> s.textMessageHandler(t ->
                in.add(new JsonObject(t)))));
        ws.writeTextMessage("{\"type\":\"hello\",\"v\":1,\"seq\":0,\"node\":\"node-1\",\"bootId\":\"boot-a\","
                + "\"cards\":[{\"uuid\":\"GPU-1\",\"index\":0,\"name\":\"H100\"},"
                + "{\"uuid\":\"GPU-2\",\"index\":1,\"name\":\"H100\"}]}");
        JsonObject welcome = in.poll(10, TimeUnit.SECONDS);
        assertNotNull(welcome, "no welcome");
    }

    /** One second later, a sample with these temperatures, evaluated by the time this returns. */
    void sample(double temp1, double temp2) throws Exception {
        long at = now.addAndGet(1000);
        long s = ++seq;
        ws.writeTextMessage("{\"type\":\"sample\",\"seq\":" + s + ",\"ts\":" + at + ",\"cards\":["
                + "{\"uuid\":\"GPU-1\",\"tempC\":" + temp1 + "},{\"uuid\":\"GPU-2\",\"tempC\":" + temp2 + "}]}");
        while (true) {
            JsonObject f = in.poll(10, TimeUnit.SECONDS);
            assertNotNull(f, "no ack for sample " + s);
            if ("ack".equals(f.getString("type")) && f.getLong("seq") >= s) {
                return;
            }
        }
    }

    /** Notifications so far, as {@code rule uuid STATUS}. */
    List<String> notifications() {
        List<String> out = new ArrayList<>();
        for (Notification n : sent) {
            out.add(n.labels().get("alertname") + " " + n.labels().get("uuid") + " " + n.status());
        }
        return out;
    }

    RuleReloader reloader() {
        return gateway.reloader().orElseThrow();
    }
}
