package io.gpuwatch.probe.load;

import io.gpuwatch.probe.uplink.Await;
import io.gpuwatch.probe.uplink.TestGateway;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Welcome;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The load generator against a recording gateway: valid frames, one stream per node, replay after a drop. */
@ExtendWith(VertxExtension.class)
class FleetLoadTest {
    private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(15, TimeUnit.SECONDS);
    }

    private static List<TestGateway.Connection> of(TestGateway gw, String node) {
        return gw.connections.stream().filter(c -> !c.frames.isEmpty() && c.frames.get(0) instanceof Hello h
                && h.node().equals(node)).toList();
    }

    private static LoadTarget target(int port) {
        return new LoadTarget("localhost", port, LoadTarget.PROBE_PATH, false, TestGateway.TOKEN);
    }

    /** The nodes that said hello to a gateway, in name order. */
    private static List<String> nodesAt(TestGateway gw) {
        return gw.connections.stream().filter(c -> !c.frames.isEmpty()).map(c -> ((Hello) c.frames.get(0)).node())
                .distinct().sorted().toList();
    }

    private static List<String> names(LoadPlan plan, int... nodes) {
        return Arrays.stream(nodes).mapToObj(plan::nodeName).sorted().toList();
    }

    @Test
    void theNodesAreSpreadOverTheGatewaysAndThoseOfADeadOneFailOverToTheNext(Vertx vertx) throws Exception {
        TestGateway a = new TestGateway(vertx);
        TestGateway b = new TestGateway(vertx);
        TestGateway gone = new TestGateway(vertx);
        int pa = await(a.start());
        int pb = await(b.start());
        int dead = await(gone.start());
        await(gone.close());
        LoadPlan plan = new LoadPlan(6, 1, 100, 2500, "spread-", List.of(), 0, 1000, 200);
        FleetLoad load = new FleetLoad(vertx, plan, List.of(target(pa), target(pb), target(dead)), 2,
                System::currentTimeMillis, 5);
        await(load.start());
        await(Await.until(vertx, "every node streams", () -> nodesAt(a).size() + nodesAt(b).size() == 6
                && a.connections.stream().allMatch(c -> c.frames.size() > 2)
                && b.connections.stream().allMatch(c -> c.frames.size() > 2)));

        // nodes 2 and 5 were given the dead gateway first and moved on to the first in the list
        assertEquals(names(plan, 0, 2, 3, 5), nodesAt(a));
        assertEquals(names(plan, 1, 4), nodesAt(b));
        for (TestGateway gw : List.of(a, b)) {
            for (TestGateway.Connection c : gw.connections) {
                assertEquals(1L, c.seqs().get(0), ((Hello) c.frames.get(0)).node() + " sent from seq 1 on");
            }
        }
        LoadStats stats = await(load.stats());
        assertEquals(2, stats.reconnects(), "one back-off each for the two nodes of the dead gateway");
        await(load.close());
        await(a.close());
        await(b.close());
    }

    @Test
    void aRedirectingWelcomeSendsEachNodeToItsOwner(Vertx vertx) throws Exception {
        TestGateway entry = new TestGateway(vertx);
        TestGateway owner = new TestGateway(vertx);
        int pe = await(entry.start());
        int po = await(owner.start());
        entry.answer = (h, n) -> new Welcome(Frame.VERSION, "s", 0, 100,
                "ws://localhost:" + po + LoadTarget.PROBE_PATH);
        LoadPlan plan = new LoadPlan(3, 1, 100, 2000, "redirected-", List.of(), 0, 1000, 200);
        FleetLoad load = new FleetLoad(vertx, plan, List.of(target(pe)), 1, System::currentTimeMillis, 5);
        await(load.start());
        await(Await.until(vertx, "every node streams to the owner", () -> nodesAt(owner).size() == 3
                && owner.connections.stream().allMatch(c -> c.frames.size() > 2)));

        assertEquals(names(plan, 0, 1, 2), nodesAt(entry));
        assertTrue(entry.connections.stream().allMatch(c -> c.seqs().isEmpty()), "nothing but hellos at the entry");
        assertEquals(3, owner.connections.size(), "one connection per node");
        assertEquals(0, await(load.stats()).reconnects(), "a redirect is no failure");
        await(load.close());
        await(entry.close());
        await(owner.close());
    }

    @Test
    void everyNodeStreamsValidFramesInSeqOrderAndReplaysWhatTheGatewayLostAfterADrop(Vertx vertx) throws Exception {
        TestGateway gw = new TestGateway(vertx);
        int port = await(gw.start());
        LoadPlan plan = new LoadPlan(3, 2, 100, 3000, "load-", List.of(400L), 4, 1000, 300);
        FleetLoad load = new FleetLoad(vertx, plan, List.of(target(port)), 2, System::currentTimeMillis, 5);
        await(load.start());

        String dropped = plan.nodeName(0);
        await(Await.until(vertx, "node 0 streams", () -> of(gw, dropped).size() == 1 && of(gw, dropped).get(0).frames.size() > 5));
        of(gw, dropped).get(0).ws.close();
        await(Await.until(vertx, "node 0 reconnects", () -> of(gw, dropped).size() == 2));
        await(Await.until(vertx, "sampling ends", () -> System.currentTimeMillis() > load.endMs() + 300));

        LoadStats stats = await(load.stats());
        assertEquals(3, stats.nodes());
        assertEquals(1, stats.events());
        assertTrue(stats.reconnects() >= 1, "node 0 came back: " + stats);
        assertEquals(stats.created(), stats.sampleFrames() + stats.appFrames() + stats.events());
        assertEquals(stats.sampleFrames() * 2 * FrameTemplates.CARD.length + stats.appFrames() * FrameTemplates.APP.length,
                stats.samples());
        long seen = 0;
        for (int i = 0; i < plan.nodes(); i++) {
            // the test gateway acks only events, so every sample of a connection that dropped is sent again
            TreeSet<Long> seqs = of(gw, plan.nodeName(i)).stream().flatMap(c -> c.seqs().stream())
                    .collect(Collectors.toCollection(TreeSet::new));
            assertEquals(LongStream.rangeClosed(1, seqs.last()).boxed().toList(), List.copyOf(seqs),
                    plan.nodeName(i) + " sent every seq from 1 without a gap");
            seen += seqs.last();
            for (TestGateway.Connection c : of(gw, plan.nodeName(i))) {
                List<Long> order = c.seqs();
                assertEquals(order.stream().sorted().toList(), order, "in seq order on one connection");
                assertTrue(c.frames.stream().skip(1).allMatch(f -> f instanceof Sample || f instanceof App
                        || f instanceof Event), "only numbered producer frames after the hello");
            }
        }
        assertEquals(stats.created(), seen, "every frame created reached the gateway");

        List<Frame> xids = gw.connections.stream().flatMap(c -> c.frames.stream())
                .filter(f -> f instanceof Event e && "xid".equals(e.kind())).toList();
        assertEquals(1, xids.size());
        Event xid = (Event) xids.get(0);
        assertEquals(79, xid.xid());
        assertEquals(load.uuid(plan.xidNode(0), plan.xidCard(0)), xid.uuid());
        assertEquals(List.of(xid.uuid()), load.xids().stream().map(XidSent::uuid).toList());
        await(load.close());
        await(Await.until(vertx, "all connections closed", () -> gw.connections.stream().allMatch(c -> c.closed)));
        assertTrue(gw.connections.stream().filter(c -> c.closeCode != null).allMatch(c -> c.closeCode == 1000
                || c.closeCode == 1006), "closed normally at the end");
        await(gw.close());
    }
}
