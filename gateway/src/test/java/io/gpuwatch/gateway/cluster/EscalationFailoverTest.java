package io.gpuwatch.gateway.cluster;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.ingest.IngestConfig;
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
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two gateways of a cluster on one hand-moved clock; the one escalating an alert dies after the second of three
 * steps. The survivor that takes the node over resumes the escalation where the dead one left it: it pages the
 * third step at the deadline the second set, pages neither earlier step again, and only it pages.
 */
@ExtendWith(VertxExtension.class)
class EscalationFailoverTest {
    private static final long T0 = 1_764_700_000_000L;
    private static final String TOKEN = "failover-token";

    private final AtomicLong now = new AtomicLong(T0);
    private final List<Vertx> clustered = new ArrayList<>();
    private final BlockingQueue<JsonObject> fromGateway = new LinkedBlockingQueue<>();
    /** Every page: which gateway sent it, through which step's receiver, under which key. */
    private final List<String> pages = new CopyOnWriteArrayList<>();

    @AfterEach
    void leave() throws Exception {
        for (Vertx v : clustered) {
            await(v.close());
        }
    }

    /** A receiver that answers at once and records what it was sent, by gateway. */
    private record Recording(String gateway, String name, List<String> pages) implements Receiver {
        @Override
        public Future<Void> send(List<Notification> batch) {
            return send(batch, "");
        }

        @Override
        public Future<Void> send(List<Notification> batch, String deliveryKey) {
            pages.add(gateway + " " + name + " " + deliveryKey);
            return Future.succeededFuture();
        }
    }

    private static RuleSet rules() {
        RuleLoad load = RuleSet.parse("failover.yml", """
                group: failover
                layer: device
                severity: page
                scope: card
                rules:
                  - name: hot
                    when: tempC > 85
                """);
        assertTrue(load.ok(), load.diagnostics().toString());
        return load.ruleSet();
    }

    private static RoutingConfig routing() {
        RoutingLoad load = RoutingConfig.parse("alerting.yml", """
                escalation_policies:
                  - name: three-steps
                    steps:
                      - {via: [primary], timeout: 5m}
                      - {via: [secondary], timeout: 10m}
                      - {via: [lead], timeout: 15m}
                route:
                  receiver: chat
                  escalation: three-steps
                  group_wait: 0s
                """, Set.of("chat", "primary", "secondary", "lead"));
        assertTrue(load.ok(), load.diagnostics().toString());
        return load.config();
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private Gateway gateway(String name, int port, List<Integer> peers) throws Exception {
        Cluster cluster = await(Cluster.join(new ClusterSettings("127.0.0.1", port,
                peers.stream().map(p -> "127.0.0.1:" + p).toList(), "ws://127.0.0.1:1/v1/probe")));
        clustered.add(cluster.vertx());
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(TOKEN, "node-*")));
        GatewayConfig config = new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 1000, "http://localhost");
        List<Receiver> receivers = List.of("chat", "primary", "secondary", "lead").stream()
                .<Receiver>map(r -> new Recording(name, r, pages)).toList();
        Gateway g = new Gateway(config, rules(), RuleFiles.none(), () -> tokens, receivers, routing(),
                () -> Instant.ofEpochMilli(now.get())).clustered(cluster);
        await(cluster.vertx().deployVerticle(g));
        return g;
    }

    /** A hot sample of the node's card at the clock's now, then a tick. */
    private void hot(Gateway g, String node, long seq) throws Exception {
        Sample s = new Sample(seq, now.get(), List.of(new CardReading("GPU-1",
                MetricValues.builder().set(Metric.TEMP_C, 90.0).build(), List.of())));
        await(g.onEventLoop(() -> {
            g.frame(node, s);
            g.tick();
            return null;
        }));
    }

    /** Ticks {@code g} without moving the clock until {@code done} holds: a pass's claims and sends are async. */
    private static void tickUntil(Gateway g, BooleanSupplier done, String what) throws Exception {
        for (long deadline = System.currentTimeMillis() + 20_000; !done.getAsBoolean(); Thread.sleep(20)) {
            assertTrue(System.currentTimeMillis() < deadline, "timed out waiting for " + what);
            await(g.onEventLoop(() -> {
                g.tick();
                return null;
            }));
        }
    }

    private long paged(String gateway, String receiver) {
        return pages.stream().filter(p -> p.startsWith(gateway + " " + receiver + " ")).count();
    }

    private long paged(String receiver) {
        return pages.stream().filter(p -> p.split(" ")[1].equals(receiver)).count();
    }

    private static String hello(String node) {
        return "{\"type\":\"hello\",\"v\":1,\"seq\":0,\"node\":\"" + node + "\",\"bootId\":\"boot-1\","
                + "\"cards\":[{\"uuid\":\"GPU-1\",\"index\":0,\"name\":\"H100\"}]}";
    }

    private WebSocket connect(WebSocketClient client, Gateway g, String node) throws Exception {
        fromGateway.clear();
        WebSocket ws = await(client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(g.port())
                        .setURI("/v1/probe").addHeader("Authorization", "Bearer " + TOKEN))
                .onSuccess(s -> s.textMessageHandler(t -> fromGateway.add(new JsonObject(t)))));
        await(ws.writeTextMessage(hello(node)));
        JsonObject welcome = fromGateway.poll(30, TimeUnit.SECONDS);
        assertNotNull(welcome, "no welcome");
        assertEquals("welcome", welcome.getString("type"), welcome.encode());
        return ws;
    }

    @Test
    void theSurvivorResumesTheEscalationAtItsStepAndDeadlineAndOnlyItPages(Vertx vertx) throws Exception {
        int p1 = freePort();
        int p2 = freePort();
        Gateway one = gateway("one", p1, List.of(p1));
        Gateway two = gateway("two", p2, List.of(p1, p2));
        Cluster c1 = one.cluster().orElseThrow();
        Cluster c2 = two.cluster().orElseThrow();
        String node = null;
        for (long deadline = System.currentTimeMillis() + 30_000; node == null; Thread.sleep(100)) {
            assertTrue(System.currentTimeMillis() < deadline, "the two gateways never agreed on owners");
            for (int i = 0; i < 64 && node == null; i++) {
                String name = "node-" + i;
                boolean agreed = await(one.onEventLoop(() -> c1.owns(name)))
                        && !await(two.onEventLoop(() -> c2.owns(name)));
                node = agreed ? name : null;
            }
        }
        String owned = node;
        WebSocketClient client = vertx.createWebSocketClient();
        connect(client, one, owned);

        now.addAndGet(1000);
        hot(one, owned, 1);
        tickUntil(one, () -> paged("one", "primary") == 1, "the first step's page");
        String fp = await(one.onEventLoop(() -> one.ledger().live().get(0).fingerprint()));
        now.addAndGet(Duration.ofMinutes(5).toMillis());
        hot(one, owned, 2);
        tickUntil(one, () -> paged("one", "secondary") == 1, "the second step's page");
        // the share follows the page; the survivor can only resume what was shared before the death
        for (long deadline = System.currentTimeMillis() + 10_000; ; Thread.sleep(20)) {
            Optional<Escalation> shared = await(c2.escalations().of(fp));
            if (shared.isPresent() && shared.get().step() == 1) {
                break;
            }
            assertTrue(System.currentTimeMillis() < deadline, "the second step never reached the cluster");
        }
        long secondDeadline = now.get() + Duration.ofMinutes(10).toMillis();

        await(clustered.remove(0).close());
        for (long deadline = System.currentTimeMillis() + 30_000;
             !await(two.onEventLoop(() -> c2.owns(owned))); Thread.sleep(100)) {
            assertTrue(System.currentTimeMillis() < deadline, "the survivor never took the node over");
        }
        connect(client, two, owned);
        now.addAndGet(60_000);
        hot(two, owned, 3);
        tickUntil(two, () -> {
            try {
                return escalation(two, fp).isPresent();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "the survivor to take the escalation over");
        Escalation resumed = escalation(two, fp).orElseThrow();
        assertEquals(1, resumed.step(), "resumed at the second step");
        assertEquals(secondDeadline, resumed.deadline().toEpochMilli(), "with the deadline the dead gateway set");

        now.set(secondDeadline - 1000);
        hot(two, owned, 4);
        for (int i = 0; i < 10; i++) {
            hot(two, owned, 5 + i);
        }
        assertEquals(0, paged("lead"), "nothing before the second step's deadline: " + pages);
        now.set(secondDeadline);
        hot(two, owned, 20);
        tickUntil(two, () -> paged("two", "lead") == 1, "the third step's page from the survivor");
        now.addAndGet(Duration.ofMinutes(20).toMillis());
        for (int i = 0; i < 10; i++) {
            hot(two, owned, 21 + i);
        }
        assertEquals(List.of(1L, 1L, 1L), List.of(paged("primary"), paged("secondary"), paged("lead")),
                "each step paged once, across both gateways: " + pages);
        assertEquals(0, paged("two", "primary") + paged("two", "secondary"), "the survivor repeats no step: " + pages);
        assertEquals(Escalation.State.EXHAUSTED, escalation(two, fp).orElseThrow().state());
        // the alert became active at the first hot sample; each page's key names it and the step
        assertTrue(pages.stream().filter(p -> !p.contains(" chat ")).allMatch(p -> p.endsWith(" escalation/" + fp
                + "/" + (T0 + 1000) + "/0/" + stepOf(p))), pages.toString());
    }

    private static Optional<Escalation> escalation(Gateway g, String fp) throws Exception {
        return await(g.onEventLoop(() -> g.escalation(fp)));
    }

    private static int stepOf(String page) {
        return switch (page.split(" ")[1]) {
            case "primary" -> 0;
            case "secondary" -> 1;
            default -> 2;
        };
    }
}
