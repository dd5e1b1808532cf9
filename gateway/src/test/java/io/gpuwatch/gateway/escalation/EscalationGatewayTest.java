package io.gpuwatch.gateway.escalation;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.ingest.ProbeClient;
import io.gpuwatch.gateway.reload.RuleFiles;
import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.gateway.route.RoutingLoad;
import io.gpuwatch.gateway.store.Escalation;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real gateway with a data directory on a hand-moved clock, escalating an alert through its store and outbox:
 * the route that only escalates sends nothing of its own; an acknowledgement over the API holds the escalation,
 * taking it back restarts the held step's timeout, the API shows where it stands, and resolving ends it and
 * forgets its row.
 */
@ExtendWith(VertxExtension.class)
class EscalationGatewayTest {
    private static final String TOKEN = "escalation-token-for-tests";
    private static final long T0 = 1_764_700_000_000L;

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(T0);
    private final List<String> sent = new CopyOnWriteArrayList<>();

    private record Recording(String name, List<String> sent) implements Receiver {
        @Override
        public Future<Void> send(List<Notification> batch) {
            batch.forEach(n -> sent.add(name + " " + n.status()));
            return Future.succeededFuture();
        }
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    private Gateway gateway() {
        RuleLoad rules = RuleSet.parse("t.yml", """
                group: t
                layer: device
                scope: card
                rules:
                  - name: hot
                    severity: page
                    when: tempC > 90
                """);
        assertTrue(rules.ok(), rules.diagnostics().toString());
        RoutingLoad routing = RoutingConfig.parse("alerting.yml", """
                escalation_policies:
                  - name: page
                    steps:
                      - {via: [primary], timeout: 5m}
                      - {via: [secondary], timeout: 10m}
                route:
                  receiver: chat
                  group_wait: 0s
                  routes:
                    - matchers: ['severity="page"']
                      escalation: page
                """, Set.of("chat", "primary", "secondary"));
        assertTrue(routing.ok(), routing.diagnostics().toString());
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(TOKEN, "node-*")));
        List<Receiver> receivers = List.of(new Recording("chat", sent), new Recording("primary", sent),
                new Recording("secondary", sent));
        return new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 1000, "http://localhost")
                .withDataDir(dir.resolve("data")), rules.ruleSet(), RuleFiles.none(), () -> tokens, receivers,
                routing.config(), () -> Instant.ofEpochMilli(now.get()));
    }

    private long seq;

    /**
     * Moves the clock on by {@code ms} on the gateway's event loop, a sample every 5 s of it taken and ticked at
     * its time, as a probe would send them: data that went stale would end the alert, and its next sample would
     * start a new episode.
     */
    private void later(Gateway g, long ms, double tempC) throws Exception {
        for (long left = ms; left > 0; left -= 5000) {
            long step = Math.min(5000, left);
            long at = seq++;
            await(g.onEventLoop(() -> {
                now.addAndGet(step);
                g.frame("node-1", new Sample(at + 1, now.get(), List.of(new CardReading("GPU-1",
                        MetricValues.builder().set(Metric.TEMP_C, tempC).build(), List.of()))));
                g.tick();
                return null;
            }));
        }
    }

    /** Ticks without moving the clock until {@code done}: a pass is kept, then its outbox rows are sent. */
    private static void tickUntil(Gateway g, BooleanSupplier done, String what) throws Exception {
        for (long deadline = System.currentTimeMillis() + 20_000; !done.getAsBoolean(); Thread.sleep(20)) {
            assertTrue(System.currentTimeMillis() < deadline, "timed out waiting for " + what);
            await(g.onEventLoop(() -> {
                g.tick();
                return null;
            }));
        }
    }

    /** Ticks a few times at the clock's now, for a check that nothing happens. */
    private static void ticks(Gateway g) throws Exception {
        for (int i = 0; i < 10; i++) {
            await(g.onEventLoop(() -> {
                g.tick();
                return null;
            }));
            Thread.sleep(20);
        }
    }

    private long count(String what) {
        return sent.stream().filter(what::equals).count();
    }

    private Escalation escalation(Gateway g, String fp) throws Exception {
        return await(g.onEventLoop(() -> g.escalation(fp).orElse(null)));
    }

    @Test
    void anAcknowledgementHoldsItItsWithdrawalRestartsTheStepAndResolvingEndsIt(Vertx vertx) throws Exception {
        Gateway g = gateway();
        await(vertx.deployVerticle(g));
        WebClient web = WebClient.create(vertx);
        ProbeClient probe = ProbeClient.connect(vertx.createWebSocketClient(), g.port(), TOKEN);
        probe.send("{\"type\":\"hello\",\"v\":1,\"seq\":0,\"node\":\"node-1\",\"bootId\":\"boot-a\","
                + "\"cards\":[{\"uuid\":\"GPU-1\",\"index\":0,\"name\":\"H100\"}]}");
        // the samples below go straight to the gateway, so the hello must have been taken first
        assertEquals("welcome", probe.next().getString("type"));
        later(g, 1000, 95.0);
        tickUntil(g, () -> count("primary FIRING") == 1, "the first step's page");
        String fp = await(g.onEventLoop(() -> g.ledger().live().get(0).fingerprint()));

        HttpResponse<Buffer> acked = await(web.post(g.port(), "127.0.0.1", "/api/v1/alerts/" + fp + "/ack")
                .sendJsonObject(new JsonObject().put("by", "ana")));
        assertEquals(200, acked.statusCode(), acked.bodyAsString());
        later(g, Duration.ofMinutes(30).toMillis(), 95.0);
        ticks(g);
        assertEquals(0, count("secondary FIRING"), "held by the acknowledgement: " + sent);
        assertEquals(Escalation.State.ACKNOWLEDGED, escalation(g, fp).state(), escalation(g, fp) + " " + sent);

        HttpResponse<Buffer> taken = await(web.delete(g.port(), "127.0.0.1", "/api/v1/alerts/" + fp + "/ack").send());
        assertEquals(200, taken.statusCode(), taken.bodyAsString());
        long withdrawnAt = now.get();
        tickUntil(g, () -> {
            try {
                return escalation(g, fp).state() == Escalation.State.RUNNING;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "the escalation to run again");
        JsonObject shown = await(web.get(g.port(), "127.0.0.1", "/api/v1/alerts/" + fp).send()).bodyAsJsonObject()
                .getJsonObject("alert").getJsonObject("escalation");
        assertEquals(new JsonObject().put("policy", "page").put("round", 1).put("step", 1).put("state", "running")
                .put("nextAt", Instant.ofEpochMilli(withdrawnAt).plus(Duration.ofMinutes(5)).toString()), shown);
        later(g, Duration.ofMinutes(5).toMillis() - 1000, 95.0);
        ticks(g);
        assertEquals(0, count("secondary FIRING"), "the first step's 5 minutes again: " + sent);
        later(g, 1000, 95.0);
        tickUntil(g, () -> count("secondary FIRING") == 1, "the second step's page");

        later(g, 1000, 60.0);
        tickUntil(g, () -> {
            try {
                return escalation(g, fp) == null;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "the resolution to end the escalation");
        AsyncStoreRows rows = new AsyncStoreRows(g);
        tickUntil(g, rows::empty, "the escalation's row to be forgotten");
        assertEquals(List.of("primary FIRING", "secondary FIRING"), sent, "the route that only escalates sends "
                + "nothing of its own, and a resolution pages nobody");
        probe.close();
    }

    /** Whether the gateway's store still keeps an escalation row. */
    private record AsyncStoreRows(Gateway g) {
        boolean empty() {
            try {
                return await(g.store().orElseThrow().run(s -> s.escalations().all())).isEmpty();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
