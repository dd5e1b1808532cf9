package io.gpuwatch.gateway.cluster;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.checkpoint.Evaluation;
import io.gpuwatch.gateway.checkpoint.EvaluationFile;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.reload.RuleFiles;
import io.gpuwatch.gateway.state.CardState;
import io.gpuwatch.gateway.state.NodeState;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Event;
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
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A gateway dies in the middle of an alert's {@code for}; the survivor that takes its node over goes on from
 * the evaluation the dead one shared: the alert fires at its original deadline, not a whole {@code for} later,
 * and an alert already firing keeps the time it fired.
 */
@ExtendWith(VertxExtension.class)
class EvaluationFailoverTest {
    private static final long T0 = 1_764_700_000_000L;
    private static final String TOKEN = "failover-token";

    private final AtomicLong now = new AtomicLong(T0);
    private final List<Vertx> clustered = new ArrayList<>();
    private final BlockingQueue<JsonObject> fromGateway = new LinkedBlockingQueue<>();
    private final RuleSet rules = rules();

    @AfterEach
    void leave() throws Exception {
        for (Vertx v : clustered) {
            await(v.close());
        }
    }

    private static RuleSet rules() {
        RuleLoad load = RuleSet.parse("failover.yml", """
                group: failover
                layer: device
                severity: page
                scope: card
                rules:
                  - name: held-hot
                    when: max(tempC, 1m) > 85
                    for: 60s
                  - name: hot
                    when: tempC > 85
                  - name: node-silent
                    scope: node
                    when: silentFor > 30s
                """);
        assertTrue(load.ok(), load.diagnostics().toString());
        return load.ruleSet();
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private Gateway gateway(int port, List<Integer> peers) throws Exception {
        return gateway(port, peers, null);
    }

    /** A gateway joining the cluster of {@code peers}, with its checkpoint and store in {@code data} unless null. */
    private Gateway gateway(int port, List<Integer> peers, Path data) throws Exception {
        Cluster cluster = await(Cluster.join(new ClusterSettings("127.0.0.1", port,
                peers.stream().map(p -> "127.0.0.1:" + p).toList(), "ws://127.0.0.1:1/v1/probe")));
        clustered.add(cluster.vertx());
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(TOKEN, "node-*")));
        GatewayConfig config = new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 1000, "http://localhost")
                .withDataDir(data);
        Gateway g = new Gateway(config, rules, RuleFiles.none(), () -> tokens, List.of(), null,
                () -> Instant.ofEpochMilli(now.get())).clustered(cluster);
        await(cluster.vertx().deployVerticle(g));
        return g;
    }

    private static void drive(Gateway g, Runnable r) throws Exception {
        await(g.onEventLoop(() -> {
            r.run();
            return null;
        }));
    }

    /** One second on, a hot sample of the node's card, then a tick. */
    private void hotSecond(Gateway g, String node, long seq) throws Exception {
        now.addAndGet(1000);
        Sample s = new Sample(seq, now.get(), List.of(new CardReading("GPU-1",
                MetricValues.builder().set(Metric.TEMP_C, 90.0).build(), List.of())));
        drive(g, () -> {
            g.frame(node, s);
            g.tick();
        });
    }

    private static String hello(String node) {
        return "{\"type\":\"hello\",\"v\":1,\"seq\":0,\"node\":\"" + node + "\",\"bootId\":\"boot-1\","
                + "\"cards\":[{\"uuid\":\"GPU-1\",\"index\":0,\"name\":\"H100\"}]}";
    }

    @Test
    void theSurvivorFiresAPendingAlertAtItsOriginalDeadline(Vertx vertx) throws Exception {
        int p1 = freePort();
        int p2 = freePort();
        Gateway one = gateway(p1, List.of(p1));
        Gateway two = gateway(p2, List.of(p1, p2));
        Cluster c2 = two.cluster().orElseThrow();
        String owned = ownedByTheFirst(one, two);
        WebSocketClient client = vertx.createWebSocketClient();
        WebSocket ws = await(client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(one.port())
                .setURI("/v1/probe").addHeader("Authorization", "Bearer " + TOKEN))
                .onSuccess(s -> s.textMessageHandler(t -> fromGateway.add(new JsonObject(t)))));
        await(ws.writeTextMessage(hello(owned)));
        assertEquals("welcome", fromGateway.poll(10, TimeUnit.SECONDS).getString("type"));
        for (int s = 1; s <= 30; s++) {
            hotSecond(one, owned, s);
        }
        await(one.shareEvaluation());

        await(clustered.remove(0).close());
        for (long deadline = System.currentTimeMillis() + 30_000;
             !await(two.onEventLoop(() -> c2.owns(owned))); Thread.sleep(100)) {
            assertTrue(System.currentTimeMillis() < deadline, "the survivor never took the node over");
        }
        fromGateway.clear();
        WebSocket moved = await(client.connect(new WebSocketConnectOptions().setHost("127.0.0.1")
                        .setPort(two.port()).setURI("/v1/probe").addHeader("Authorization", "Bearer " + TOKEN))
                .onSuccess(s -> s.textMessageHandler(t -> fromGateway.add(new JsonObject(t)))));
        await(moved.writeTextMessage(hello(owned)));
        JsonObject welcome = fromGateway.poll(30, TimeUnit.SECONDS);
        assertNotNull(welcome, "no welcome from the survivor");
        assertEquals("welcome", welcome.getString("type"), welcome.encode());
        for (int s = 31; s <= 70; s++) {
            hotSecond(two, owned, s);
        }
        Map<String, Long> fired = await(two.onEventLoop(() -> two.ledger().live().stream()
                .collect(Collectors.toMap(Alert::rule, Alert::firedAt))));
        assertEquals(T0 + 61_000, fired.get("held-hot"), "pending since +1 s on the dead gateway, firing at +61 s");
        assertEquals(T0 + 1_000, fired.get("hot"), "taken over firing, it keeps the time it fired on the dead one");
    }

    @Test
    void aNodeSilentWhenItsOwnerDiesPagesOnTheSurvivorThoughNoProbeComesBack(Vertx vertx) throws Exception {
        int p1 = freePort();
        int p2 = freePort();
        Gateway one = gateway(p1, List.of(p1));
        Gateway two = gateway(p2, List.of(p1, p2));
        String owned = ownedByTheFirst(one, two);
        WebSocketClient client = vertx.createWebSocketClient();
        WebSocket ws = await(client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(one.port())
                .setURI("/v1/probe").addHeader("Authorization", "Bearer " + TOKEN))
                .onSuccess(s -> s.textMessageHandler(t -> fromGateway.add(new JsonObject(t)))));
        await(ws.writeTextMessage(hello(owned)));
        assertEquals("welcome", fromGateway.poll(10, TimeUnit.SECONDS).getString("type"));
        for (int s = 1; s <= 5; s++) {
            hotSecond(one, owned, s);
        }
        // the node drops off the network, then its gateway dies: no probe will say hello to the survivor
        await(ws.close());
        await(one.shareEvaluation());
        await(clustered.remove(0).close());
        for (long deadline = System.currentTimeMillis() + 30_000;
             !await(two.onEventLoop(() -> two.fleet().node(owned) != null)); Thread.sleep(100)) {
            assertTrue(System.currentTimeMillis() < deadline, "the survivor never took the silent node over");
        }
        for (int s = 6; s <= 40; s++) {
            now.addAndGet(1000);
            drive(two, two::tick);
        }
        Map<String, Long> fired = await(two.onEventLoop(() -> two.ledger().live().stream()
                .collect(Collectors.toMap(Alert::rule, Alert::firedAt))));
        assertEquals(T0 + 36_000, fired.get("node-silent"), "silent since +5 s, paged on the survivor at +36 s");
    }

    /** One second on, an XID 31 on the node's card. */
    private void xid(Gateway g, String node, long seq) throws Exception {
        now.addAndGet(1000);
        Event e = new Event(seq, now.get(), "GPU-1", "xid", 31, "MMU fault", null);
        drive(g, () -> g.frame(node, e));
    }

    /** How many XIDs the gateway holds of {@code node} now; -1 when it does not know the node. */
    private int xids(Gateway g, String node) throws Exception {
        return await(g.onEventLoop(() -> {
            NodeState n = g.fleet().node(node);
            return n == null ? -1 : n.at(now.get()).countEvents("xid", 31, 600_000);
        }));
    }

    /** A probe connection to {@code g} that has said hello for {@code node} and been welcomed. */
    private WebSocket connect(WebSocketClient client, Gateway g, String node) throws Exception {
        BlockingQueue<JsonObject> answers = new LinkedBlockingQueue<>();
        WebSocket ws = await(client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(g.port())
                .setURI("/v1/probe").addHeader("Authorization", "Bearer " + TOKEN))
                .onSuccess(s -> s.textMessageHandler(t -> answers.add(new JsonObject(t)))));
        await(ws.writeTextMessage(hello(node)));
        JsonObject welcome = answers.poll(30, TimeUnit.SECONDS);
        assertNotNull(welcome, "no welcome for " + node);
        assertEquals("welcome", welcome.getString("type"), welcome.encode());
        return ws;
    }

    @Test
    void aGatewayBackFromTheDeadTakesItsNodesFromTheSurvivorNotFromItsOlderCheckpoint(Vertx vertx,
                                                                                     @TempDir Path data)
            throws Exception {
        int p1 = freePort();
        int p2 = freePort();
        Gateway one = gateway(p1, List.of(p1), data);
        Gateway two = gateway(p2, List.of(p1, p2));
        // several nodes, so that after the restart some are owned by either member, whoever the ring favours
        List<String> nodes = ownedByTheFirst(one, two, 6);
        WebSocketClient client = vertx.createWebSocketClient();
        List<WebSocket> sockets = new ArrayList<>();
        for (String node : nodes) {
            sockets.add(connect(client, one, node));
            xid(one, node, 1);
        }
        await(one.shareEvaluation());
        // it dies; its checkpoint, written on the way out, holds one XID of each node
        await(clustered.remove(0).close());
        for (String node : nodes) {
            assertEquals(1, readCheckpointXids(data, node), node);
        }
        for (WebSocket ws : sockets) {
            await(ws.close());
        }
        sockets.clear();
        for (String node : nodes) {
            for (long deadline = System.currentTimeMillis() + 30_000;
                 !await(two.onEventLoop(() -> two.cluster().orElseThrow().owns(node))); Thread.sleep(100)) {
                assertTrue(System.currentTimeMillis() < deadline, "the survivor never took " + node + " over");
            }
            sockets.add(connect(client, two, node));
            xid(two, node, 2);
            xid(two, node, 3);
            assertEquals(3, xids(two, node), "the survivor goes on from the dead gateway's shared evaluation");
        }
        await(two.shareEvaluation());
        for (WebSocket ws : sockets) {
            await(ws.close());
        }

        // back on its data dir, it must not hold a node as its older checkpoint had it, which would lose the two
        // XIDs the survivor acknowledged: it leaves the node to the cluster's newer evaluation
        Gateway back = gateway(freePort(), List.of(p2), data);
        for (String node : nodes) {
            int held = xids(back, node);
            assertTrue(held == -1 || held == 3, "the restarted gateway holds " + held + " XIDs of " + node);
        }
        String node = nodes.get(0);
        Gateway owner = null;
        for (long deadline = System.currentTimeMillis() + 30_000; owner == null; Thread.sleep(100)) {
            boolean backOwns = await(back.onEventLoop(() -> back.cluster().orElseThrow().owns(node)));
            boolean twoOwns = await(two.onEventLoop(() -> two.cluster().orElseThrow().owns(node)));
            owner = backOwns == twoOwns ? null : backOwns ? back : two;
            assertTrue(owner != null || System.currentTimeMillis() < deadline, "no agreed owner of " + node);
        }
        WebSocket again = connect(client, owner, node);
        xid(owner, node, 4);
        assertEquals(4, xids(owner, node), "its owner holds every XID the node sent");
        await(again.close());
    }

    @Test
    void aNodeTheRingMovesToAJoiningPeerIsNoLongerEvaluatedHereSoItsMoveNeverLooksLikeSilence(Vertx vertx)
            throws Exception {
        int p1 = freePort();
        Gateway one = gateway(p1, List.of(p1));
        WebSocketClient client = vertx.createWebSocketClient();
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            nodes.add("node-" + i);
            connect(client, one, "node-" + i);
            hotSecond(one, "node-" + i, 1);
        }
        // a peer joins: the ring hands it some of the nodes, whose probes the first gateway sends on
        int p2 = freePort();
        Gateway two = gateway(p2, List.of(p1, p2));
        Cluster c1 = one.cluster().orElseThrow();
        List<String> moved = new ArrayList<>();
        for (long deadline = System.currentTimeMillis() + 30_000; moved.isEmpty(); Thread.sleep(100)) {
            assertTrue(System.currentTimeMillis() < deadline, "the ring never gave the peer a node");
            for (String node : nodes) {
                if (!await(one.onEventLoop(() -> c1.owns(node)))) {
                    moved.add(node);
                }
            }
        }
        for (String node : moved) {
            for (long deadline = System.currentTimeMillis() + 30_000;
                 await(one.onEventLoop(() -> one.fleet().node(node) != null)); Thread.sleep(100)) {
                assertTrue(System.currentTimeMillis() < deadline, "the first gateway still holds " + node);
            }
        }
        // a minute on, no probe of the moved nodes ever talks to the first gateway again
        for (int s = 0; s < 60; s++) {
            now.addAndGet(1000);
            drive(one, one::tick);
        }
        List<String> silent = await(one.onEventLoop(() -> one.ledger().live().stream()
                .filter(a -> a.rule().equals("node-silent")).map(a -> a.labels().get("node")).toList()));
        for (String node : moved) {
            assertTrue(!silent.contains(node), node + " moved to the peer, yet the first gateway holds it silent");
        }
        List<String> held = await(one.onEventLoop(() -> one.evaluator().engine().images().stream()
                .map(a -> a.instance()).toList()));
        for (String node : moved) {
            assertTrue(held.stream().noneMatch(k -> k.equals(NodeState.key(node))
                            || k.startsWith(CardState.key(node, ""))),
                    "a checkpoint of the first gateway would keep an alert of " + node + ": " + held);
        }
        assertTrue(await(two.onEventLoop(() -> two.cluster().orElseThrow().owns(moved.get(0)))));
    }

    /** How many XIDs of {@code node} the checkpoint in {@code data} holds. */
    private int readCheckpointXids(Path data, String node) throws Exception {
        Evaluation held = EvaluationFile.read(data.resolve(EvaluationFile.FILE_NAME)).evaluation();
        return held.nodes().stream().filter(n -> n.name().equals(node))
                .mapToInt(n -> n.cards().stream().mapToInt(c -> c.events().size()).sum()).sum();
    }

    /** A node name the first gateway owns and the second does not, once they agree. */
    private static String ownedByTheFirst(Gateway one, Gateway two) throws Exception {
        return ownedByTheFirst(one, two, 1).get(0);
    }

    /** {@code count} node names the first gateway owns and the second does not, once they agree. */
    private static List<String> ownedByTheFirst(Gateway one, Gateway two, int count) throws Exception {
        Cluster c1 = one.cluster().orElseThrow();
        Cluster c2 = two.cluster().orElseThrow();
        List<String> nodes = new ArrayList<>();
        for (long deadline = System.currentTimeMillis() + 30_000; nodes.size() < count; Thread.sleep(100)) {
            assertTrue(System.currentTimeMillis() < deadline, "the two gateways never agreed on owners");
            nodes.clear();
            for (int i = 0; i < 64 && nodes.size() < count; i++) {
                String name = "node-" + i;
                if (await(one.onEventLoop(() -> c1.owns(name))) && !await(two.onEventLoop(() -> c2.owns(name)))) {
                    nodes.add(name);
                }
            }
        }
        return nodes;
    }
}
