package io.gpuwatch.probe.trace;

import io.gpuwatch.protocol.Ack;
import io.gpuwatch.protocol.ErrorFrame;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Welcome;
import io.gpuwatch.protocol.codec.Decoded;
import io.gpuwatch.protocol.codec.FrameCodec;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.ServerWebSocket;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;

/**
 * A stand-in for the gateway's probe endpoint that a replay talks to: one token per node ({@code token-NODE}),
 * checked at the handshake and against the hello; a welcome with the highest seq taken from the node's boot (so a
 * boot seen before drops its old seqs, as the real gateway does); an ack for every frame, unless told not to.
 * It notes the clock reading when each frame arrives.
 */
final class ReplayGateway {
    private final Vertx vertx;
    private final LongSupplier clock;
    private final FrameCodec codec = new FrameCodec();
    private final Map<String, Long> taken = new ConcurrentHashMap<>();
    final List<Connection> connections = new CopyOnWriteArrayList<>();
    volatile boolean ack = true;
    private HttpServer server;

    ReplayGateway(Vertx vertx, LongSupplier clock) {
        this.vertx = vertx;
        this.clock = clock;
    }

    static String token(String node) {
        return "token-" + node;
    }

    /** One accepted WebSocket and what came over it. */
    final class Connection {
        final ServerWebSocket ws;
        final String tokenNode;
        final List<Frame> frames = new CopyOnWriteArrayList<>();
        final List<Long> arrivals = new CopyOnWriteArrayList<>();
        volatile Short closeCode;

        Connection(ServerWebSocket ws, String tokenNode) {
            this.ws = ws;
            this.tokenNode = tokenNode;
        }

        Hello hello() {
            return (Hello) frames.get(0);
        }

        /** The numbered frames, in arrival order. */
        List<Frame> numbered() {
            return frames.subList(1, frames.size());
        }
    }

    Future<Integer> start() {
        server = vertx.createHttpServer().requestHandler(req -> {
            String auth = req.getHeader("Authorization");
            if (auth == null || !auth.startsWith("Bearer token-")) {
                req.response().setStatusCode(401).end("missing or unknown bearer token");
                return;
            }
            String node = auth.substring("Bearer token-".length());
            req.toWebSocket().onSuccess(ws -> {
                Connection c = new Connection(ws, node);
                connections.add(c);
                ws.closeHandler(v -> c.closeCode = ws.closeStatusCode());
                ws.textMessageHandler(text -> received(c, text));
            });
        });
        return server.listen(0, "localhost").map(HttpServer::actualPort);
    }

    private void received(Connection c, String text) {
        Decoded d = codec.decode(text);
        if (!(d instanceof Decoded.Ok ok)) {
            throw new AssertionError("the replay sent a frame the codec refuses: " + d + " in " + text);
        }
        Frame f = ok.frame();
        c.frames.add(f);
        c.arrivals.add(clock.getAsLong());
        if (f instanceof Hello h) {
            if (!h.node().equals(c.tokenNode)) {
                c.ws.writeTextMessage(codec.encode(new ErrorFrame("forbidden_node", null,
                        "token may not speak for node '" + h.node() + "'")));
                c.ws.close((short) 1008, "forbidden");
                return;
            }
            c.ws.writeTextMessage(codec.encode(new Welcome(Frame.VERSION, "s-" + connections.size(),
                    taken.getOrDefault(h.node() + "/" + h.bootId(), 0L), 1000)));
            return;
        }
        Hello h = c.hello();
        taken.merge(h.node() + "/" + h.bootId(), f.seq(), Math::max);
        if (ack) {
            c.ws.writeTextMessage(codec.encode(new Ack(f.seq())));
        }
    }

    /** The connections of a node, in the order they were opened. */
    List<Connection> of(String node) {
        return connections.stream().filter(c -> !c.frames.isEmpty() && c.hello().node().equals(node)).toList();
    }

    Future<Void> close() {
        return server == null ? Future.succeededFuture() : server.close();
    }
}
