package io.gpuwatch.gateway.ingest;

import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNotNull;

/** A test's probe: a WebSocket to a gateway's probe endpoint on loopback, whose incoming frames queue up. */
public record ProbeClient(WebSocket ws, BlockingQueue<JsonObject> in) {
    /** Connects to {@code port} with {@code token} as the bearer. */
    public static ProbeClient connect(WebSocketClient client, int port, String token) throws Exception {
        WebSocketConnectOptions o = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port)
                .setURI(ProbeEndpoint.PATH).addHeader("Authorization", "Bearer " + token);
        BlockingQueue<JsonObject> in = new LinkedBlockingQueue<>();
        WebSocket ws = client.connect(o).onSuccess(s -> s.textMessageHandler(t -> in.add(new JsonObject(t))))
                .toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        return new ProbeClient(ws, in);
    }

    /** The next frame from the gateway, waiting up to 10 s. */
    public JsonObject next() throws InterruptedException {
        JsonObject f = in.poll(10, TimeUnit.SECONDS);
        assertNotNull(f, "nothing from the gateway within 10 s");
        return f;
    }

    public void send(String json) {
        ws.writeTextMessage(json);
    }

    public void close() throws Exception {
        ws.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }
}
