package io.gpuwatch.gateway.ingest;

import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Sample;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a probe connection gets in time, on a real event loop: a connection that never says hello is closed after
 * the hello timeout, one whose hello waits for a cluster takeover is not (up to {@link ProbeSession#HELLO_PATIENCE}
 * timeouts), and an event is read and acknowledged while a backlog of samples is still being evaluated.
 */
@ExtendWith(VertxExtension.class)
class ProbeTimingTest {
    private static final String TOKEN = "s3cret-token-for-tests";
    private static final long TIMEOUT_MS = 200;
    /** What one sample costs the sink: 200 samples keep the event loop busy for about 4 s. */
    private static final long SAMPLE_COST_MS = 20;

    private final AtomicInteger evaluated = new AtomicInteger();
    private ProbeEndpoint endpoint;
    private HttpServer server;
    private WebSocketClient client;

    private ProbeEndpoint start(Vertx vertx) throws Exception {
        IngestConfig config = new IngestConfig(64 * 1024, 1000, 1000, 64, 3, TIMEOUT_MS, 100, 1000);
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(TOKEN, "node-*")));
        FrameSink sink = new FrameSink() {
            @Override
            public void hello(Hello hello) {
            }

            @Override
            public void frame(String node, Frame frame) {
                if (frame instanceof Sample) {
                    evaluated.incrementAndGet();
                    try {
                        Thread.sleep(SAMPLE_COST_MS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }

            @Override
            public void shed(String node, long at, long seq) {
            }

            @Override
            public void disconnected(String node) {
            }
        };
        endpoint = new ProbeEndpoint(vertx, config, () -> tokens, sink, InstantSource.system());
        server = vertx.createHttpServer().requestHandler(endpoint::upgrade)
                .listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        client = vertx.createWebSocketClient();
        return endpoint;
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        }
    }

    /** A client connection and what the gateway told it: its frames, then a {@code close} entry with the code. */
    private record Client(WebSocket ws, BlockingQueue<JsonObject> in) {
        JsonObject next() throws InterruptedException {
            JsonObject f = in.poll(10, TimeUnit.SECONDS);
            assertNotNull(f, "nothing from the gateway within 10 s");
            return f;
        }
    }

    private Client connect() throws Exception {
        WebSocketConnectOptions o = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(server.actualPort())
                .setURI(ProbeEndpoint.PATH).addHeader("Authorization", "Bearer " + TOKEN);
        BlockingQueue<JsonObject> in = new LinkedBlockingQueue<>();
        WebSocket ws = client.connect(o).onSuccess(s -> {
            s.textMessageHandler(t -> in.add(new JsonObject(t)));
            s.closeHandler(v -> in.add(new JsonObject().put("type", "close").put("code", (int) s.closeStatusCode())));
        }).toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        return new Client(ws, in);
    }

    private static String hello(String node) {
        return "{\"type\":\"hello\",\"v\":1,\"seq\":0,\"node\":\"" + node + "\",\"bootId\":\"boot-a\","
                + "\"cards\":[{\"uuid\":\"GPU-1\",\"index\":0,\"name\":\"NVIDIA H100 80GB HBM3\"}]}";
    }

    @Test
    void aConnectionThatNeverSaysHelloIsClosedAfterTheTimeout(Vertx vertx) throws Exception {
        start(vertx);
        long opened = System.nanoTime();
        Client silent = connect();
        JsonObject error = silent.next();
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - opened);
        assertEquals("hello_timeout", error.getString("code"), error.encode());
        assertEquals("no hello within 200 ms", error.getString("message"));
        assertEquals(1008, silent.next().getInteger("code"), "closed as a policy violation");
        assertTrue(waitedMs >= TIMEOUT_MS, "closed after " + waitedMs + " ms, before the timeout");
    }

    @Test
    void aHelloWaitingForItsTakeOverIsNotLate(Vertx vertx) throws Exception {
        start(vertx);
        // a cluster takeover that takes longer than the hello timeout, well within its patience
        endpoint.clustered(node -> Optional.empty(), node -> {
            Promise<Void> done = Promise.promise();
            vertx.setTimer(2 * TIMEOUT_MS, id -> done.complete());
            return done.future();
        });
        Client probe = connect();
        probe.ws().writeTextMessage(hello("node-a"));
        JsonObject first = probe.next();
        assertEquals("welcome", first.getString("type"), first.encode());
    }

    @Test
    void aTakeOverThatNeverEndsClosesTheConnectionAfterThePatience(Vertx vertx) throws Exception {
        start(vertx);
        endpoint.clustered(node -> Optional.empty(), node -> Promise.<Void>promise().future());
        long opened = System.nanoTime();
        Client probe = connect();
        probe.ws().writeTextMessage(hello("node-a"));
        JsonObject error = probe.next();
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - opened);
        assertEquals("hello_timeout", error.getString("code"), error.encode());
        assertEquals("hello not admitted within " + ProbeSession.HELLO_PATIENCE * TIMEOUT_MS + " ms",
                error.getString("message"));
        assertTrue(waitedMs >= ProbeSession.HELLO_PATIENCE * TIMEOUT_MS, "closed after " + waitedMs + " ms");
        assertEquals(1008, probe.next().getInteger("code"));
    }

    @Test
    void anEventIsReadAndAcknowledgedWhileABacklogOfSamplesIsEvaluated(Vertx vertx) throws Exception {
        start(vertx);
        Client probe = connect();
        probe.ws().writeTextMessage(hello("node-a"));
        assertEquals("welcome", probe.next().getString("type"));
        long now = System.currentTimeMillis();
        for (int seq = 1; seq <= 200; seq++) {
            probe.ws().writeTextMessage("{\"type\":\"sample\",\"seq\":" + seq + ",\"ts\":" + (now + seq)
                    + ",\"cards\":[{\"uuid\":\"GPU-1\",\"gpuUtil\":97}]}");
        }
        while (evaluated.get() == 0) {
            Thread.sleep(5);
        }
        // the backlog is being evaluated: about 4 s of it is left
        probe.ws().writeTextMessage("{\"type\":\"event\",\"seq\":201,\"ts\":" + (now + 201)
                + ",\"uuid\":\"GPU-1\",\"kind\":\"xid\",\"xid\":79,\"text\":\"GPU has fallen off the bus\"}");
        while (true) {
            JsonObject f = probe.next();
            if ("ack".equals(f.getString("type")) && f.getLong("seq") >= 201) {
                break;
            }
        }
        int behind = evaluated.get();
        assertTrue(behind < 200, "the event was read only once all " + behind + " samples before it were evaluated");
    }
}
