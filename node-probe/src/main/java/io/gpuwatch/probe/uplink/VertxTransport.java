package io.gpuwatch.probe.uplink;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.net.PemTrustOptions;

import java.util.concurrent.CompletableFuture;
import java.util.logging.Logger;

/** An uplink's connections over Vert.x's WebSocket client, on one Vert.x context. */
final class VertxTransport implements Transport {
    private static final Logger LOG = Logger.getLogger(VertxTransport.class.getName());

    private final Vertx vertx;
    private final Context context;
    private final WebSocketClient client;

    VertxTransport(Vertx vertx, UplinkConfig config) {
        this.vertx = vertx;
        this.context = vertx.getOrCreateContext();
        WebSocketClientOptions options = new WebSocketClientOptions()
                .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, config.welcomeTimeoutMs()));
        if (config.ssl()) {
            options.setSsl(true);
        }
        // per connection the target says whether it is TLS; a wss:// one checks the host and trusts the PEM
        options.setVerifyHost(true);
        if (config.trustPemPath() != null) {
            options.setTrustOptions(new PemTrustOptions().addCertPath(config.trustPemPath()));
        }
        this.client = vertx.createWebSocketClient(options);
    }

    Context context() {
        return context;
    }

    @Override
    public void execute(Runnable action) {
        context.runOnContext(v -> action.run());
    }

    @Override
    public boolean onLoop() {
        return Vertx.currentContext() == context;
    }

    @Override
    public Runnable timer(long delayMs, Runnable action) {
        long id = vertx.setTimer(delayMs, i -> action.run());
        return () -> vertx.cancelTimer(id);
    }

    @Override
    public void connect(Target to, String token, long timeoutMs, Listener listener) {
        WebSocketConnectOptions options = new WebSocketConnectOptions().setHost(to.host())
                .setPort(to.port()).setURI(to.path()).setSsl(to.ssl());
        if (token != null) {
            options.addHeader("Authorization", "Bearer " + token);
        }
        client.connect(options).onComplete(ar -> {
            if (ar.failed()) {
                Throwable e = ar.cause();
                listener.failed(e instanceof UpgradeRejectedException r && r.getStatus() == 401
                        ? "the gateway refused the token (HTTP 401)" : e.getMessage());
                return;
            }
            WebSocket ws = ar.result();
            Socket socket = new Socket() {
                @Override
                public void send(String text) {
                    ws.writeTextMessage(text);
                }

                @Override
                public boolean writeQueueFull() {
                    return ws.writeQueueFull();
                }

                @Override
                public void drainHandler(Runnable handler) {
                    ws.drainHandler(v -> handler.run());
                }

                @Override
                public CompletableFuture<Void> close(short code, String reason) {
                    CompletableFuture<Void> done = new CompletableFuture<>();
                    ws.close(code, reason).onComplete(r -> done.complete(null));
                    return done;
                }
            };
            ws.textMessageHandler(text -> listener.text(socket, text));
            ws.binaryMessageHandler(b -> LOG.fine("ignoring a binary frame from the gateway"));
            ws.exceptionHandler(e -> LOG.fine(() -> to + ": " + e.getMessage()));
            ws.closeHandler(v -> listener.closed(socket, ws.closeStatusCode(), ws.closeReason()));
            listener.opened(socket);
        });
    }

    @Override
    public CompletableFuture<Void> close() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        client.close().onComplete(r -> done.complete(null));
        return done;
    }
}
