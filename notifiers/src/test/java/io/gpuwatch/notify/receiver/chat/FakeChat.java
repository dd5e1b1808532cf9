package io.gpuwatch.notify.receiver.chat;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real local HTTP server on port 0 standing in for a chat service: it records every request and answers
 * the n-th (0-based) as the test's script says, so a test can both check requests and play real error replies.
 */
public final class FakeChat {
    /** One request as the server saw it; {@code query} is raw, {@code params} are the decoded query parameters. */
    public record Received(String method, String path, String query, MultiMap params, MultiMap headers, String body) {
        /** The body as JSON. */
        public JsonObject json() {
            return new JsonObject(body);
        }
    }

    /** How the server answers request number {@code n} (0-based), already read into {@code got}. */
    @FunctionalInterface
    public interface Script {
        void answer(int n, HttpServerRequest req, Received got);
    }

    /** Every request received, in order. */
    public final List<Received> received = new CopyOnWriteArrayList<>();
    private final Script script;
    private int port;

    public FakeChat(Script script) {
        this.script = script;
    }

    /** Answers the requests in turn with these status and body pairs, then keeps repeating the last. */
    public static FakeChat answering(Object... statusThenBody) {
        return new FakeChat((n, req, got) -> {
            int i = Math.min(n, statusThenBody.length / 2 - 1) * 2;
            req.response().setStatusCode((Integer) statusThenBody[i]).end((String) statusThenBody[i + 1]);
        });
    }

    /** Starts listening on 127.0.0.1. */
    public Future<FakeChat> start(Vertx vertx) {
        return vertx.createHttpServer()
                .requestHandler(req -> req.body().onSuccess(body -> {
                    int n = received.size();
                    Received got = new Received(req.method().name(), req.path(), req.query(),
                            MultiMap.caseInsensitiveMultiMap().addAll(req.params()),
                            MultiMap.caseInsensitiveMultiMap().addAll(req.headers()), body.toString());
                    received.add(got);
                    script.answer(n, req, got);
                }))
                .listen(0, "127.0.0.1")
                .map(server -> {
                    port = server.actualPort();
                    return this;
                });
    }

    /** An absolute URL on this server. */
    public String url(String pathAndQuery) {
        return "http://127.0.0.1:" + port + pathAndQuery;
    }
}
