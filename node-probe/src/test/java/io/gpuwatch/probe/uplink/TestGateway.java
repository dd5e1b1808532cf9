package io.gpuwatch.probe.uplink;

import io.gpuwatch.protocol.Ack;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Welcome;
import io.gpuwatch.protocol.codec.Decoded;
import io.gpuwatch.protocol.codec.FrameCodec;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.ServerWebSocket;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * A small stand-in for the gateway's probe endpoint: checks the bearer token at the handshake, answers hello
 * with welcome, acks events, and keeps every frame it received per connection. Like the real gateway, by default
 * its welcome carries the highest seq it has taken from the node's boot.
 */
public final class TestGateway {
    public static final String TOKEN = "s3cret-node-token";

    private final Vertx vertx;
    private final FrameCodec codec = new FrameCodec();
    private final Map<String, Long> taken = new ConcurrentHashMap<>();
    public final List<Connection> connections = new CopyOnWriteArrayList<>();
    public final AtomicInteger refused = new AtomicInteger();
    /** Decides a hello's answer: a frame to send (welcome, or error then close 1008); given the hello and its connection number. */
    public volatile BiFunction<Hello, Integer, Frame> answer = (hello, n) -> null;
    public volatile boolean ackEvents = true;
    private HttpServer server;

    public TestGateway(Vertx vertx) {
        this.vertx = vertx;
    }

    /** One accepted WebSocket and what came over it. */
    public final class Connection {
        public final ServerWebSocket ws;
        public final List<Frame> frames = new CopyOnWriteArrayList<>();
        public final List<String> texts = new CopyOnWriteArrayList<>();
        public volatile Short closeCode;
        public volatile boolean closed;

        Connection(ServerWebSocket ws) {
            this.ws = ws;
        }

        public void send(Frame f) {
            ws.writeTextMessage(codec.encode(f));
        }

        /** The seqs of the numbered frames, in arrival order. */
        public List<Long> seqs() {
            List<Long> out = new ArrayList<>();
            frames.stream().filter(f -> !(f instanceof Hello)).forEach(f -> out.add(f.seq()));
            return out;
        }
    }

    public Future<Integer> start() {
        return start(new HttpServerOptions());
    }

    /** Listens with these options (TLS, say) on a free port of localhost. */
    public Future<Integer> start(HttpServerOptions options) {
        server = vertx.createHttpServer(options).requestHandler(req -> {
            if (!("Bearer " + TOKEN).equals(req.getHeader("Authorization"))) {
                refused.incrementAndGet();
                req.response().setStatusCode(401).end("missing or unknown bearer token");
                return;
            }
            req.toWebSocket().onSuccess(ws -> {
                Connection c = new Connection(ws);
                connections.add(c);
                ws.closeHandler(v -> {
                    c.closeCode = ws.closeStatusCode();
                    c.closed = true;
                });
                ws.textMessageHandler(text -> received(c, text));
            });
        });
        return server.listen(0, "localhost").map(HttpServer::actualPort);
    }

    private void received(Connection c, String text) {
        Decoded d = codec.decode(text);
        if (!(d instanceof Decoded.Ok ok)) {
            throw new AssertionError("the uplink sent a frame the codec refuses: " + d + " in " + text);
        }
        Frame f = ok.frame();
        c.texts.add(text);
        c.frames.add(f);
        if (f instanceof Hello hello) {
            Frame reply = answer.apply(hello, connections.indexOf(c));
            if (reply == null) {
                reply = new Welcome(Frame.VERSION, "session-" + connections.size(),
                        taken.getOrDefault(hello.node() + "/" + hello.bootId(), 0L), 1000);
            }
            c.send(reply);
            if (!(reply instanceof Welcome)) {
                c.ws.close((short) 1008, "refused");
            }
            return;
        }
        Hello hello = (Hello) c.frames.get(0);
        taken.merge(hello.node() + "/" + hello.bootId(), f.seq(), Math::max);
        if (f instanceof Event && ackEvents) {
            c.send(new Ack(f.seq()));
        }
    }

    public Future<Void> close() {
        return server == null ? Future.succeededFuture() : server.close();
    }
}
