package io.gpuwatch.gateway.ingest;

import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Sample;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.InstantSource;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A probe endpoint that acknowledges only what is on disk: the probe keeps the rest and sends it again after a
 * kill, and what a restart took back from the checkpoint is not taken twice. A real WebSocket on loopback.
 */
@ExtendWith(VertxExtension.class)
class DurableAckTest {
    private static final String TOKEN = "s3cret-token-for-tests";
    private static final IngestConfig CONFIG = new IngestConfig(64 * 1024, 1000, 1000, 64, 3, 10_000, 50, 1000);

    /** What reached the sink, as "type:seq". */
    private final List<String> taken = new CopyOnWriteArrayList<>();
    private final List<HttpServer> servers = new CopyOnWriteArrayList<>();
    private WebSocketClient client;

    private ProbeEndpoint endpoint(Vertx vertx) {
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(TOKEN, "node-*")));
        FrameSink sink = new FrameSink() {
            @Override
            public void hello(Hello hello) {
            }

            @Override
            public void frame(String node, Frame frame) {
                taken.add((frame instanceof Sample ? "sample" : frame instanceof Event ? "event" : frame.type())
                        + ":" + frame.seq());
            }

            @Override
            public void shed(String node, long at, long seq) {
            }

            @Override
            public void disconnected(String node) {
            }
        };
        ProbeEndpoint endpoint = new ProbeEndpoint(vertx, CONFIG, () -> tokens, sink, InstantSource.system());
        endpoint.ackWhenDurable();
        return endpoint;
    }

    private int listen(Vertx vertx, ProbeEndpoint endpoint) throws Exception {
        HttpServer server = vertx.createHttpServer().requestHandler(endpoint::upgrade)
                .listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        servers.add(server);
        if (client == null) {
            client = vertx.createWebSocketClient();
        }
        return server.actualPort();
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        }
        for (HttpServer s : servers) {
            s.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        }
    }

    private ProbeClient connect(int port) throws Exception {
        return ProbeClient.connect(client, port, TOKEN);
    }

    private static String hello(String boot) {
        return "{\"type\":\"hello\",\"v\":1,\"seq\":0,\"node\":\"node-1\",\"bootId\":\"" + boot + "\","
                + "\"cards\":[{\"uuid\":\"GPU-1\",\"index\":0,\"name\":\"NVIDIA H100 80GB HBM3\"}]}";
    }

    private static String sample(long seq) {
        return "{\"type\":\"sample\",\"seq\":" + seq + ",\"ts\":1764700000000,\"cards\":[{\"uuid\":\"GPU-1\","
                + "\"gpuUtil\":97,\"tempC\":70}]}";
    }

    private static String event(long seq) {
        return "{\"type\":\"event\",\"seq\":" + seq + ",\"ts\":1764700000000,\"uuid\":\"GPU-1\",\"kind\":\"xid\","
                + "\"xid\":79,\"text\":\"GPU has fallen off the bus\"}";
    }

    private void awaitTaken(int count) throws InterruptedException {
        for (int i = 0; i < 500 && taken.size() < count; i++) {
            Thread.sleep(10);
        }
        assertEquals(count, taken.size(), "taken: " + taken);
    }

    /** What was taken in seq order: events skip the samples' queue, so they may reach the sink first. */
    private List<String> bySeq() {
        return taken.stream().sorted(Comparator.comparingLong(t -> Long.parseLong(t.substring(t.indexOf(':') + 1))))
                .toList();
    }

    /** Runs {@code r} on the endpoint's event loop, where the checkpoint tells it what is on disk. */
    private static void onContext(Vertx vertx, Runnable r) {
        vertx.getOrCreateContext().runOnContext(v -> r.run());
    }

    @Test
    void framesAreAcknowledgedOnlyOnceOnDiskAndAReconnectResumesThere(Vertx vertx) throws Exception {
        ProbeEndpoint endpoint = endpoint(vertx);
        int port = listen(vertx, endpoint);
        ProbeClient probe = connect(port);
        probe.send(hello("boot-a"));
        assertEquals(0L, probe.next().getLong("ackedSeq"));
        probe.send(sample(1));
        probe.send(sample(2));
        probe.send(event(3));
        probe.send(sample(4));
        awaitTaken(4);

        // the checkpoint holds the samples up to 2: that much, and no more, is acknowledged; nothing was before
        onContext(vertx, () -> endpoint.durable("node-1", "boot-a", 2));
        JsonObject ack = probe.next();
        assertEquals("ack", ack.getString("type"), ack.encode());
        assertEquals(2L, ack.getLong("seq"), "the first acknowledgement is of what is on disk: " + ack.encode());
        // a seq of an earlier boot says nothing of this one
        onContext(vertx, () -> endpoint.durable("node-1", "boot-old", 4));
        probe.close();

        ProbeClient again = connect(port);
        again.send(hello("boot-a"));
        assertEquals(2L, again.next().getLong("ackedSeq"), "taken but not on disk: the probe sends it again");
        again.send(event(3));
        again.send(sample(4));
        again.send(sample(5));
        awaitTaken(5);
        assertEquals(List.of("sample:1", "sample:2", "event:3", "sample:4", "sample:5"), bySeq(),
                "what the gateway holds already is a duplicate");
        assertEquals(2, endpoint.counters().duplicates.get());
    }

    @Test
    void aRestartResumesWhereTheCheckpointStoodAndTakesNoRestoredEventTwice(Vertx vertx) throws Exception {
        // the checkpoint held the windows up to sample 3 and the event log up to event 5 (written a second later)
        ProbeEndpoint restarted = endpoint(vertx);
        restarted.resume("node-1", "boot-a", 3, 5);
        int port = listen(vertx, restarted);
        ProbeClient probe = connect(port);
        probe.send(hello("boot-a"));
        assertEquals(3L, probe.next().getLong("ackedSeq"), "the probe resumes after the samples the windows hold");
        for (String f : List.of(sample(4), event(5), sample(6), event(7))) {
            probe.send(f);
        }
        awaitTaken(3);
        assertEquals(List.of("sample:4", "sample:6", "event:7"), bySeq(),
                "event 5 is in the restored event log; sample 4 is not in the restored windows");

        ProbeClient rebooted = connect(port);
        rebooted.send(hello("boot-b"));
        assertEquals(0L, rebooted.next().getLong("ackedSeq"), "a new boot starts a new stream");
        rebooted.send(event(5));
        awaitTaken(4);
        assertEquals("event:5", taken.get(3), "the old boot's restored events say nothing of the new boot's");
    }
}
