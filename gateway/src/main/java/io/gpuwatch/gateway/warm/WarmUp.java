package io.gpuwatch.gateway.warm;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.ingest.ProbeEndpoint;
import io.gpuwatch.notify.receiver.webhook.WebhookConfig;
import io.gpuwatch.notify.receiver.webhook.WebhookReceiver;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.ext.web.client.WebClient;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A synthetic incident run end to end through a scratch gateway on loopback before the real gateway takes
 * probes: a probe's WebSocket, hello, a hot sample and an XID 79, the rules firing, the ledger, dispatch and a
 * webhook page to a local sink. The first real page otherwise pays for loading and initialising every class on
 * that path (measured: ~350 ms of a 485 ms first page at 10,000 cards); after this it pays nothing of it. The
 * scratch gateway shares no state with the real one and sends nothing off the host.
 */
public final class WarmUp {
    private static final String NODE = "gpuwatch-warm-up";
    private static final String CARD = "GPU-00000000-0000-0000-0000-00000000warm";
    private static final String RULES = """
            group: warm-up
            layer: device
            severity: page
            rules:
              - name: warm-up-xid
                scope: card
                when: count(events('xid', 79), 2m) > 0
                summary: "@{card.name} (GPU @{card.index}) on @{node} fell off the bus (XID 79)"
              - name: warm-up-hot
                scope: card
                when: tempC > 80 && avg(tempC, 1m) > 80
                summary: "@{card.name} on @{node} runs at @{tempC} C"
              - name: warm-up-node
                scope: node
                when: count(events('xid'), 2m) >= 1
                summary: "@{count(events('xid'), 2m)} XIDs on @{node}"
            """;

    private WarmUp() {
    }

    /**
     * Runs the incident on {@code vertx} and completes with how long it took once the sink has every page, or
     * fails when it did not come within {@code limit}; either way the scratch gateway and sink are gone after.
     */
    public static Future<Duration> run(Vertx vertx, Duration limit) {
        long started = System.nanoTime();
        RuleLoad load = RuleSet.parse("warm-up.yml", RULES);
        if (!load.ok()) {
            return Future.failedFuture(new IllegalStateException("the warm-up rules do not load: " + load.diagnostics()));
        }
        String token = UUID.randomUUID().toString();
        Promise<Void> paged = Promise.promise();
        int expected = load.ruleSet().rules().size();
        AtomicInteger pages = new AtomicInteger();
        WebClient client = WebClient.create(vertx);
        WebSocketClient probe = vertx.createWebSocketClient();
        Logger gatewayLog = Logger.getLogger("io.gpuwatch.gateway");
        Level level = gatewayLog.getLevel();
        // the scratch gateway's "listening" and "node connected" lines would read as the real gateway's
        gatewayLog.setLevel(Level.WARNING);
        Holder held = new Holder();
        // setup settles on its own (each step fails in bounded time); only the wait for the page is cut short
        Future<Void> setup = vertx.createHttpServer()
                .requestHandler(req -> req.body().onComplete(b -> {
                    req.response().setStatusCode(200).end();
                    // every rule pages once; closing before the last page lands would log it as a failed delivery
                    if (pages.incrementAndGet() == expected) {
                        paged.tryComplete();
                    }
                }))
                .listen(0, "127.0.0.1")
                .compose(sink -> {
                    held.sink = sink;
                    WebhookReceiver webhook = WebhookReceiver.create(vertx, client, "warm-up",
                            WebhookConfig.of("http://127.0.0.1:" + sink.actualPort() + "/warm-up"), "http://localhost");
                    held.gateway = new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 1000,
                            "http://localhost"), load.ruleSet(), () -> TokenFile.of(List.of(TokenFile.entry(token, NODE))),
                            List.of(webhook), InstantSource.system());
                    return vertx.deployVerticle(held.gateway);
                })
                .compose(id -> {
                    held.deployment = id;
                    return probe.connect(new WebSocketConnectOptions().setHost("127.0.0.1")
                            .setPort(held.gateway.port()).setURI(ProbeEndpoint.PATH)
                            .addHeader("Authorization", "Bearer " + token));
                })
                .compose(ws -> {
                    held.ws = ws;
                    return incident(ws);
                });
        Future<Duration> done = setup.compose(v -> paged.future())
                .timeout(limit.toMillis(), TimeUnit.MILLISECONDS)
                .map(v -> Duration.ofNanos(System.nanoTime() - started));
        return done.eventually(() -> setup.transform(ar -> {
            gatewayLog.setLevel(level);
            Future<Void> closed = held.ws == null ? Future.succeededFuture() : held.ws.close();
            return closed.recover(e -> Future.succeededFuture())
                    .compose(v -> held.deployment == null ? Future.succeededFuture()
                            : vertx.undeploy(held.deployment).recover(e -> Future.succeededFuture()))
                    .compose(v -> held.sink == null ? Future.succeededFuture() : held.sink.close())
                    .compose(v -> probe.close())
                    .onComplete(c -> client.close());
        }));
    }

    private static Future<Void> incident(WebSocket ws) {
        long now = System.currentTimeMillis();
        return ws.writeTextMessage("""
                        {"type":"hello","v":1,"seq":0,"node":"%s","bootId":"%s","probe":"gpuwatch-warm-up",\
                        "cards":[{"uuid":"%s","index":0,"name":"warm-up card","memTotalBytes":85520809984,\
                        "powerLimitW":700}]}""".formatted(NODE, UUID.randomUUID(), CARD))
                .compose(v -> ws.writeTextMessage("""
                        {"type":"sample","seq":1,"ts":%d,"cards":[{"uuid":"%s","gpuUtil":97,"memUtil":41,\
                        "memUsedBytes":61203283968,"tempC":91,"powerW":612.4,"smClockMHz":1755,\
                        "clockEventReasons":["HW_THERMAL_SLOWDOWN"],"eccUncorrectedVolatile":0,"smActive":0.62,\
                        "processes":[{"pid":4242,"usedMemBytes":60129542144,"task":"warm-up","owner":"gpuwatch",\
                        "business":"warm-up"}]}]}""".formatted(now, CARD)))
                .compose(v -> ws.writeTextMessage("""
                        {"type":"event","seq":2,"ts":%d,"uuid":"%s","kind":"xid","xid":79,\
                        "text":"GPU has fallen off the bus","pid":4242}""".formatted(now + 1, CARD)));
    }

    /** What the run has opened so far, so that cleaning up closes exactly that. */
    private static final class Holder {
        HttpServer sink;
        Gateway gateway;
        String deployment;
        WebSocket ws;
    }
}
