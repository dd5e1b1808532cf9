package io.gpuwatch.gateway.delivery;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * A probe for tests over the real WebSocket protocol: one node with one card, {@code GPU-1}; each sample waits
 * for its ack, so the gateway has evaluated it by the time {@link #sample} returns.
 */
final class TestProbe {
    private final BlockingQueue<JsonObject> in;
    private final WebSocketClient client;
    private final WebSocket ws;
    private long seq;

    private TestProbe(WebSocketClient client, WebSocket ws, BlockingQueue<JsonObject> in) {
        this.client = client;
        this.ws = ws;
        this.in = in;
    }

    static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    /** Connects as {@code node} with {@code token} and says hello, with these node labels as JSON text. */
    static TestProbe connect(Vertx vertx, int port, String token, String node, String labelsJson) throws Exception {
        WebSocketConnectOptions o = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port)
                .setURI("/v1/probe").addHeader("Authorization", "Bearer " + token);
        WebSocketClient client = vertx.createWebSocketClient();
        BlockingQueue<JsonObject> in = new LinkedBlockingQueue<>();
        WebSocket ws = await(client.connect(o).onSuccess(s -> s.textMessageHandler(t -> in.add(new JsonObject(t)))));
        TestProbe probe = new TestProbe(client, ws, in);
        ws.writeTextMessage("{\"type\":\"hello\",\"v\":1,\"seq\":0,\"node\":\"" + node + "\",\"bootId\":\"boot-a\","
                + "\"labels\":" + labelsJson + ",\"cards\":[{\"uuid\":\"GPU-1\",\"index\":0,\"name\":\"H100\"}]}");
        assertNotNull(probe.in.poll(20, TimeUnit.SECONDS), "no welcome");
        return probe;
    }

    /** A sample of GPU-1 at {@code tempC}, taken at {@code at} (epoch ms), evaluated when this returns. */
    void sample(long at, double tempC) throws Exception {
        long s = ++seq;
        ws.writeTextMessage("{\"type\":\"sample\",\"seq\":" + s + ",\"ts\":" + at + ",\"cards\":["
                + "{\"uuid\":\"GPU-1\",\"tempC\":" + tempC + "}]}");
        while (true) {
            JsonObject f = in.poll(20, TimeUnit.SECONDS);
            assertNotNull(f, "no ack for sample " + s);
            if ("ack".equals(f.getString("type")) && f.getLong("seq") >= s) {
                return;
            }
        }
    }

    void close() throws Exception {
        await(client.close());
    }
}
