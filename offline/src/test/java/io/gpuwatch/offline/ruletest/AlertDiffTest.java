package io.gpuwatch.offline.ruletest;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class AlertDiffTest {
    private static final AlertDiff.Firing GPU1 =
            new AlertDiff.Firing(Map.of("alertname", "hot", "node", "n1", "uuid", "GPU-1"), "one", "");
    private static final AlertDiff.Firing GPU2 =
            new AlertDiff.Firing(Map.of("alertname", "hot", "node", "n1", "uuid", "GPU-2"), "two", "");

    private static TestFile.ExpectedAlert expect(Map<String, String> labels, String summary) {
        return new TestFile.ExpectedAlert(labels, summary, null);
    }

    @Test
    void expectedAlertsMatchInAnyOrderEvenWhenAGreedyPairingWouldNot() {
        // {node: n1} would take GPU-1 first if paired greedily, leaving {uuid: GPU-1} without a partner
        assertNull(AlertDiff.diff(List.of(expect(Map.of("node", "n1"), null), expect(Map.of("uuid", "GPU-1"), null)),
                List.of(GPU1, GPU2)));
    }

    @Test
    void aMissingLabelValueOrSummaryIsADifference() {
        assertEquals(List.of("- {uuid=\"GPU-3\"}", "+ {alertname=\"hot\", node=\"n1\", uuid=\"GPU-1\"}",
                "+     summary: one"), AlertDiff.diff(List.of(expect(Map.of("uuid", "GPU-3"), null)), List.of(GPU1)));
        assertEquals(List.of("  {uuid=\"GPU-2\"}", "-     summary: deux", "+     summary: two"),
                AlertDiff.diff(List.of(expect(Map.of("uuid", "GPU-2"), "deux")), List.of(GPU2)));
    }

    @Test
    void extraAlertsAreListedSortedByLabels() {
        assertEquals(List.of("  {uuid=\"GPU-2\"}", "+ {alertname=\"hot\", node=\"n1\", uuid=\"GPU-1\"}",
                        "+     summary: one"),
                AlertDiff.diff(List.of(expect(Map.of("uuid", "GPU-2"), "two")), List.of(GPU2, GPU1)));
        assertNull(AlertDiff.diff(List.of(), List.of()));
    }

    @Test
    void notificationCountsCompareOnlyWhatIsGiven() {
        assertNull(AlertDiff.counts(new TestFile.ExpectedNotifications(1, null), 1, 5));
        assertEquals(List.of("- firing: 1, resolved: 0", "+ firing: 1, resolved: 1"),
                AlertDiff.counts(new TestFile.ExpectedNotifications(1, 0), 1, 1));
    }
}
