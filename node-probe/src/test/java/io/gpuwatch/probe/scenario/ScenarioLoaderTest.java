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
        assertEquals(new Incident.Xid(Duration.ofSeconds(15), "gpu-1", 5, 79, "GPU has fallen off the bus"), xid);
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
}
