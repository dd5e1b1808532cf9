package io.gpuwatch.gateway.ingest;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.http.WebSocketFrame;
import io.vertx.core.http.WebSocketFrameType;
import io.vertx.core.http.impl.ws.WebSocketFrameImpl;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the probe endpoint reads WebSocket frames: fragments, UTF-8, seq bounds and the 401's challenge. */
@ExtendWith(VertxExtension.class)
class ProbeFramingTest {
    private static final String TOKEN = "s3cret-token-for-framing";

    private final AtomicLong now = new AtomicLong(1_764_700_000_000L);
    private Gateway gateway;
    private WebSocketClient probes;

    @BeforeEach
    void start(Vertx vertx, VertxTestContext ctx) {
        RuleLoad load = RuleSet.parse("t.yml", """
                group: t
                layer: device
                scope: card
                rules:
                  - name: hot
                    severity: ticket
                    when: tempC > 90
                """);
        assertTrue(load.ok(), load.diagnostics().toString());
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(TOKEN, "node-*")));
        InstantSource clock = () -> Instant.ofEpochMilli(now.get());
        IngestConfig ingest = new IngestConfig(64 * 1024, 50, 200, 64, 3, 10_000, 100, 1000);
        gateway = new Gateway(new GatewayConfig("127.0.0.1", 0, ingest, 1000, "http://localhost"),
                load.ruleSet(), () -> tokens, List.of(), clock);
        probes = vertx.createWebSocketClient();
        vertx.deployVerticle(gateway).onComplete(ctx.succeedingThenComplete());
    }

    /** A connected probe whose incoming frames and close queue up for the test thread. */
    private record Client(WebSocket ws, BlockingQueue<JsonObject> in, CompletableFuture<Short> closed) {
        JsonObject next() throws InterruptedException {
            JsonObject f = in.poll(5, TimeUnit.SECONDS);
            assertNotNull(f, "no frame from the gateway within 5 s");
            return f;
        }
    }

    private Client connect() throws Exception {
        WebSocketConnectOptions o = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(gateway.port())
                .setURI("/v1/probe").addHeader("Authorization", "Bearer " + TOKEN);
        BlockingQueue<JsonObject> in = new ArrayBlockingQueue<>(100);
        CompletableFuture<Short> closed = new CompletableFuture<>();
        WebSocket ws = probes.connect(o)
                .onSuccess(s -> {
                    s.textMessageHandler(t -> in.add(new JsonObject(t)));
                    s.closeHandler(v -> closed.complete(s.closeStatusCode()));
                })
                .toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        Client c = new Client(ws, in, closed);
        ws.writeTextMessage("{\"type\":\"hello\",\"v\":1,\"seq\":0,\"node\":\"node-1\",\"bootId\":\"boot-a\","
                + "\"cards\":[{\"uuid\":\"GPU-1\",\"index\":0}]}");
        assertEquals("welcome", c.next().getString("type"));
        return c;
    }

    private String sample(long seq, double temp) {
        return "{\"type\":\"sample\",\"seq\":" + seq + ",\"ts\":" + now.get()
                + ",\"cards\":[{\"uuid\":\"GPU-1\",\"gpuUtil\":97,\"tempC\":" + temp + "}]}";
    }

    @Test
    void aMessageInSeveralFragmentsIsReadAsOneFrame() throws Exception {
        Client c = connect();
        String text = sample(1, 71);
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
    void aMultiByteCharacterSplitAcrossFragmentsSurvives() throws Exception {
        Client c = connect();
        byte[] text = ("{\"type\":\"app\",\"seq\":1,\"ts\":" + now.get()
                + ",\"task\":\"任务-1\",\"tokensPerSec\":10}").getBytes(StandardCharsets.UTF_8);
        int cut = indexOf(text, "任".getBytes(StandardCharsets.UTF_8)) + 1;
        c.ws().writeFrame(rawText(java.util.Arrays.copyOf(text, cut), false));
        c.ws().writeFrame(WebSocketFrame.continuationFrame(
                Buffer.buffer(java.util.Arrays.copyOfRange(text, cut, text.length)), true));
        JsonObject ack = c.next();
        assertEquals("ack", ack.getString("type"), ack.encode());
        assertEquals(0, gateway.probes().counters().badFrames.get());
    }

    @Test
    void invalidUtf8IsRefusedWithAnErrorFrameAndTheConnectionGoesOn() throws Exception {
        Client c = connect();
        byte[] bad = sample(1, 71).replace("GPU-1", "GPU-\u00ff").getBytes(StandardCharsets.UTF_8);
        // 0xC3 0xBF is ÿ; a lone 0xFF is never valid UTF-8
        int at = indexOf(bad, new byte[]{(byte) 0xC3, (byte) 0xBF});
        bad[at] = (byte) 0xFF;
        c.ws().writeFrame(rawText(bad, true));
        JsonObject error = c.next();
        assertEquals("error", error.getString("type"));
        assertEquals("bad_utf8", error.getString("code"), error.encode());
        assertTrue(error.getString("message").contains("byte " + at), error.getString("message"));
        c.ws().writeTextMessage(sample(1, 72));
        JsonObject ack = c.next();
        assertEquals("ack", ack.getString("type"), ack.encode());
        assertFalse(c.closed().isDone());
    }

    @Test
    void aSeqFarAheadIsRefusedAndDoesNotPoisonTheStream() throws Exception {
        Client c = connect();
        c.ws().writeTextMessage(sample(Long.MAX_VALUE, 71));
        JsonObject error = c.next();
        assertEquals("error", error.getString("type"));
        assertEquals("bad_seq", error.getString("code"), error.encode());
        assertEquals(Long.MAX_VALUE, error.getLong("seq"));
        c.ws().writeTextMessage(sample(1, 72));
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
