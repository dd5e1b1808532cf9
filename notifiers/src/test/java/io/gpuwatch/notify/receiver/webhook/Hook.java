package io.gpuwatch.notify.receiver.webhook;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

/** A real local HTTP server on port 0 that answers the n-th request (0-based) as its script says. */
final class Hook {
    /** One request as the server saw it. */
    record Received(String uri, MultiMap headers, String body) {
        JsonObject json() {
            return new JsonObject(body);
        }
    }

    final List<Received> received = new CopyOnWriteArrayList<>();
    private final BiConsumer<Integer, HttpServerRequest> script;
    private int port;

    Hook(BiConsumer<Integer, HttpServerRequest> script) {
        this.script = script;
    }

    /** Answers every request with this status and an empty body. */
    static Hook always(int status) {
        return new Hook((n, req) -> req.response().setStatusCode(status).end());
    }

    /** Answers the requests in turn with these statuses, then keeps repeating the last. */
    static Hook statuses(int... statuses) {
        return new Hook((n, req) -> req.response().setStatusCode(statuses[Math.min(n, statuses.length - 1)]).end());
    }

    Future<Hook> start(Vertx vertx) {
        return vertx.createHttpServer()
                .requestHandler(req -> req.body().onSuccess(body -> {
                    int n = received.size();
                    received.add(new Received(req.uri(), MultiMap.caseInsensitiveMultiMap().addAll(req.headers()),
                            body.toString()));
                    script.accept(n, req);
                }))
                .listen(0, "127.0.0.1")
                .map(server -> {
                    port = server.actualPort();
                    return this;
                });
    }

    String url(String pathAndQuery) {
        return "http://127.0.0.1:" + port + pathAndQuery;
    }
}
