package io.gpuwatch.gateway.state;

import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.scope.PeerStat;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A task's cards and nodes compared with their peers: a card against the task's other cards, a node against the
 * task's other nodes (the mean of its cards), each group computed once per tick for every member that asks.
 */
class TaskPeersTest {
    private static final long T0 = 1_767_571_200_000L;

    private final RuleSet rules = rules();
    private final FleetState fleet = new FleetState();
    private final int util;

    TaskPeersTest() {
        fleet.useSeries(rules.series());
        util = rules.series().stream().filter(s -> s.metric() == Metric.GPU_UTIL).findFirst().orElseThrow().id();
    }

    private static RuleSet rules() {
        RuleLoad load = RuleSet.parse("p.yml", "group: g\nlayer: device\nseverity: notice\nscope: node\nrules:\n"
                + "  - name: r\n    when: peers(gpuUtil, 1m).ratio < 0.75\n");
        assertTrue(load.ok(), load.diagnostics()::toString);
        return load.ruleSet();
    }

    /** Node {@code node} with cards {@code node-0…}, all of task train-1, at the utilisations given, for a minute. */
    private void node(String node, double... utils) {
        List<CardInfo> cards = new ArrayList<>();
        for (int i = 0; i < utils.length; i++) {
            cards.add(new CardInfo(node + "-" + i, i, "H100", null, null, null, null, null));
        }
        fleet.hello(new Hello(1, node, "boot", "test", null, null, Map.of(), cards), T0);
        for (long t = T0; t <= T0 + 60_000; t += 1_000) {
            List<CardReading> readings = new ArrayList<>();
            for (int i = 0; i < utils.length; i++) {
                readings.add(new CardReading(node + "-" + i, MetricValues.builder().set(Metric.GPU_UTIL, utils[i])
                        .build(), List.of(new ProcessInfo(4000 + i, null, "train-1", "bob", "pretrain"))));
            }
            fleet.sample(node, new Sample(t, t, readings), t, c -> { });
        }
    }

    private CardState card(String node, int index) {
        return fleet.node(node).card(node + "-" + index).at(T0 + 60_000);
    }

    @Test
    void aCardIsComparedWithTheOtherCardsOfItsTaskAndANodeWithItsOtherNodes() {
        node("n1", 95, 93, 45);
        node("n2", 60, 62);
        // cards: 45 against 93, 95, 60, 62
        CardState straggler = card("n1", 2);
        assertEquals(77.5, straggler.peers(util, 60_000, PeerStat.MEDIAN), 1e-9);
        assertEquals(45 / 77.5, straggler.peers(util, 60_000, PeerStat.RATIO), 1e-9);
        assertEquals(4, straggler.peers(util, 60_000, PeerStat.COUNT));
        // nodes: n2's mean 61 against n1's 77.67
        NodeState n2 = fleet.node("n2").at(T0 + 60_000);
        assertEquals(1, n2.peers(util, 60_000, PeerStat.COUNT));
        assertEquals((95 + 93 + 45) / 3.0, n2.peers(util, 60_000, PeerStat.MEDIAN), 1e-9);
        assertEquals(61 / ((95 + 93 + 45) / 3.0), n2.peers(util, 60_000, PeerStat.RATIO), 1e-9);
        assertEquals("train-1", n2.label("task"), "a node's task is the one most of its cards run");
    }

    @Test
    void theGroupIsComputedOncePerTickForEveryCardThatAsks() {
        node("n1", 95, 93, 45);
        TaskState task = fleet.taskNamed("train-1");
        var first = task.cardPeers(util, 60_000, T0 + 60_000);
        assertSame(first, task.cardPeers(util, 60_000, T0 + 60_500), "within the tick");
        assertNotSame(first, task.cardPeers(util, 60_000, T0 + 61_000), "the next tick computes it anew");
        assertNotSame(first, task.cardPeers(util, 30_000, T0 + 61_000), "another window is another group");
    }

    @Test
    void aCardWithoutATaskHasNoPeers() {
        fleet.hello(new Hello(1, "n3", "boot", "test", null, null, Map.of(),
                List.of(new CardInfo("n3-0", 0, "H100", null, null, null, null, null))), T0);
        fleet.sample("n3", new Sample(T0, T0, List.of(new CardReading("n3-0", MetricValues.builder()
                .set(Metric.GPU_UTIL, 50).build(), List.of()))), T0, c -> { });
        CardState idle = fleet.node("n3").card("n3-0").at(T0);
        assertEquals(0, idle.peers(util, 60_000, PeerStat.COUNT));
        assertTrue(Double.isNaN(idle.peers(util, 60_000, PeerStat.RATIO)));
    }
}
