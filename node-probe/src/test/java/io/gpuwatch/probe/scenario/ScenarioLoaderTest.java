package io.gpuwatch.probe.scenario;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ScenarioLoaderTest {
    private static final Path SCENARIOS = Path.of("..", "examples", "scenarios");

    private static Scenario loaded(ScenarioLoad load) {
        if (load instanceof ScenarioLoad.Invalid invalid) {
            throw new AssertionError("expected the scenario to load, got " + invalid.errors());
        }
        return ((ScenarioLoad.Loaded) load).scenario();
    }

    private static List<ScenarioError> errors(String yaml) {
        return assertInstanceOf(ScenarioLoad.Invalid.class, ScenarioLoader.parse("t.yaml", yaml)).errors();
    }

    private static ScenarioError onlyError(String yaml) {
        List<ScenarioError> errors = errors(yaml);
        assertEquals(1, errors.size(), () -> "expected one error, got " + errors);
        return errors.get(0);
    }

    private static final String FLEET = """
            nodes: 2
            cardsPerNode: 4
            incidents:
            """;

    @Test
    void demoScenarioLoadsWithItsFleetAndIncidents() {
        Scenario s = loaded(ScenarioLoader.load(SCENARIOS.resolve("demo.yaml")));
        assertEquals("demo", s.name());
        assertEquals(List.of("gpu-0", "gpu-1", "gpu-2", "gpu-3"), s.nodeNames());
        assertEquals(8, s.cardsPerNode());
        assertEquals(Duration.ofSeconds(150), s.duration());
        assertEquals(CardModel.H100_SXM, s.model());
        assertEquals(Map.of("cluster", "bj-1", "zone", "bj-1a", "rack", "r13", "pool", "inference"), s.labelsOf("gpu-3"));
        List<Class<?>> kinds = s.incidents().stream().<Class<?>>map(Object::getClass).toList();
        assertEquals(List.of(Incident.IdleAllocated.class, Incident.ThermalThrottle.class, Incident.Xid.class,
                Incident.XidBurst.class, Incident.MemoryClimb.class, Incident.NodeSilent.class), kinds);
        Incident.Xid xid = (Incident.Xid) s.incidents().get(2);
        assertEquals(new Incident.Xid(Duration.ofSeconds(15), "gpu-1", 5, 79, "GPU has fallen off the bus", true), xid);
        Incident.MemoryClimb climb = (Incident.MemoryClimb) s.incidents().get(4);
        assertEquals(4L << 30, climb.bytes());
        assertEquals(Duration.ofSeconds(10), climb.per());
    }

    @Test
    void quietScenarioHasNoIncidentsAndRunsUntilStopped() {
        Scenario s = loaded(ScenarioLoader.load(SCENARIOS.resolve("quiet.yaml")));
        assertTrue(s.incidents().isEmpty());
        assertNull(s.duration());
        assertEquals(32, s.nodes() * s.cardsPerNode());
    }

    @Test
    void defaultsApplyWhenOmitted() {
        Scenario s = loaded(ScenarioLoader.parse("small.yaml", "nodes: 2\ncardsPerNode: 1\n"));
        assertEquals(List.of("node-0", "node-1"), s.nodeNames());
        assertEquals(1000, s.intervalMs());
        assertEquals("small.yaml", s.name());
        assertNull(s.duration());
    }

    @Test
    void durationsCombineUnits() {
        Scenario s = loaded(ScenarioLoader.parse("t.yaml", FLEET + """
                  - {at: 1m30s, node: node-1, card: 3, kind: thermal-throttle, for: 1.5s}
                  - {at: 250ms, node: node-0, kind: node-silent, for: 2h}
                """));
        Incident.ThermalThrottle t = (Incident.ThermalThrottle) s.incidents().get(0);
        assertEquals(Duration.ofSeconds(90), t.at());
        assertEquals(Duration.ofMillis(1500), t.duration());
        assertEquals(new Incident.NodeSilent(Duration.ofMillis(250), "node-0", Duration.ofHours(2)), s.incidents().get(1));
    }

    @Test
    void xidBurstWithoutCardsSpreadsOverDistinctCards() {
        Scenario s = loaded(ScenarioLoader.parse("t.yaml", FLEET + """
                  - {at: 5s, node: node-0, kind: xid-burst, codes: [13, 31, 43], every: 2s}
                """));
        Incident.XidBurst b = (Incident.XidBurst) s.incidents().get(0);
        assertEquals(3, b.count());
        assertEquals(3, b.cards().stream().distinct().count());
        assertTrue(b.cards().stream().allMatch(c -> c >= 0 && c < 4));
    }

    @Test
    void xidWithoutTextTakesTheDriversDescription() {
        Scenario s = loaded(ScenarioLoader.parse("t.yaml", FLEET + "  - {at: 1s, node: node-0, card: 0, kind: xid, code: 48}\n"));
        assertEquals("Double Bit ECC Error", ((Incident.Xid) s.incidents().get(0)).text());
    }

    @Test
    void unknownKindIsReportedAtTheKindValue() {
        ScenarioError e = onlyError(FLEET + """
                  - at: 10s
                    node: node-0
                    card: 1
                    kind: xdi
                """);
        assertEquals("t.yaml", e.source());
        assertEquals(7, e.line());
        assertEquals(11, e.column());
        assertTrue(e.message().contains("unknown incident kind 'xdi'"), e.message());
        assertTrue(e.message().contains("thermal-throttle"), "lists the known kinds: " + e.message());
        assertTrue(e.toString().startsWith("t.yaml:7:11: "), e.toString());
    }

    @Test
    void durationWithoutUnitIsReportedWithAHint() {
        ScenarioError e = onlyError(FLEET + """
                  - at: 20
                    node: node-0
                    card: 1
                    kind: xid
                    code: 79
                """);
        assertEquals(4, e.line());
        assertEquals(9, e.column());
        assertTrue(e.message().contains("needs a unit"), e.message());
    }

    @Test
    void malformedDurationIsReported() {
        ScenarioError e = onlyError(FLEET + "  - {at: 10s, node: node-0, card: 1, kind: idle-allocated, for: soon}\n");
        assertEquals(4, e.line());
        assertTrue(e.message().contains("'for' must be a duration"), e.message());
    }

    @Test
    void missingNodeIsReportedAtTheIncident() {
        ScenarioError e = onlyError(FLEET + """
                  - at: 10s
                    card: 1
                    kind: thermal-throttle
                    for: 30s
                """);
        assertEquals(4, e.line());
        assertEquals(5, e.column());
        assertEquals("missing 'node'", e.message());
    }

    @Test
    void unknownNodeNamesTheFleetsNodes() {
        ScenarioError e = onlyError(FLEET + "  - {at: 1s, node: node-7, card: 0, kind: xid, code: 79}\n");
        assertTrue(e.message().contains("no node 'node-7'"), e.message());
        assertTrue(e.message().contains("node-0, node-1"), e.message());
    }

    @Test
    void cardIndexOutOfRangeIsReported() {
        ScenarioError e = onlyError(FLEET + """
                  - at: 10s
                    node: node-1
                    card: 4
                    kind: memory-climb
                    rate: 2GiB/10s
                """);
        assertEquals(6, e.line());
        assertEquals(11, e.column());
        assertTrue(e.message().contains("card index 4 is out of range"), e.message());
        assertTrue(e.message().contains("0–3"), e.message());
    }

    @Test
    void burstCardsAreCheckedToo() {
        ScenarioError e = onlyError(FLEET + "  - {at: 1s, node: node-0, kind: xid-burst, codes: [79], cards: [1, 9], every: 1s}\n");
        assertTrue(e.message().contains("card index 9"), e.message());
    }

    @Test
    void eccUncorrectedMayFailToRemap() {
        Scenario s = loaded(ScenarioLoader.parse("t.yaml", FLEET + """
                  - {at: 1s, node: node-0, card: 2, kind: ecc-uncorrected, xid: 64, remapFailure: true}
                  - {at: 2s, node: node-0, card: 3, kind: ecc-uncorrected}
                """));

        assertEquals(List.of(new Incident.EccUncorrected(Duration.ofSeconds(1), "node-0", 2, 1, 64, true),
                new Incident.EccUncorrected(Duration.ofSeconds(2), "node-0", 3, 1, null, false)), s.incidents());
        ScenarioError e = onlyError(FLEET + "  - {at: 1s, node: node-0, card: 2, kind: ecc-uncorrected, remapFailure: yes}\n");
        assertEquals("'remapFailure' must be true or false, got 'yes'", e.message());
        assertEquals(4, e.line());
    }

    @Test
    void cardOnANodeWideIncidentIsRefused() {
        ScenarioError e = onlyError(FLEET + "  - {at: 1s, node: node-0, card: 2, kind: node-silent, for: 10s}\n");
        assertTrue(e.message().contains("whole node"), e.message());
    }

    @Test
    void misspelledKeysAreReported() {
        List<ScenarioError> errors = errors("""
                nodes: 2
                cardPerNode: 4
                incidents:
                  - {at: 1s, node: node-0, card: 2, kind: thermal-throttle, fro: 10s}
                """);
        assertEquals(List.of(1, 2, 4, 4), errors.stream().map(ScenarioError::line).toList(), errors::toString);
        assertEquals("missing 'cardsPerNode'", errors.get(0).message());
        assertTrue(errors.stream().anyMatch(e -> e.message().startsWith("unknown key 'cardPerNode'")), errors::toString);
        assertTrue(errors.stream().anyMatch(e -> e.message().startsWith("unknown key 'fro' for kind thermal-throttle")),
                errors::toString);
        assertTrue(errors.stream().anyMatch(e -> e.message().equals("missing 'for'")), errors::toString);
    }

    @Test
    void everyProblemIsReportedInFileOrder() {
        List<ScenarioError> errors = errors("""
                nodes: 2
                cardsPerNode: 4
                model: NVIDIA H100 PCIe
                duration: 60s
                incidents:
                  - {at: 90s, node: node-0, card: 0, kind: xid, code: 79}
                  - {at: 5s, node: node-0, card: 0, kind: memory-climb, rate: fast}
                """);
        assertEquals(3, errors.size(), errors::toString);
        assertEquals(List.of(3, 6, 7), errors.stream().map(ScenarioError::line).toList());
        assertTrue(errors.get(0).message().contains("unknown card model"), errors.get(0).message());
        assertTrue(errors.get(1).message().contains("not before the scenario's end"), errors.get(1).message());
        assertTrue(errors.get(2).message().contains("like 2GiB/10s"), errors.get(2).message());
    }

    @Test
    void brokenYamlIsReportedWithItsPosition() {
        ScenarioError e = onlyError("nodes: 2\ncardsPerNode: [4\n");
        assertTrue(e.line() >= 2, e::toString);
        assertTrue(e.message().startsWith("not valid YAML"), e.message());
    }

    @Test
    void unreadableFileIsAnErrorNotAnException() {
        ScenarioLoad load = ScenarioLoader.load(SCENARIOS.resolve("no-such-file.yaml"));
        ScenarioError e = assertInstanceOf(ScenarioLoad.Invalid.class, load).errors().get(0);
        assertEquals(0, e.line());
        assertTrue(e.message().startsWith("cannot read"), e.message());
    }

    // ---- expect: and the corpus kinds

    private static final String LABELLED = """
            nodes: 2
            cardsPerNode: 4
            duration: 1h
            start: 2026-03-01T08:00:00Z
            incidents:
            """;

    @Test
    void expectationsResolveTheirDefaults() {
        Scenario s = loaded(ScenarioLoader.parse("t.yaml", LABELLED + """
                  - {at: 10m, node: node-1, card: 3, kind: xid, code: 79, expect: {id: a, class: hard, severity: page, within: 30s}}
                  - {at: 20m, node: node-0, kind: power-cap, for: 20m, expect: {id: b, class: lookalike, must: not-notify}}
                  - {at: 5m, queue: training, kind: queue-wait, for: 10m, expect: {id: c, class: composite, severity: ticket, within: 5m, tolerate: [notice]}}
                  - {at: 50m, node: node-0, card: 1, kind: job-end, expect: {id: d, class: lookalike, must: not-page, scope: task}}
                  - {at: 5m, node: node-1, kind: checkpoint, every: 10m, for: 1m, count: 3, expect: {id: e, class: lookalike, must: not-notify}}
                """));
        assertEquals(java.time.Instant.parse("2026-03-01T08:00:00Z").toEpochMilli(), s.startMs());
        assertTrue(s.scheduler(), "a queue incident brings the scheduler");
        List<Expectation> e = s.expectations();
        assertEquals(new Expectation("a", "hard", "xid-79", "device", "card", "node-1", 3, null, Duration.ofMinutes(10),
                Duration.ofSeconds(30), Duration.ofSeconds(30), "page", List.of(), null, false), e.get(0));
        assertEquals(new Expectation("b", "lookalike", "power-cap", "device", "node", "node-0", null, null,
                Duration.ofMinutes(20), Duration.ofMinutes(25), null, null, List.of(), "not-notify", false), e.get(1));
        assertEquals(new Expectation("c", "composite", "queue-wait", "scheduling", "queue", null, null, "training",
                Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofMinutes(5), "ticket", List.of("notice"), null,
                false), e.get(2));
        assertEquals(Duration.ofMinutes(15), e.get(3).span(), "to the scenario's end, plus five minutes");
        assertEquals("task", e.get(3).scope());
        assertEquals(Duration.ofMinutes(26), e.get(4).span(), "three checkpoints ten minutes apart, plus five minutes");
        assertEquals(3, s.incidents().stream().filter(i -> i instanceof Incident.Spell sp
                && sp.node().equals("node-1")).count());
    }

    @Test
    void expectMistakesAreReportedAtTheirPlace() {
        List<ScenarioError> errors = errors(LABELLED + """
                  - at: 1m
                    node: node-0
                    card: 1
                    kind: xid
                    code: 48
                    expect: {id: x, class: hard, severity: urgent, within: 30s}
                  - at: 2m
                    node: node-0
                    kind: power-cap
                    for: 5m
                    expect: {id: x, class: lookalike, must: not-notify, severity: page, scope: card}
                  - at: 3m
                    node: node-0
                    card: 0
                    kind: straggler
                    for: 5m
                    expect: {id: y, class: composite}
                """);
        List<String> got = errors.stream().map(ScenarioError::toString).toList();
        assertEquals(List.of(
                "t.yaml:11:44: 'expect.severity' must be one of page, ticket, notice, inspect, got 'urgent'",
                "t.yaml:16:18: expect id 'x' is used by an earlier incident",
                "t.yaml:16:57: 'severity' applies to incidents; a look-alike says what must not happen with 'must'",
                "t.yaml:16:80: scope card needs an incident on one card; this one is on a node or several cards",
                "t.yaml:22:13: missing 'expect.severity' (class composite)",
                "t.yaml:22:13: missing 'expect.within' (class composite)"), got);
    }

    @Test
    void corpusKindMistakesNameTheField() {
        List<ScenarioError> errors = errors(LABELLED + """
                  - {at: 1m, node: node-0, kind: clock-event, reasons: [HW_SLOWNESS], for: 1m}
                  - {at: 1m, node: node-0, card: 0, kind: straggler, for: 1m, slowdown: 1.5}
                  - {at: 1m, node: node-0, kind: collector-unsupported, fields: [tokensPerSec]}
                  - {at: 1m, node: node-0, queue: training, kind: sched-burst, for: 1m}
                  - {at: 0s, node: node-0, kind: job-start}
                  - {at: 1m, node: node-0, kind: checkpoint, every: 1m, for: 2m}
                  - {at: 1m, node: node-0, card: 1, kind: slow-node, for: 1m}
                  - {at: 1m, queue: batch, kind: queue-wait, for: 1m}
                  - {at: 1m, node: node-0, card: 1, kind: xid, code: 79, lost: maybe}
                """);
        List<String> got = errors.stream().map(e -> e.line() + ":" + e.column() + " " + e.message()).toList();
        assertEquals(9, got.size(), got::toString);
        assertTrue(got.get(0).startsWith("6:57 'reasons' must be one of APPLICATIONS_CLOCKS_SETTING"), got.get(0));
        assertEquals("7:73 'slowdown' must be between 0 and 1, got 1.5", got.get(1));
        assertTrue(got.get(2).startsWith("8:66 'tokensPerSec' is no card reading; card readings are gpuUtil"), got.get(2));
        assertEquals("9:14 sched-burst applies to a queue; remove 'node'", got.get(3));
        assertEquals("10:10 a job-start needs an 'at' after 0s: the card is empty until then", got.get(4));
        assertEquals("11:53 'every' must be longer than 'for' (2m)", got.get(5));
        assertEquals("12:28 slow-node applies to the whole node; remove 'card'", got.get(6));
        assertEquals("13:21 'queue' must be one of training, inference, got 'batch'", got.get(7));
        assertEquals("14:64 'lost' must be true or false, got 'maybe'", got.get(8));
    }

    @Test
    void badStartIsReported() {
        ScenarioError e = onlyError("nodes: 1\ncardsPerNode: 1\nstart: yesterday\n");
        assertEquals("t.yaml:3:8: 'start' must be a UTC time like 2026-01-01T00:00:00Z, got 'yesterday'", e.toString());
    }
}
