package io.gpuwatch.notify.http;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.Consumer;

/**
 * A real local HTTP server on port 0 standing in for a receiver's service: each request is first shown to
 * {@link #seen}, then answered by the next answer queued with {@link #then} while any is left, else by the
 * service's own {@link #handle}.
 *
 * @param <S> the fake itself, so that {@link #then} and {@link #start} hand it back as what it is
 */
public abstract class FakeService<S extends FakeService<S>> {
    private final Deque<Consumer<HttpServerRequest>> scripted = new ArrayDeque<>();
    private int port;

    /** Queues an answer that takes the next request the script has not yet answered. */
    public final S then(Consumer<HttpServerRequest> answer) {
        scripted.add(answer);
        return self();
    }

    /** Starts listening on 127.0.0.1. */
    public final Future<S> start(Vertx vertx) {
        return vertx.createHttpServer()
                .requestHandler(req -> req.body().onSuccess(body -> {
                    seen(req);
                    if (!scripted.isEmpty()) {
                        scripted.poll().accept(req);
                        return;
                    }
                    handle(req, body.toString());
                }))
                .listen(0, "127.0.0.1")
                .map(server -> {
                    port = server.actualPort();
                    return self();
                });
    }

    /** The server's base URL, without a trailing slash. */
    protected final String base() {
        return "http://127.0.0.1:" + port;
    }

    /** Records a request before it is answered, scripted or not. */
    protected abstract void seen(HttpServerRequest req);

    /** Answers a request as the service would. */
    protected abstract void handle(HttpServerRequest req, String body);

    @SuppressWarnings("unchecked")
    private S self() {
        return (S) this;
    }
}
