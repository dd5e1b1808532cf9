package io.gpuwatch.gateway.eval;

import io.gpuwatch.gateway.alert.Fingerprint;
import io.gpuwatch.gateway.ledger.MemoryLedger;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** State → rules → ledger with a stepped clock: what a user would see as notifications. */
class PipelineTest {
    private static final long T0 = 1_764_700_000_000L;
    private static final String RULES = """
            group: pipeline
            layer: device
            scope: card
            rules:
              - name: too-hot
                severity: ticket
                when: avg(tempC, 30s) > 85
                for: 1m
                summary: "@{card.name} on @{node} at @{tempC} C"
              - name: xid-fallen-off-bus
                severity: page
                when: count(events('xid', 79), 10m) > 0
                summary: "@{card.uuid} on @{node} fell off the bus"
              - name: node-silent
                scope: node
                severity: page
                when: silentFor > 30s
            """;

    private final List<Notification> sent = new ArrayList<>();
    private final FleetState fleet = new FleetState();
    private final MemoryLedger ledger = new MemoryLedger(100, "http://gw");
    private Evaluator evaluator;

    private void setUp() {
        RuleLoad load = RuleSet.parse("pipeline.yml", RULES);
        assertTrue(load.ok(), load.diagnostics().toString());
        evaluator = new Evaluator(fleet, load.ruleSet(), t -> ledger.apply(t, sent::add));
        fleet.hello(new Hello(1, "node-1", "boot", "test", null, null, Map.of(),
                List.of(new CardInfo("GPU-1", 0, "NVIDIA H100", null, null, null, null, null),
                        new CardInfo("GPU-2", 1, "NVIDIA H100", null, null, null, null, null))), T0);
    }

    private void sample(long at, double temp1, double temp2) {
        Sample s = new Sample(0, at, List.of(
                new CardReading("GPU-1", MetricValues.builder().set(Metric.TEMP_C, temp1).build(), List.of()),
                new CardReading("GPU-2", MetricValues.builder().set(Metric.TEMP_C, temp2).build(), List.of())));
        fleet.sample("node-1", s, at, card -> evaluator.card(card, at));
        evaluator.tick(at, 1000);
    }

    @Test
    void aConditionTrueForTenMinutesPagesOnceAndResolvesOnce() {
        setUp();
        for (int s = 0; s <= 900; s++) {
            double hot = s < 600 ? 95 : 60;
            sample(T0 + s * 1000L, hot, 60);
        }
        assertEquals(2, sent.size(), sent.toString());
        Notification firing = sent.get(0);
        assertEquals(Notification.Status.FIRING, firing.status());
        assertEquals("too-hot", firing.labels().get("alertname"));
        assertEquals("GPU-1", firing.labels().get("uuid"));
        assertEquals("node-1", firing.labels().get("node"));
        assertEquals("NVIDIA H100 on node-1 at 95 C", firing.annotations().get("summary"));
        Notification resolved = sent.get(1);
        assertEquals(Notification.Status.RESOLVED, resolved.status());
        assertEquals(firing.fingerprint(), resolved.fingerprint());
        assertTrue(ledger.live().isEmpty());
        assertEquals(1, ledger.history().size());
    }

    @Test
    void anXidPagesTheMomentItLandsWithTheCardAndNode() {
        setUp();
        sample(T0, 60, 60);
        long at = T0 + 1500;
        fleet.event("node-1", new Event(7, at, "GPU-2", "xid", 79, "GPU has fallen off the bus", null), at);
        evaluator.card(fleet.node("node-1").card("GPU-2"), at);
        assertEquals(1, sent.size());
        assertEquals("xid-fallen-off-bus", sent.get(0).labels().get("alertname"));
        assertEquals("GPU-2", sent.get(0).labels().get("uuid"));
        assertEquals(at, sent.get(0).startsAt().toEpochMilli());
        for (int s = 2; s < 60; s++) {
            sample(T0 + s * 1000L, 60, 60);
        }
        assertEquals(1, sent.size(), "an XID still in its window does not page again");
    }

    @Test
    void aNodeThatStopsSendingIsCaughtOnTheTick() {
        setUp();
        sample(T0, 60, 60);
        evaluator.tick(T0 + 30_000, 1000);
        assertEquals(0, sent.size(), "30 s of silence is not yet over the threshold");
        evaluator.tick(T0 + 30_001, 1000);
        assertEquals(1, sent.size());
        assertEquals("node-silent", sent.get(0).labels().get("alertname"));
        sample(T0 + 45_000, 60, 60);
        assertEquals(2, sent.size());
        assertEquals(Notification.Status.RESOLVED, sent.get(1).status());
    }

    private void sample(long at, double temp, String task) {
        ProcessInfo p = new ProcessInfo(4242, 1L << 30, task, "alice", "search");
        Sample s = new Sample(0, at, List.of(
                new CardReading("GPU-1", MetricValues.builder().set(Metric.TEMP_C, temp).build(), List.of(p)),
                new CardReading("GPU-2", MetricValues.builder().set(Metric.TEMP_C, 60).build(), List.of())));
        fleet.sample("node-1", s, at, card -> evaluator.card(card, at));
        evaluator.tick(at, 1000);
    }

    @Test
    void cardAlertsCarryTheNodesHelloLabelsAndTheCardsTaskAndATaskChangeIsTheSameAlert() {
        RuleLoad load = RuleSet.parse("pipeline.yml", RULES);
        evaluator = new Evaluator(fleet, load.ruleSet(), t -> ledger.apply(t, sent::add));
        Map<String, String> nodeLabels = Map.of("cluster", "east", "zone", "z2", "rack", "r17", "pool", "train");
        fleet.hello(new Hello(1, "node-1", "boot", "test", null, null, nodeLabels,
                List.of(new CardInfo("GPU-1", 0, "NVIDIA H100", null, null, null, null, null),
                        new CardInfo("GPU-2", 1, "NVIDIA H100", null, null, null, null, null))), T0);
        for (int s = 0; s <= 900; s++) {
            // the card is handed from one task to the next while it is hot
            sample(T0 + s * 1000L, s < 600 ? 95 : 60, s < 300 ? "train-a" : "train-b");
        }
        assertEquals(2, sent.size(), sent.toString());
        Notification firing = sent.get(0);
        assertEquals("too-hot", firing.labels().get("alertname"));
        nodeLabels.forEach((k, v) -> assertEquals(v, firing.labels().get(k), k));
        assertEquals("train-a", firing.labels().get("task"));
        assertEquals("alice", firing.labels().get("owner"));
        assertEquals("search", firing.labels().get("business"));
        assertEquals(Fingerprint.of("too-hot", Map.of("node", "node-1", "uuid", "GPU-1")), firing.fingerprint(),
                "only the rule and the card's node and uuid name the alert");
        assertEquals(T0 + 60_000, firing.startsAt().toEpochMilli(), "it starts when it fired, after its `for`");
        Notification resolved = sent.get(1);
        assertEquals(Notification.Status.RESOLVED, resolved.status());
        assertEquals(firing.fingerprint(), resolved.fingerprint(), "the task change did not make a second alert");
        assertEquals(firing.labels(), resolved.labels(), "the resolution repeats the labels the page had");
        assertTrue(ledger.live().isEmpty());
        assertEquals(1, ledger.history().size());
    }

    @Test
    void nodeAlertsCarryTheNodesHelloLabels() {
        RuleLoad load = RuleSet.parse("pipeline.yml", RULES);
        evaluator = new Evaluator(fleet, load.ruleSet(), t -> ledger.apply(t, sent::add));
        fleet.hello(new Hello(1, "node-1", "boot", "test", null, null, Map.of("cluster", "east", "rack", "r17"),
                List.of(new CardInfo("GPU-1", 0, "NVIDIA H100", null, null, null, null, null))), T0);
        evaluator.tick(T0 + 30_001, 1000);
        assertEquals(1, sent.size());
        Notification n = sent.get(0);
        assertEquals("node-silent", n.labels().get("alertname"));
        assertEquals("east", n.labels().get("cluster"));
        assertEquals("r17", n.labels().get("rack"));
        assertEquals(null, n.labels().get("task"), "a node alert names no task");
        assertEquals(Fingerprint.of("node-silent", Map.of("node", "node-1")), n.fingerprint());
    }

    @Test
    void withoutARunbookBaseTheRulesPathIsKeptAndTheGeneratorLinkNamesTheAlert() {
        RuleLoad load = RuleSet.parse("pipeline.yml", """
                group: g
                layer: device
                scope: card
                rules:
                  - name: hot
                    severity: page
                    when: tempC > 90
                    runbook: docs/runbooks.md#hot
                """);
        MemoryLedger plain = new MemoryLedger(10, "http://127.0.0.1:9464/");
        evaluator = new Evaluator(fleet, load.ruleSet(), t -> plain.apply(t, sent::add));
        fleet.hello(new Hello(1, "node-1", "boot", "test", null, null, Map.of(),
                List.of(new CardInfo("GPU-1", 0, "NVIDIA H100", null, null, null, null, null))), T0);
        sample(T0, 95, "t");
        assertEquals(1, sent.size());
        assertEquals("docs/runbooks.md#hot", sent.get(0).annotations().get("runbook"));
        assertEquals("http://127.0.0.1:9464/api/v1/alerts/" + sent.get(0).fingerprint(), sent.get(0).generatorUrl());
    }
}
