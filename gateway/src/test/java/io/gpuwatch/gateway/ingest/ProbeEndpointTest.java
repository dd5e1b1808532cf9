package io.gpuwatch.gateway.ingest;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.state.CardState;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.http.WebSocketFrame;
import io.vertx.core.http.WebSocketFrameType;
import io.vertx.core.http.impl.ws.WebSocketFrameImpl;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A real gateway and a real WebSocket client on loopback. */
@ExtendWith(VertxExtension.class)
class ProbeEndpointTest {
    private static final String TOKEN = "s3cret-token-for-tests";
    private static final String RULES = """
            group: t
            layer: device
            scope: card
            rules:
              - name: hot
                severity: ticket
                when: tempC > 90
            """;

    private final AtomicLong now = new AtomicLong(1_764_700_000_000L);
    private Gateway gateway;
    /** Held for the whole test: Vert.x 5 closes a client, and its connections, once it is unreachable. */
    private WebSocketClient probes;

    @BeforeEach
    void start(Vertx vertx, VertxTestContext ctx) {
        RuleLoad load = RuleSet.parse("t.yml", RULES);
        assertTrue(load.ok(), load.diagnostics().toString());
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(TOKEN, "node-*")));
        InstantSource clock = () -> Instant.ofEpochMilli(now.get());
        IngestConfig ingest = new IngestConfig(64 * 1024, 50, 200, 64, 3, 10_000, 100, 1000);
        gateway = new Gateway(new GatewayConfig("127.0.0.1", 0, ingest, 1000, "http://localhost"),
                load.ruleSet(), () -> tokens, List.of(), clock);
        probes = vertx.createWebSocketClient();
        vertx.deployVerticle(gateway).onComplete(ctx.succeedingThenComplete());
    }

    /** A connected client whose incoming frames queue up for the test thread. */
    private record Client(WebSocket ws, BlockingQueue<JsonObject> in) {
        JsonObject next() throws InterruptedException {
            JsonObject f = in.poll(5, TimeUnit.SECONDS);
            assertNotNull(f, "no frame from the gateway within 5 s");
            return f;
        }

        void send(String json) {
            ws.writeTextMessage(json);
        }
    }

    private Client connect(Vertx vertx, String token) throws Exception {
        WebSocketConnectOptions o = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(gateway.port())
                .setURI("/v1/probe").addHeader("Authorization", "Bearer " + token);
        BlockingQueue<JsonObject> in = new ArrayBlockingQueue<>(100);
        WebSocket ws = probes.connect(o)
                .onSuccess(s -> s.textMessageHandler(t -> in.add(new JsonObject(t))))
                .toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        return new Client(ws, in);
    }

    private static String hello(String node, String boot) {
        return "{\"type\":\"hello\",\"v\":1,\"seq\":0,\"node\":\"" + node + "\",\"bootId\":\"" + boot
                + "\",\"cards\":[{\"uuid\":\"GPU-1\",\"index\":0,\"name\":\"NVIDIA H100 80GB HBM3\"}]}";
    }

    private static String sample(long seq, long ts, double temp) {
        return "{\"type\":\"sample\",\"seq\":" + seq + ",\"ts\":" + ts + ",\"cards\":[{\"uuid\":\"GPU-1\",\"gpuUtil\":97,\"tempC\":" + temp + "}]}";
    }

    private static String event(long seq, long ts) {
        return "{\"type\":\"event\",\"seq\":" + seq + ",\"ts\":" + ts + ",\"uuid\":\"GPU-1\",\"kind\":\"xid\",\"xid\":79,\"text\":\"GPU has fallen off the bus\"}";
    }

    @Test
    void wrongOrMissingTokenIsRefusedAtTheHandshakeWith401(Vertx vertx) throws Exception {
        for (String header : new String[]{"Bearer wrong", "", "Basic " + TOKEN}) {
            WebSocketConnectOptions o = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(gateway.port())
                    .setURI("/v1/probe");
            if (!header.isEmpty()) {
                o.addHeader("Authorization", header);
            }
            Future<WebSocket> f = probes.connect(o);
            Throwable cause = f.toCompletionStage().toCompletableFuture().handle((ws, e) -> e).get(5, TimeUnit.SECONDS);
            UpgradeRejectedException rejected = assertInstanceOf(UpgradeRejectedException.class, cause, header);
            assertEquals(401, rejected.getStatus());
        }
        assertEquals(3, gateway.probes().counters().refusedHandshakes.get());
        assertEquals(0, gateway.fleet().nodes().size(), "a refused probe leaves nothing behind");
        WebSocketConnectOptions elsewhere = new WebSocketConnectOptions().setHost("127.0.0.1")
                .setPort(gateway.port()).setURI("/v1/elsewhere").addHeader("Authorization", "Bearer " + TOKEN);
        Throwable cause = probes.connect(elsewhere).toCompletionStage().toCompletableFuture()
                .handle((ws, e) -> e).get(5, TimeUnit.SECONDS);
        assertEquals(404, assertInstanceOf(UpgradeRejectedException.class, cause).getStatus());
    }

    @Test
    void helloGetsWelcomeAndSamplesLandInTheCardsWindows(Vertx vertx) throws Exception {
        Client c = connect(vertx, TOKEN);
        c.send(hello("node-1", "boot-a"));
        JsonObject welcome = c.next();
        assertEquals("welcome", welcome.getString("type"));
        assertEquals(0L, welcome.getLong("ackedSeq"));
        assertEquals(1000L, welcome.getLong("intervalMs"));

        c.send(sample(1, now.get(), 71));
        JsonObject ack = c.next();
        assertEquals("ack", ack.getString("type"));
        assertEquals(1L, ack.getLong("seq"));
        CardState card = gateway.fleet().node("node-1").card("GPU-1");
        assertNotNull(card);
        assertEquals(71.0, card.series(gateway.rules().seriesId("tempC")).last());
        assertEquals(1, gateway.probes().counters().samples.get());
    }

    @Test
    void aDuplicateSeqIsIgnoredButAcknowledged(Vertx vertx) throws Exception {
        Client c = connect(vertx, TOKEN);
        c.send(hello("node-1", "boot-a"));
        c.next();
        c.send(event(1, now.get()));
        assertEquals(1L, c.next().getLong("seq"));
        c.send(event(1, now.get()));
        JsonObject ack = c.next();
        assertEquals("ack", ack.getString("type"));
        assertEquals(1L, ack.getLong("seq"));
        assertEquals(1, gateway.probes().counters().events.get());
        assertEquals(1, gateway.probes().counters().duplicates.get());
        assertEquals(1, gateway.fleet().node("node-1").countEvents("xid", 79, 60_000));
    }

    @Test
    void aReconnectOfTheSameBootResumesAfterTheAckedSeq(Vertx vertx) throws Exception {
        Client first = connect(vertx, TOKEN);
        first.send(hello("node-1", "boot-a"));
        first.next();
        for (int seq = 1; seq <= 3; seq++) {
            first.send(event(seq, now.get()));
            assertEquals(seq, first.next().getLong("seq"));
        }
        close(first.ws());

        Client again = connect(vertx, TOKEN);
        again.send(hello("node-1", "boot-a"));
        JsonObject welcome = again.next();
        assertEquals(3L, welcome.getLong("ackedSeq"), "the gateway says where to resume");
        // the probe replays what it still buffers after ackedSeq; an overlap is harmless
        again.send(event(3, now.get()));
        again.next();
        again.send(event(4, now.get()));
        again.next();
        assertEquals(4, gateway.probes().counters().events.get());
        assertEquals(4, gateway.fleet().node("node-1").countEvents("xid", -1, 60_000));

        Client rebooted = connect(vertx, TOKEN);
        rebooted.send(hello("node-1", "boot-b"));
        assertEquals(0L, rebooted.next().getLong("ackedSeq"), "a new bootId starts a new stream");
    }

    @Test
    void malformedFramesGetAnErrorAndTheConnectionKeepsWorking(Vertx vertx) throws Exception {
        Client c = connect(vertx, TOKEN);
        c.send(hello("node-1", "boot-a"));
        c.next();
        c.send("{\"type\":\"sample\",\"seq\":1,\"ts\":" + now.get() + ",\"cards\":[{\"uuid\":\"GPU-1\",\"tempC\":\"hot\"}]}");
        JsonObject error = c.next();
        assertEquals("error", error.getString("type"));
        assertEquals("bad_frame", error.getString("code"));
        assertTrue(error.getString("message").contains("cards[0].tempC"), error.getString("message"));
        c.send("{not json");
        assertEquals("bad_json", c.next().getString("code"));
        c.send(event(2, now.get()));
        JsonObject ack = c.next();
        assertEquals("ack", ack.getString("type"), "a good frame after bad ones is still taken");
        assertEquals(2L, ack.getLong("seq"));
    }

    @Test
    void garbageInARowClosesTheConnectionButNotTheGateway(Vertx vertx) throws Exception {
        Client c = connect(vertx, TOKEN);
        Promise<Short> closed = Promise.promise();
        c.ws().closeHandler(v -> closed.tryComplete(c.ws().closeStatusCode()));
        c.send(hello("node-1", "boot-a"));
        c.next();
        for (int i = 0; i < 3; i++) {
            c.send("[]");
        }
        assertEquals((short) 1008, closed.future().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS));
        Client next = connect(vertx, TOKEN);
        next.send(hello("node-2", "boot-x"));
        assertEquals("welcome", next.next().getString("type"));
    }

    @Test
    void anOversizedFrameClosesWith1009(Vertx vertx) throws Exception {
        Client c = connect(vertx, TOKEN);
        Promise<Short> closed = Promise.promise();
        c.ws().closeHandler(v -> closed.tryComplete(c.ws().closeStatusCode()));
        c.send(hello("node-1", "boot-a"));
        c.next();
        c.send("{\"type\":\"event\",\"seq\":1,\"ts\":1,\"kind\":\"xid\",\"xid\":1,\"text\":\"" + "x".repeat(70_000) + "\"}");
        assertEquals((short) 1009, closed.future().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS));
    }

    @Test
    void aFrameBeforeHelloOrAForeignNodeIsRefused(Vertx vertx) throws Exception {
        Client c = connect(vertx, TOKEN);
        c.send(event(1, now.get()));
        assertEquals("hello_required", c.next().getString("code"));

        Client other = connect(vertx, TOKEN);
        other.send(hello("db-1", "boot-a"));
        assertEquals("forbidden_node", other.next().getString("code"), "the token is only for node-*");
    }

    @Test
    void healthAndReadiness(Vertx vertx) throws Exception {
        WebClient web = WebClient.create(vertx);
        assertEquals(200, web.get(gateway.port(), "127.0.0.1", "/-/healthy").send()
                .toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS).statusCode());
        assertEquals(200, web.get(gateway.port(), "127.0.0.1", "/-/ready").send()
                .toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS).statusCode());
        String metrics = web.get(gateway.port(), "127.0.0.1", "/metrics").send()
                .toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS).bodyAsString();
        assertTrue(metrics.contains("gpuwatch_ingest_frames_total 0"), metrics);
        assertTrue(metrics.contains("gpuwatch_ingest_shed_backlog_total 0"), metrics);
        assertTrue(metrics.contains("# TYPE gpuwatch_ingest_queued_samples gauge\ngpuwatch_ingest_queued_samples 0"), metrics);
    }

    private static void close(WebSocket ws) throws Exception {
        ws.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    /** A client past its hello, as node-1. */
    private Client welcomed(Vertx vertx) throws Exception {
        Client c = connect(vertx, TOKEN);
        c.send(hello("node-1", "boot-a"));
        assertEquals("welcome", c.next().getString("type"));
        return c;
    }

    @Test
    void aMessageInSeveralFragmentsIsReadAsOneFrame(Vertx vertx) throws Exception {
        Client c = welcomed(vertx);
        String text = sample(1, now.get(), 71);
        int a = text.length() / 3;
        int b = 2 * text.length() / 3;
        c.ws().writeFrame(WebSocketFrame.textFrame(text.substring(0, a), false));
        c.ws().writeFrame(WebSocketFrame.continuationFrame(Buffer.buffer(text.substring(a, b)), false));
        c.ws().writeFrame(WebSocketFrame.continuationFrame(Buffer.buffer(text.substring(b)), true));
        JsonObject ack = c.next();
        assertEquals("ack", ack.getString("type"), ack.encode());
        assertEquals(1L, ack.getLong("seq"));
        assertEquals(0, gateway.probes().counters().badFrames.get());
        assertEquals(71.0, tempC(), 0.0);
    }

    @Test
    void aMultiByteCharacterSplitAcrossFragmentsSurvives(Vertx vertx) throws Exception {
        Client c = welcomed(vertx);
        byte[] text = ("{\"type\":\"app\",\"seq\":1,\"ts\":" + now.get()
                + ",\"task\":\"任务-1\",\"tokensPerSec\":10}").getBytes(StandardCharsets.UTF_8);
        int cut = indexOf(text, "任".getBytes(StandardCharsets.UTF_8)) + 1;
        c.ws().writeFrame(rawText(Arrays.copyOf(text, cut), false));
        c.ws().writeFrame(WebSocketFrame.continuationFrame(
                Buffer.buffer(Arrays.copyOfRange(text, cut, text.length)), true));
        JsonObject ack = c.next();
        assertEquals("ack", ack.getString("type"), ack.encode());
        assertEquals(0, gateway.probes().counters().badFrames.get());
    }

    @Test
    void invalidUtf8IsRefusedWithAnErrorFrameAndTheConnectionGoesOn(Vertx vertx) throws Exception {
        Client c = welcomed(vertx);
        byte[] bad = sample(1, now.get(), 71).replace("GPU-1", "GPU-\u00ff").getBytes(StandardCharsets.UTF_8);
        // 0xC3 0xBF is ÿ; a lone 0xFF is never valid UTF-8
        int at = indexOf(bad, new byte[]{(byte) 0xC3, (byte) 0xBF});
        bad[at] = (byte) 0xFF;
        c.ws().writeFrame(rawText(bad, true));
        JsonObject error = c.next();
        assertEquals("error", error.getString("type"));
        assertEquals("bad_utf8", error.getString("code"), error.encode());
        assertTrue(error.getString("message").contains("byte " + at), error.getString("message"));
        c.ws().writeTextMessage(sample(1, now.get(), 72));
        JsonObject ack = c.next();
        assertEquals("ack", ack.getString("type"), ack.encode());
        assertFalse(c.ws().isClosed());
    }

    @Test
    void aSeqFarAheadIsRefusedAndDoesNotPoisonTheStream(Vertx vertx) throws Exception {
        Client c = welcomed(vertx);
        c.ws().writeTextMessage(sample(Long.MAX_VALUE, now.get(), 71));
        JsonObject error = c.next();
        assertEquals("error", error.getString("type"));
        assertEquals("bad_seq", error.getString("code"), error.encode());
        assertEquals(Long.MAX_VALUE, error.getLong("seq"));
        c.ws().writeTextMessage(sample(1, now.get(), 72));
        JsonObject ack = c.next();
        assertEquals("ack", ack.getString("type"), ack.encode());
        assertEquals(1L, ack.getLong("seq"));
        assertEquals(72.0, tempC(), 0.0);
    }

    @Test
    void a401ChallengesForABearerToken(Vertx vertx) throws Exception {
        HttpClient http = vertx.createHttpClient();
        try {
            HttpClientResponse r = http.request(HttpMethod.GET, gateway.port(), "127.0.0.1", "/v1/probe")
                    .compose(req -> req.putHeader("Connection", "Upgrade").putHeader("Upgrade", "websocket")
                            .putHeader("Sec-WebSocket-Version", "13")
                            .putHeader("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
                            .putHeader("Authorization", "Bearer wrong").send())
                    .toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertEquals(401, r.statusCode());
            assertEquals("Bearer realm=\"gpuwatch\"", r.getHeader("WWW-Authenticate"));
            assertNull(r.getHeader("Sec-WebSocket-Accept"));
        } finally {
            http.close();
        }
    }

    /** A text frame of any bytes, valid UTF-8 or not, as a hostile or broken client sends it. */
    private static WebSocketFrame rawText(byte[] bytes, boolean last) {
        return new WebSocketFrameImpl(WebSocketFrameType.TEXT, bytes, last);
    }

    private double tempC() throws InterruptedException {
        return gateway.fleet().node("node-1").card("GPU-1").series(gateway.rules().seriesId("tempC")).last();
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }
}
