package io.gpuwatch.gateway.delivery;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.reload.RuleFiles;
import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.gateway.route.RoutingLoad;
import io.gpuwatch.gateway.store.AsyncStore;
import io.gpuwatch.gateway.store.Backoff;
import io.gpuwatch.gateway.store.OutboxEntry;
import io.gpuwatch.notify.receiver.webhook.HttpAuth;
import io.gpuwatch.notify.receiver.webhook.WebhookConfig;
import io.gpuwatch.notify.receiver.webhook.WebhookReceiver;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.gpuwatch.gateway.delivery.TestProbe.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A gateway stopping with a resolution still waiting for its group's interval: it sends it before stop
 * returns, and keeps in the outbox what its receiver would not take within the shutdown timeout.
 */
class ShutdownFlushTest {
    private static final String TOKEN = "shutdown-test-token";
    private static final String RULES = """
            group: shutdown
            layer: device
            scope: card
            rules:
              - name: too-hot
                severity: page
                when: tempC > 90
            """;
    /** The first page at once, then nothing for an hour: a resolution waits for the gateway to stop. */
    private static final String ROUTES = """
            route:
              receiver: hook
              group_by: [alertname, node]
              group_wait: 0s
              group_interval: 1h
            """;

    @TempDir
    Path dir;
    /** Serves the webhook on a Vert.x of its own, so closing the gateway's leaves it up. */
    private Vertx hookVertx;
    private HttpServer hook;
    private final BlockingQueue<JsonObject> posted = new LinkedBlockingQueue<>();
    /** How many more requests the hook refuses with 503. */
    private final AtomicInteger refuse = new AtomicInteger();

    @BeforeEach
    void serve() throws Exception {
        hookVertx = Vertx.vertx();
        hook = await(hookVertx.createHttpServer().requestHandler(req -> req.body().onSuccess(b -> {
            if (refuse.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                req.response().setStatusCode(503).end();
                return;
            }
            posted.add(b.toJsonObject());
            req.response().setStatusCode(200).end();
        })).listen(0, "127.0.0.1"));
    }

    @AfterEach
    void close() throws Exception {
        await(hookVertx.close());
    }

    private Gateway gateway(Vertx vertx, Path dataDir, Duration shutdownTimeout) {
        RuleLoad rules = RuleSet.parse("shutdown.yml", RULES);
        assertTrue(rules.ok(), rules.diagnostics().toString());
        RoutingLoad routing = RoutingConfig.parse("routes.yml", ROUTES, Set.of("hook"));
        assertTrue(routing.ok(), routing.diagnostics().toString());
        WebhookConfig config = new WebhookConfig("http://127.0.0.1:" + hook.actualPort() + "/hook", HttpAuth.NONE,
                2000, 1, 100, 1000, 0);
        WebhookReceiver receiver = WebhookReceiver.create(vertx, WebClient.create(vertx), "hook", config, "http://gw");
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(TOKEN, "node-*")));
        GatewayConfig gc = new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 200, "http://gw", dataDir)
                .withShutdownTimeout(shutdownTimeout);
        return new Gateway(gc, rules.ruleSet(), RuleFiles.none(), () -> tokens, List.of(receiver), routing.config(),
                InstantSource.system());
    }

    private JsonObject next() throws InterruptedException {
        JsonObject body = posted.poll(10, TimeUnit.SECONDS);
        assertNotNull(body, "the webhook was posted to");
        return body;
    }

    @Test
    void aResolutionWaitingForItsGroupIsSentBeforeStopReturns() throws Exception {
        Vertx vertx = Vertx.vertx();
        Gateway g = gateway(vertx, null, Duration.ofSeconds(10));
        String id = await(vertx.deployVerticle(g));
        TestProbe probe = TestProbe.connect(vertx, g.port(), TOKEN, "node-1", "{}");
        probe.sample(System.currentTimeMillis(), 95);
        assertEquals("firing", next().getString("status"));
        probe.sample(System.currentTimeMillis(), 60);
        assertNull(posted.poll(300, TimeUnit.MILLISECONDS), "the resolution waits for the group's interval");

        // as the CLI stops: the gateway first, while its receivers' clients are still open
        await(vertx.undeploy(id));
        JsonObject last = posted.poll();
        await(vertx.close());
        assertNotNull(last, "the resolution was delivered before stop returned");
        assertEquals("resolved", last.getString("status"));
        assertEquals("resolved", last.getJsonArray("alerts").getJsonObject(0).getString("status"));
    }

    @Test
    void whatTheReceiverWillNotTakeInTimeStaysInTheOutboxForTheNextStart() throws Exception {
        Path data = dir.resolve("data");
        Vertx vertx = Vertx.vertx();
        Gateway g = gateway(vertx, data, Duration.ofMillis(700));
        String id = await(vertx.deployVerticle(g));
        TestProbe probe = TestProbe.connect(vertx, g.port(), TOKEN, "node-1", "{}");
        probe.sample(System.currentTimeMillis(), 95);
        assertEquals("firing", next().getString("status"));
        probe.sample(System.currentTimeMillis(), 60);
        refuse.set(Integer.MAX_VALUE);
        long started = System.nanoTime();
        await(vertx.undeploy(id));
        await(vertx.close());
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        assertTrue(tookMs < 5_000, "stopping is bounded by the shutdown timeout, took " + tookMs + " ms");
        assertNull(posted.poll(), "the refusing receiver got nothing");

        Vertx reader = Vertx.vertx();
        try {
            AsyncStore store = await(AsyncStore.open(reader, data.resolve("gpuwatch"), InstantSource.system(),
                    Backoff.standard()));
            List<OutboxEntry> pending = await(store.run(s -> s.outbox().list(OutboxEntry.State.PENDING, 10)));
            await(store.close());
            assertEquals(1, pending.size(), "the resolution waits in the outbox");
            assertTrue(pending.get(0).payload().contains("RESOLVED"), pending.get(0).payload());
        } finally {
            await(reader.close());
        }

        refuse.set(0);
        Vertx again = Vertx.vertx();
        try {
            Gateway next = gateway(again, data, Duration.ofSeconds(10));
            await(again.deployVerticle(next));
            JsonObject body = next();
            assertEquals("resolved", body.getString("status"), "the next start sends it");
        } finally {
            await(again.close());
        }
    }
}
