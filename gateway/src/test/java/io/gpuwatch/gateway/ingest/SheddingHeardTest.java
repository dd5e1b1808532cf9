package io.gpuwatch.gateway.ingest;

import io.gpuwatch.gateway.delivery.RecordingReceiver;
import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A gateway that sheds a node's samples still hears the node: the example pack's {@code node-silent} does not
 * page for a node that is talking while we drop what it says, and still pages for a node that stopped talking.
 * Time is a fake clock the test moves; the gateway's real tick evaluates at whatever that clock says.
 */
@ExtendWith(VertxExtension.class)
class SheddingHeardTest {
    private static final String TOKEN = "s3cret-token-for-tests";
    private static final long T0 = 1_764_700_000_000L;

    private final AtomicLong now = new AtomicLong(T0);
    private Gateway gateway;
    /** Held for the whole test: Vert.x 5 closes a client, and its connections, once it is unreachable. */
    private WebSocketClient probes;

    /** Every notification the gateway sends, in order. */
    private final RecordingReceiver capture = new RecordingReceiver("capture");
    private final BlockingQueue<Notification> sent = capture.arrivals();

    @BeforeEach
    void start(Vertx vertx, VertxTestContext ctx) throws Exception {
        Path file = Path.of("../examples/rules/node-health.yml");
        RuleLoad load = RuleSet.parse(file.toString(), Files.readString(file));
        assertTrue(load.ok(), load.diagnostics().toString());
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(TOKEN, "node-*")));
        InstantSource clock = () -> Instant.ofEpochMilli(now.get());
        // one sample of burst and no refill: every sample after a connection's first is shed
        IngestConfig ingest = new IngestConfig(64 * 1024, 0, 1, 64, 3, 10_000, 100, 1000);
        gateway = new Gateway(new GatewayConfig("127.0.0.1", 0, ingest, 20, "http://localhost"),
                load.ruleSet(), () -> tokens, List.of(capture), clock);
        probes = vertx.createWebSocketClient();
        vertx.deployVerticle(gateway).onComplete(ctx.succeedingThenComplete());
    }

    private record Client(WebSocket ws, BlockingQueue<JsonObject> in) {
        /** The next frame from the gateway of {@code type}, skipping the others (acks come on their own timer). */
        JsonObject next(String type) throws InterruptedException {
            while (true) {
                JsonObject f = in.poll(5, TimeUnit.SECONDS);
                assertNotNull(f, "no " + type + " frame from the gateway within 5 s");
                if (type.equals(f.getString("type"))) {
                    return f;
                }
            }
        }

        void send(String json) {
            ws.writeTextMessage(json);
        }
    }

    private Client connect(String node) throws Exception {
        WebSocketConnectOptions o = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(gateway.port())
                .setURI("/v1/probe").addHeader("Authorization", "Bearer " + TOKEN);
        BlockingQueue<JsonObject> in = new ArrayBlockingQueue<>(1000);
        WebSocket ws = probes.connect(o)
                .onSuccess(s -> s.textMessageHandler(t -> in.add(new JsonObject(t))))
                .toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        Client c = new Client(ws, in);
        c.send("{\"type\":\"hello\",\"v\":1,\"seq\":0,\"node\":\"" + node + "\",\"bootId\":\"boot-a\","
                + "\"cards\":[{\"uuid\":\"GPU-1\",\"index\":0,\"name\":\"NVIDIA H100 80GB HBM3\"}]}");
        c.next("welcome");
        return c;
    }

    private static String sample(long seq, long ts) {
        return "{\"type\":\"sample\",\"seq\":" + seq + ",\"ts\":" + ts
                + ",\"cards\":[{\"uuid\":\"GPU-1\",\"gpuUtil\":97,\"tempC\":60}]}";
    }

    @Test
    void aNodeWhoseSamplesAreAllShedIsNotSilentButANodeThatStoppedIs() throws Exception {
        Client talking = connect("node-talking");
        Client quiet = connect("node-quiet");
        talking.send(sample(1, T0));
        quiet.send(sample(1, T0));
        talking.next("ack");
        quiet.next("ack");
        assertEquals(2, gateway.probes().counters().samples.get());

        // 40 s of samples every 10 s from one node, every one shed; node-silent's threshold is 30 s
        for (int i = 2; i <= 5; i++) {
            now.addAndGet(10_000);
            talking.send(sample(i, now.get()));
            JsonObject told = talking.next("error");
            assertEquals("rate_limited", told.getString("code"), "the probe is told its sample was dropped");
        }
        assertEquals(4, gateway.probes().counters().shedSamples.get());
        assertEquals(2, gateway.probes().counters().samples.get(), "not one of them reached the windows");

        Notification page = sent.poll(5, TimeUnit.SECONDS);
        assertNotNull(page, "the node that stopped talking pages");
        assertEquals("node-silent", page.labels().get("alertname"));
        assertEquals("node-quiet", page.labels().get("node"));
        assertEquals(Notification.Status.FIRING, page.status());
        // the tick that paged for node-quiet evaluated node-talking at the same time, 40 s after its last sample
        // that was taken and 10 s after its last one that was shed
        assertEquals(1, gateway.stats().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS)
                .firing(), "node-talking never fired");
        assertEquals(List.of(), List.copyOf(sent), "nothing was sent about node-talking");
        talking.ws().close();
        quiet.ws().close();
    }
}
