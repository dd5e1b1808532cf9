package io.gpuwatch.cli.chaos;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bench's webhook receiver: records every alert of every Alertmanager-format notification it takes in, and on
 * cue answers 503 for a while (a receiver outage) or holds its answer (so a kill lands while a send is in flight).
 * A held notification counts as received: a real receiver may well have acted on it before its answer was lost.
 */
final class WebhookSink {
    private final Vertx vertx;
    private volatile long startMs;
    private final List<Delivery> received = new ArrayList<>();
    private HttpServer server;
    private volatile long outageUntilMs;
    private final AtomicLong refused = new AtomicLong();
    private long holdMs;
    private Promise<Void> held;

    WebhookSink(Vertx vertx) {
        this.vertx = vertx;
    }

    /** Arrival times are counted from {@code epochMs}, the run's start. */
    void startAt(long epochMs) {
        startMs = epochMs;
    }

    /** Listens on 127.0.0.1 on any free port and gives the port. */
    Future<Integer> listen() {
        server = vertx.createHttpServer().requestHandler(this::handle);
        return server.listen(0, "127.0.0.1").map(HttpServer::actualPort);
    }

    /** Answers 503 to every notification until {@code untilMs} (epoch ms). */
    void outageUntil(long untilMs) {
        outageUntilMs = untilMs;
    }

    /**
     * Holds the answer to the next notification for {@code ms}; the future completes when that notification has
     * arrived, that is, while its send is in flight.
     */
    synchronized Future<Void> holdNext(long ms) {
        holdMs = ms;
        held = Promise.promise();
        return held.future();
    }

    /** Answers the next notification at once again, when no send came to hold. */
    synchronized void cancelHold() {
        held = null;
    }

    /** Every alert received so far, in arrival order. */
    synchronized List<Delivery> received() {
        return List.copyOf(received);
    }

    /** Notifications answered with 503. */
    long refused() {
        return refused.get();
    }

    Future<Void> close() {
        return server == null ? Future.succeededFuture() : server.close();
    }

    private void handle(HttpServerRequest req) {
        req.body().onSuccess(body -> {
            long now = System.currentTimeMillis();
            if (now < outageUntilMs) {
                refused.incrementAndGet();
                req.response().setStatusCode(503).end("receiver outage (chaos bench)\n");
                return;
            }
            JsonArray alerts;
            try {
                alerts = new JsonObject(body).getJsonArray("alerts");
            } catch (RuntimeException e) {
                req.response().setStatusCode(400).end("expected Alertmanager webhook JSON\n");
                return;
            }
            if (alerts == null) {
                req.response().setStatusCode(400).end("expected an 'alerts' array\n");
                return;
            }
            long hold = record(alerts, req.getHeader("Idempotency-Key"), now - startMs);
            if (hold > 0) {
                vertx.setTimer(hold, t -> req.response().setStatusCode(200).end());
            } else {
                req.response().setStatusCode(200).end();
            }
        });
    }

    /** Records the alerts and gives how long to hold the answer (0: answer now). */
    private synchronized long record(JsonArray alerts, String key, long atMs) {
        for (int i = 0; i < alerts.size(); i++) {
            JsonObject a = alerts.getJsonObject(i);
            JsonObject labels = a.getJsonObject("labels", new JsonObject());
            received.add(new Delivery(atMs, key, a.getString("fingerprint"), labels.getString("alertname"),
                    labels.getString("node"), a.getString("status"), a.getString("startsAt"), a.getString("endsAt")));
        }
        if (held == null) {
            return 0;
        }
        long hold = holdMs;
        held.tryComplete();
        held = null;
        return hold;
    }
}
