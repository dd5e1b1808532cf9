package io.gpuwatch.probe.load;

import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LoadPlanTest {
    private static LoadPlan plan(int nodes, int cards, int xids) {
        return new LoadPlan(nodes, cards, 1000, 600_000, "bench-", Collections.nCopies(xids, 1000L), 10, 600, 0);
    }

    @Test
    void xidsGoToDifferentNodesWhileThereAreNodesLeft() {
        for (int nodes : new int[] {1, 2, 7, 20, 2000, 6250}) {
            LoadPlan p = plan(nodes, 8, Math.min(nodes, 50));
            Set<Integer> seen = new HashSet<>();
            for (int k = 0; k < p.xidAtMs().size(); k++) {
                assertTrue(seen.add(p.xidNode(k)), nodes + " nodes: XID " + k + " reuses node " + p.xidNode(k));
            }
        }
    }

    @Test
    void moreXidsThanNodesStillHitDistinctCards() {
        LoadPlan p = plan(3, 4, 12);
        Set<String> cards = new HashSet<>();
        for (int k = 0; k < 12; k++) {
            assertTrue(cards.add(p.xidNode(k) + "/" + p.xidCard(k)), "XID " + k + " repeats a card");
        }
    }

    @Test
    void nodesComeOnlineSpreadOverTheRampOrAtLeastOneInterval() {
        LoadPlan ramped = new LoadPlan(2000, 8, 1000, 60_000, "bench-", List.of(), 10, 600, 10_000);
        assertEquals(0, ramped.onlineAtMs(0));
        assertEquals(5_000, ramped.onlineAtMs(1000));
        assertEquals(9_995, ramped.onlineAtMs(1999));
        LoadPlan quick = new LoadPlan(20, 8, 1000, 60_000, "bench-", List.of(), 10, 600, 100);
        assertEquals(950, quick.onlineAtMs(19), "a ramp shorter than the interval still spreads the phases over it");
        assertThrows(IllegalArgumentException.class, () -> new LoadPlan(20, 8, 1000, 5000, "bench-", List.of(), 10, 600, 5000));
    }

    @Test
    void nodeNamesArePaddedSoTheySortByIndex() {
        assertEquals("bench-00042", plan(100, 8, 0).nodeName(42));
    }

    @Test
    void nonsenseIsRefusedNamingTheOption() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> plan(0, 8, 0)).getMessage().contains("--nodes"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> plan(10, 65, 0)).getMessage().contains("--cards"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new LoadPlan(10, 8, 1000, 5000, "bench-", List.of(6000L), 10, 600, 0)).getMessage().contains("--xid-at"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new LoadPlan(10, 8, 1000, 5000, "bench node", List.of(), 10, 600, 0)).getMessage().contains("--node-prefix"));
    }
}
