package io.gpuwatch.gateway.ingest;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Promise;
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

import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A gateway endpoint made a cluster's: hellos of nodes owned elsewhere are redirected, owned ones taken over. */
@ExtendWith(VertxExtension.class)
class ProbeRedirectTest {
    private static final String TOKEN = "s3cret-token-for-tests";
    private static final String OWNER = "ws://127.0.0.1:19464/v1/probe";

    private Gateway gateway;
    private WebSocketClient probes;
    private final List<String> takenOver = new CopyOnWriteArrayList<>();
    private final CompletableFuture<Promise<Void>> takeOver = new CompletableFuture<>();

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
        gateway = new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 1000, "http://localhost"),
                load.ruleSet(), () -> tokens, List.of(), InstantSource.system());
        probes = vertx.createWebSocketClient();
        vertx.deployVerticle(gateway).onComplete(ctx.succeeding(id -> {
            gateway.probes().clustered(node -> node.equals("node-elsewhere") ? Optional.of(OWNER) : Optional.empty(),
                    node -> {
                        takenOver.add(node);
                        Promise<Void> p = Promise.promise();
                        takeOver.complete(p);
                        return p.future();
                    });
            ctx.completeNow();
        }));
    }

    private WebSocket connect(BlockingQueue<JsonObject> in) throws Exception {
        WebSocketConnectOptions o = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(gateway.port())
                .setURI(ProbeEndpoint.PATH).addHeader("Authorization", "Bearer " + TOKEN);
        return probes.connect(o).onSuccess(s -> s.textMessageHandler(t -> in.add(new JsonObject(t))))
                .toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private static String hello(String node) {
        return "{\"type\":\"hello\",\"v\":1,\"seq\":0,\"node\":\"" + node + "\",\"bootId\":\"b\","
                + "\"cards\":[{\"uuid\":\"GPU-1\",\"index\":0,\"name\":\"NVIDIA H100 80GB HBM3\"}]}";
    }

    @Test
    void aNodeOwnedElsewhereIsToldWhereToGoAndNothingOfItIsKept() throws Exception {
        BlockingQueue<JsonObject> in = new ArrayBlockingQueue<>(10);
        WebSocket ws = connect(in);
        CompletableFuture<Short> closed = new CompletableFuture<>();
        ws.closeHandler(v -> closed.complete(ws.closeStatusCode()));
        ws.writeTextMessage(hello("node-elsewhere"));

        JsonObject welcome = in.poll(5, TimeUnit.SECONDS);
        assertNotNull(welcome, "a welcome");
        assertEquals("welcome", welcome.getString("type"));
        assertEquals(OWNER, welcome.getString("redirect"));
        assertEquals((short) 1000, closed.get(5, TimeUnit.SECONDS));
        assertNull(gateway.fleet().node("node-elsewhere"), "the node belongs to another gateway");
        assertEquals(List.of(), takenOver);
    }

    @Test
    void anOwnedNodeIsWelcomedOnceItsTakeOverIsDone() throws Exception {
        BlockingQueue<JsonObject> in = new ArrayBlockingQueue<>(10);
        WebSocket ws = connect(in);
        ws.writeTextMessage(hello("node-1"));

        Promise<Void> pending = takeOver.get(5, TimeUnit.SECONDS);
        assertEquals(List.of("node-1"), takenOver);
        assertTrue(in.isEmpty(), "no welcome before the node's alerts are back: " + in);
        pending.complete();

        JsonObject welcome = in.poll(5, TimeUnit.SECONDS);
        assertNotNull(welcome, "the welcome after the take-over");
        assertEquals("welcome", welcome.getString("type"));
        assertFalse(welcome.containsKey("redirect"));
        assertNotNull(gateway.fleet().node("node-1"));
    }
}
