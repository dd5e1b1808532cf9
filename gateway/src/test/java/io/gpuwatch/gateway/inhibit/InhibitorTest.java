package io.gpuwatch.gateway.inhibit;

import io.gpuwatch.gateway.match.Matcher;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

class InhibitorTest {
    private static final Map<String, String> SILENT_N1 = Map.of("alertname", "node-silent", "node", "n1",
            "severity", "page", "layer", "device");
    private static final Map<String, String> HOT_N1_G1 = Map.of("alertname", "thermal-throttling-under-load",
            "node", "n1", "uuid", "GPU-1", "severity", "ticket");
    private static final Map<String, String> HOT_N2_G7 = Map.of("alertname", "thermal-throttling-under-load",
            "node", "n2", "uuid", "GPU-7", "severity", "ticket");
    private static final Map<String, String> BURST_N1 = Map.of("alertname", "node-xid-burst", "node", "n1",
            "severity", "page");

    @Test
    void aSilentNodeInhibitsItsCardsAlertsButNotOtherNodesOrNodeAlerts() {
        Inhibitor inh = new Inhibitor(InhibitRule.BUILT_IN);
        inh.observe("silent-n1", SILENT_N1, true);
        assertEquals(List.of("silent-n1"), inh.inhibitedBy("hot-n1", HOT_N1_G1));
        assertEquals(List.of(), inh.inhibitedBy("hot-n2", HOT_N2_G7), "another node");
        assertEquals(List.of(), inh.inhibitedBy("burst-n1", BURST_N1), "a node alert has no card");
        assertEquals(List.of(), inh.inhibitedBy("silent-n1", SILENT_N1));

        inh.observe("silent-n1", SILENT_N1, false);
        assertEquals(List.of(), inh.inhibitedBy("hot-n1", HOT_N1_G1), "the node reports again");
    }

    @Test
    void aCardLostWithXid79InhibitsThatCardsOtherAlertsOnly() {
        Inhibitor inh = new Inhibitor(InhibitRule.BUILT_IN);
        Map<String, String> lost = Map.of("alertname", "xid-fallen-off-bus", "node", "n1", "uuid", "GPU-1",
                "severity", "page");
        inh.observe("lost-g1", lost, true);
        assertEquals(List.of("lost-g1"), inh.inhibitedBy("hot-n1", HOT_N1_G1));
        Map<String, String> otherCard = Map.of("alertname", "thermal-throttling-under-load", "node", "n1",
                "uuid", "GPU-2");
        assertEquals(List.of(), inh.inhibitedBy("hot-g2", otherCard), "the same node's other card");
        assertEquals(List.of(), inh.inhibitedBy("lost-g1", lost), "an alert never inhibits itself");
    }

    @Test
    void equalLabelsMustMatchAndMissingCountsAsEmpty() {
        InhibitRule rule = new InhibitRule("page-hides-ticket", List.of(Matcher.equal("severity", "page")),
                List.of(Matcher.equal("severity", "ticket")), List.of("node", "cluster"));
        Inhibitor inh = new Inhibitor(List.of(rule));
        inh.observe("burst-n1", BURST_N1, true);
        assertEquals(List.of("burst-n1"), inh.inhibitedBy("hot-n1", HOT_N1_G1),
                "neither has `cluster`: both empty, so equal");
        Map<String, String> inCluster = Map.of("severity", "ticket", "node", "n1", "cluster", "west");
        assertEquals(List.of(), inh.inhibitedBy("t", inCluster), "cluster west is not the source's empty cluster");
        assertEquals(List.of(), inh.inhibitedBy("hot-n2", HOT_N2_G7));
    }

    @Test
    void alertsMatchingBothSidesDoNotHideEachOther() {
        InhibitRule rule = new InhibitRule("one-per-node", List.of(Matcher.equal("severity", "page")),
                List.of(Matcher.equal("severity", "page")), List.of("node"));
        Inhibitor inh = new Inhibitor(List.of(rule));
        Map<String, String> a = Map.of("alertname", "a", "severity", "page", "node", "n1");
        Map<String, String> b = Map.of("alertname", "b", "severity", "page", "node", "n1");
        inh.observe("a", a, true);
        inh.observe("b", b, true);
        assertEquals(List.of(), inh.inhibitedBy("a", a));
        assertEquals(List.of(), inh.inhibitedBy("b", b));
    }

    @Test
    void anUpdatedSourceIsReindexedByItsNewLabels() {
        Inhibitor inh = new Inhibitor(InhibitRule.BUILT_IN);
        inh.observe("silent", SILENT_N1, true);
        Map<String, String> moved = Map.of("alertname", "node-silent", "node", "n2");
        inh.observe("silent", moved, true);
        assertEquals(List.of(), inh.inhibitedBy("hot-n1", HOT_N1_G1));
        assertEquals(List.of("silent"), inh.inhibitedBy("hot-n2", HOT_N2_G7));
    }
}
