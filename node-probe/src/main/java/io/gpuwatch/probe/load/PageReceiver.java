package io.gpuwatch.probe.load;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A webhook endpoint for Alertmanager-format notifications (version 4) that notes when the first firing alert for
 * each card uuid arrived, so a load run can tell how long its XIDs took to page. Takes POSTs on any path.
 */
public final class PageReceiver {
    private static final String WARM_UP = "X-Gpuwatch-Warm-Up";
    private static final String WARM_UP_UUID = "gpuwatch-warm-up";
    private final Vertx vertx;
    private final LongSupplier clock;
    /** The key of a node alert's arrival in {@link #firstFirings()}, before the node's name. */
    private static final String NODE_KEY = "node/";
    private final Map<String, Long> firstFiring = new ConcurrentHashMap<>();
    private final AtomicLong posts = new AtomicLong();
    private final AtomicLong unreadable = new AtomicLong();
    private HttpServer server;

    public PageReceiver(Vertx vertx, LongSupplier clock) {
        this.vertx = vertx;
        this.clock = clock;
    }

    /**
     * Listens on {@code host:port} (0: any free port) and gives the port bound, once one warm-up POST to itself
     * has gone through, so the first real page is not timed with this receiver's own cold start.
     */
    public Future<Integer> listen(String host, int port) {
        server = vertx.createHttpServer().requestHandler(req -> req.body().onComplete(ar -> {
            long at = clock.getAsLong();
            if (ar.failed()) {
                return;
            }
            if (req.getHeader(WARM_UP) != null) {
                take(ar.result().toString(), at);
                firstFiring.remove(WARM_UP_UUID);
                req.response().setStatusCode(200).end();
                return;
            }
            posts.incrementAndGet();
            if (take(ar.result().toString(), at)) {
                req.response().setStatusCode(200).end();
            } else {
                unreadable.incrementAndGet();
                req.response().setStatusCode(400).end("expected Alertmanager webhook JSON with an 'alerts' array\n");
            }
        }));
        return server.listen(port, host).compose(bound -> warmUp(host, bound.actualPort()));
    }

    private Future<Integer> warmUp(String host, int port) {
        HttpClient client = vertx.createHttpClient();
        String body = new JsonObject().put("status", "firing").put("alerts", new JsonArray().add(new JsonObject()
                .put("status", "firing").put("labels", new JsonObject().put("uuid", WARM_UP_UUID)))).encode();
        return client.request(HttpMethod.POST, port, host, "/warm-up")
                .compose(req -> req.putHeader(WARM_UP, "1").send(body))
                .compose(HttpClientResponse::body)
                // a warm-up that fails only leaves the first page timed cold; the receiver works all the same
                .transform(ar -> client.close().transform(c -> Future.succeededFuture(port)));
    }

    /** Epoch ms the first firing alert covering this XID arrived (its card's, or its node's), or null. */
    public Long firstFiring(XidSent x) {
        return covering(firstFiring, x);
    }

    /** In {@link #firstFirings()}: the first firing page covering {@code x}, its card's or its node's, or null. */
    public static Long covering(Map<String, Long> firstFirings, XidSent x) {
        Long card = firstFirings.get(x.uuid());
        return card != null ? card : firstFirings.get(NODE_KEY + x.node());
    }

    /** First firing arrival per uuid, as it is now. */
    public Map<String, Long> firstFirings() {
        return Map.copyOf(firstFiring);
    }

    public long posts() {
        return posts.get();
    }

    /** POSTs whose body was not Alertmanager webhook JSON. */
    public long unreadable() {
        return unreadable.get();
    }

    public Future<Void> close() {
        return server == null ? Future.succeededFuture() : server.close();
    }

    private boolean take(String body, long at) {
        JsonObject payload;
        try {
            payload = new JsonObject(body);
        } catch (RuntimeException e) {
            return false;
        }
        if (!(payload.getValue("alerts") instanceof JsonArray alerts)) {
            return false;
        }
        String groupStatus = payload.getValue("status") instanceof String s ? s : null;
        for (Object o : alerts) {
            if (o instanceof JsonObject alert && alert.getValue("labels") instanceof JsonObject labels) {
                // a card alert names its uuid; a node alert (one page for the node's cards) only its node
                String key = labels.getValue("uuid") instanceof String uuid ? uuid
                        : labels.getValue("node") instanceof String node ? NODE_KEY + node : null;
                Object status = alert.getValue("status");
                if (key != null && "firing".equals(status instanceof String s ? s : groupStatus)) {
                    firstFiring.putIfAbsent(key, at);
                }
            }
        }
        return true;
    }
}
