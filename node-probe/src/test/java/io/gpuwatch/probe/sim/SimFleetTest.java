package io.gpuwatch.probe.sim;

import io.gpuwatch.probe.scenario.Scenario;
import io.gpuwatch.probe.scenario.ScenarioLoad;
import io.gpuwatch.probe.scenario.ScenarioLoader;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.ClockEventReason;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.codec.Decoded;
import io.gpuwatch.protocol.codec.FrameCodec;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SimFleetTest {
    private static final long T0 = 1_764_700_000_000L;

    private static Scenario scenario(String incidents) {
        String yaml = "nodes: 4\ncardsPerNode: 8\nseed: 11\nincidents:\n" + incidents;
        ScenarioLoad load = ScenarioLoader.parse("test.yaml", yaml);
        if (load instanceof ScenarioLoad.Invalid invalid) {
            throw new AssertionError(invalid.errors().toString());
        }
        return ((ScenarioLoad.Loaded) load).scenario();
    }

    private static Scenario file(String name) {
        return ((ScenarioLoad.Loaded) ScenarioLoader.load(Path.of("..", "examples", "scenarios", name))).scenario();
    }

    /** Steps the fleet second by second like the runner does, keeping every sample and event of every node. */
    private static final class Run {
        final SimFleet fleet;
        final List<Sample> samples = new ArrayList<>();
        final List<String> sampleNodes = new ArrayList<>();
        final List<Event> events = new ArrayList<>();

        Run(Scenario s, long seconds) {
            fleet = new SimFleet(s, T0);
            for (long t = 0; t <= seconds; t++) {
                long now = T0 + t * 1000;
                for (String node : fleet.nodes()) {
                    if (fleet.silent(node, now)) {
                        continue;
                    }
                    events.addAll(fleet.eventsDue(node, now));
                    samples.add(fleet.sample(node, now));
                    sampleNodes.add(node);
                }
            }
        }

        /** The card's readings, one per second of the run. */
        List<CardReading> card(String node, int index) {
            List<CardReading> out = new ArrayList<>();
            for (int i = 0; i < samples.size(); i++) {
                if (sampleNodes.get(i).equals(node)) {
                    out.add(samples.get(i).cards().get(index));
                }
            }
            return out;
        }

        String uuid(String node, int index) {
            return fleet.hello(node).cards().get(index).uuid();
        }

        List<Event> events(Predicate<Event> p) {
            return events.stream().filter(p).toList();
        }
    }

    private static double v(CardReading r, Metric m) {
        return r.values().get(m);
    }

    private static List<String> reasons(CardReading r) {
        return ClockEventReason.names((long) v(r, Metric.CLOCK_EVENT_REASONS));
    }

    private static double second(long ts) {
        return (ts - T0) / 1000.0;
    }

    private static double correlation(List<CardReading> rs, Metric a, Metric b) {
        int n = rs.size();
        double ma = 0;
        double mb = 0;
        for (CardReading r : rs) {
            ma += v(r, a) / n;
            mb += v(r, b) / n;
        }
        double cov = 0;
        double va = 0;
        double vb = 0;
        for (CardReading r : rs) {
            double da = v(r, a) - ma;
            double db = v(r, b) - mb;
            cov += da * db;
            va += da * da;
            vb += db * db;
        }
        return cov / Math.sqrt(va * vb);
    }

    @Test
    void quietFleetStaysBusyCoolAndSilentForHalfAnHour() {
        Run run = new Run(file("quiet.yaml"), 1800);
        assertTrue(run.events.isEmpty(), () -> "a quiet fleet sends no events, got " + run.events.subList(0, 1));
        for (Sample s : run.samples) {
            for (CardReading r : s.cards()) {
                assertTrue(v(r, Metric.TEMP_C) <= 83, () -> r.uuid() + " too hot: " + r.values());
                assertTrue(v(r, Metric.GPU_UTIL) >= 60 && v(r, Metric.GPU_UTIL) <= 98, () -> r.uuid() + ": " + r.values());
                assertTrue(v(r, Metric.POWER_W) < 700, () -> r.uuid() + ": " + r.values());
                assertEquals(List.of(), reasons(r));
                assertEquals(1, r.processes().size());
                assertTrue(r.processes().get(0).task() != null && r.processes().get(0).owner() != null
                        && r.processes().get(0).business() != null);
            }
        }
    }

    @Test
    void powerTemperatureAndClockMoveWithUtilisation() {
        // the inference node's request load rises and falls; power follows it closely, temperature with a lag
        Run run = new Run(scenario("  - {at: 0s, node: node-3, card: 7, kind: idle-allocated, for: 10m}\n"), 600);
        List<CardReading> serving = run.card("node-3", 0);
        assertTrue(correlation(serving, Metric.GPU_UTIL, Metric.POWER_W) > 0.9);
        assertTrue(correlation(serving, Metric.POWER_W, Metric.TEMP_C) > 0.5);
        assertTrue(correlation(serving, Metric.GPU_UTIL, Metric.SM_ACTIVE) > 0.8);
        assertTrue(correlation(serving, Metric.GPU_UTIL, Metric.MEM_UTIL) > 0.8);

        CardReading busy = run.card("node-0", 0).get(300);
        CardReading idle = run.card("node-3", 7).get(300);
        assertTrue(v(busy, Metric.POWER_W) > v(idle, Metric.POWER_W) + 300, () -> busy.values() + " vs " + idle.values());
        assertTrue(v(busy, Metric.TEMP_C) > v(idle, Metric.TEMP_C) + 15);
        assertTrue(v(busy, Metric.SM_CLOCK_MHZ) >= 1800);
        assertTrue(v(busy, Metric.TENSOR_ACTIVE) > 0.3);
    }

    @Test
    void energyCounterIntegratesPower() {
        Run run = new Run(file("quiet.yaml"), 120);
        List<CardReading> card = run.card("gpu-0", 3);
        double joules = 0;
        for (int i = 1; i < card.size(); i++) {
            joules += v(card.get(i), Metric.POWER_W);
        }
        double counted = v(card.get(card.size() - 1), Metric.ENERGY_J) - v(card.get(0), Metric.ENERGY_J);
        assertEquals(joules, counted, joules * 0.02);
    }

    @Test
    void thermalThrottleHeatsTheCardThenLowersClockAndPowerButNotUtilisation() {
        Run run = new Run(scenario("  - {at: 10s, node: node-0, card: 2, kind: thermal-throttle, for: 60s}\n"), 150);
        List<CardReading> card = run.card("node-0", 2);
        CardReading before = card.get(9);
        assertEquals(List.of(), reasons(before));

        // temperature follows with a lag rather than jumping
        assertTrue(v(card.get(11), Metric.TEMP_C) - v(before, Metric.TEMP_C) <= 3);

        CardReading during = card.get(50);
        assertTrue(reasons(during).containsAll(List.of("SW_THERMAL_SLOWDOWN", "HW_THERMAL_SLOWDOWN")), during::toString);
        assertTrue(v(during, Metric.TEMP_C) >= 83 && v(during, Metric.TEMP_C) <= 87, during::toString);
        assertTrue(v(during, Metric.SM_CLOCK_MHZ) < v(before, Metric.SM_CLOCK_MHZ) - 200, during::toString);
        assertTrue(v(during, Metric.POWER_W) < v(before, Metric.POWER_W) - 50, during::toString);
        assertTrue(v(during, Metric.GPU_UTIL) >= 80, during::toString);

        CardReading after = card.get(120);
        assertEquals(List.of(), reasons(after));
        assertTrue(v(after, Metric.SM_CLOCK_MHZ) >= 1800, after::toString);
        assertTrue(v(after, Metric.TEMP_C) < 80, after::toString);
        // its neighbour never noticed
        assertTrue(run.card("node-0", 3).stream().allMatch(r -> reasons(r).isEmpty()));
    }

    @Test
    void memoryClimbEndsInOomThenTheProcessExitsAndIsRestarted() {
        Run run = new Run(scenario("  - {at: 5s, node: node-1, card: 4, kind: memory-climb, rate: 4GiB/10s}\n"), 150);
        String uuid = run.uuid("node-1", 4);
        List<Event> mine = run.events(e -> uuid.equals(e.uuid()));
        assertEquals(List.of("oom", "process_exit", "process_start"), mine.stream().map(Event::kind).toList());
        Event oom = mine.get(0);
        List<CardReading> card = run.card("node-1", 4);
        long pid = card.get(0).processes().get(0).pid();
        assertEquals(pid, oom.pid());
        assertEquals(pid, mine.get(1).pid());
        assertNotEquals(pid, mine.get(2).pid());
        assertTrue(mine.get(2).ts() > oom.ts());

        int oomAt = (int) second(oom.ts());
        double total = run.fleet.hello("node-1").cards().get(4).memTotalBytes();
        for (int t = 6; t < oomAt; t++) {
            assertTrue(v(card.get(t), Metric.MEM_USED_BYTES) > v(card.get(t - 1), Metric.MEM_USED_BYTES), "climbs at " + t);
            assertTrue(v(card.get(t), Metric.GPU_UTIL) >= 60, "keeps working at " + t);
        }
        assertTrue(v(card.get(oomAt), Metric.MEM_USED_BYTES) > 0.97 * total);
        CardReading dead = card.get(oomAt + 2);
        assertTrue(dead.processes().isEmpty());
        assertTrue(v(dead, Metric.MEM_USED_BYTES) < 1L << 30);
        assertEquals(0, v(dead, Metric.GPU_UTIL));

        CardReading restarted = card.get(card.size() - 1);
        assertEquals(mine.get(2).pid(), restarted.processes().get(0).pid());
        assertTrue(v(restarted, Metric.MEM_USED_BYTES) > 0.6 * total && v(restarted, Metric.MEM_USED_BYTES) < 0.9 * total);
    }

    @Test
    void xid79LeavesTheCardListedByUuidAlone() {
        Run run = new Run(scenario("  - {at: 15s, node: node-2, card: 5, kind: xid, code: 79}\n"), 60);
        String uuid = run.uuid("node-2", 5);
        List<Event> mine = run.events(e -> uuid.equals(e.uuid()));
        assertEquals(List.of("xid", "gpu_lost"), mine.stream().map(Event::kind).toList());
        assertEquals(79, mine.get(0).xid());
        assertEquals("GPU has fallen off the bus", mine.get(0).text());
        assertEquals(15.0, second(mine.get(0).ts()));

        List<CardReading> card = run.card("node-2", 5);
        assertFalse(card.get(14).values().isEmpty());
        for (CardReading r : card.subList(15, card.size())) {
            assertEquals(uuid, r.uuid());
            assertTrue(r.values().isEmpty() && r.processes().isEmpty(), r::toString);
        }
        assertTrue(v(run.card("node-2", 4).get(30), Metric.GPU_UTIL) >= 60, "other cards keep working");
    }

    @Test
    void xidBurstHitsDistinctCardsOfOneNodeInsideItsWindow() {
        Run run = new Run(scenario("  - {at: 25s, node: node-1, kind: xid-burst, codes: [119, 74, 119, 48], every: 5s}\n"), 60);
        List<Event> xids = run.events(e -> e.kind().equals("xid"));
        assertEquals(List.of(119, 74, 119, 48), xids.stream().map(Event::xid).toList());
        assertEquals(List.of(25.0, 30.0, 35.0, 40.0), xids.stream().map(e -> second(e.ts())).toList());
        Set<String> node1 = new HashSet<>();
        run.fleet.hello("node-1").cards().forEach(c -> node1.add(c.uuid()));
        assertTrue(xids.stream().allMatch(e -> node1.contains(e.uuid())));
        assertEquals(4, xids.stream().map(Event::uuid).distinct().count());
    }

    @Test
    void idleAllocatedCardHoldsMemoryButRunsNothingUntilReleased() {
        Run run = new Run(scenario("  - {at: 20s, node: node-3, card: 6, kind: idle-allocated, for: 60s}\n"), 120);
        List<CardReading> card = run.card("node-3", 6);
        CardReading idle = card.get(50);
        assertEquals(1, idle.processes().size());
        assertTrue(v(idle, Metric.GPU_UTIL) <= 1);
        assertEquals(345, v(idle, Metric.SM_CLOCK_MHZ));
        assertEquals(List.of("GPU_IDLE"), reasons(idle));
        assertTrue(idle.processes().get(0).usedMemBytes() > 20L << 30);
        assertTrue(v(idle, Metric.POWER_W) < 120);

        String uuid = run.uuid("node-3", 6);
        List<Event> mine = run.events(e -> uuid.equals(e.uuid()));
        assertEquals(List.of("process_exit", "process_start", "process_exit", "process_start"),
                mine.stream().map(Event::kind).toList());
        assertEquals(List.of(20.0, 20.0, 80.0, 80.0), mine.stream().map(e -> second(e.ts())).toList());
        assertEquals(idle.processes().get(0).pid(), mine.get(1).pid());
        assertTrue(v(card.get(115), Metric.GPU_UTIL) >= 60, "its service is back after the release");
    }

    @Test
    void eccUncorrectedCountsAndReports() {
        Run run = new Run(scenario("  - {at: 3s, node: node-0, card: 1, kind: ecc-uncorrected, count: 2, xid: 94}\n"), 10);
        List<Event> mine = run.events(e -> run.uuid("node-0", 1).equals(e.uuid()));
        assertEquals(List.of("ecc_uncorrected", "xid"), mine.stream().map(Event::kind).toList());
        assertEquals(94, mine.get(1).xid());
        List<CardReading> card = run.card("node-0", 1);
        assertEquals(0, v(card.get(2), Metric.ECC_UNCORRECTED_VOLATILE));
        assertEquals(2, v(card.get(5), Metric.ECC_UNCORRECTED_VOLATILE));
        assertEquals(1, v(card.get(5), Metric.REMAPPED_ROWS_PENDING));
        assertEquals(0, v(card.get(5), Metric.REMAPPED_ROWS_FAILED));
    }

    @Test
    void eccUncorrectedWithARemapFailureLeavesNothingPendingAndTheFailureSet() {
        Run run = new Run(scenario("  - {at: 3s, node: node-0, card: 1, kind: ecc-uncorrected, xid: 64, remapFailure: true}\n"), 10);
        List<Event> mine = run.events(e -> run.uuid("node-0", 1).equals(e.uuid()));
        assertEquals(List.of("ecc_uncorrected", "xid"), mine.stream().map(Event::kind).toList());
        assertTrue(mine.get(0).text().endsWith("row remapping failed"), mine.get(0).text());
        List<CardReading> card = run.card("node-0", 1);
        assertEquals(0, v(card.get(2), Metric.REMAPPED_ROWS_FAILED));
        assertEquals(1, v(card.get(5), Metric.REMAPPED_ROWS_FAILED));
        assertEquals(1, v(card.get(9), Metric.REMAPPED_ROWS_FAILED), "the failure stays");
        assertEquals(0, v(card.get(9), Metric.REMAPPED_ROWS_PENDING));
        assertEquals(0, v(card.get(9), Metric.REMAPPED_ROWS_UNCORRECTABLE));
        assertEquals(1, v(card.get(9), Metric.ECC_UNCORRECTED_VOLATILE));
    }

    @Test
    void silentNodeIsSilentOnlyInsideItsWindowAndKeepsItsBoot() {
        SimFleet fleet = new SimFleet(scenario("  - {at: 40s, node: node-1, kind: node-silent, for: 45s}\n"), T0);
        String boot = fleet.hello("node-1").bootId();
        assertFalse(fleet.silent("node-1", T0 + 39_999));
        assertTrue(fleet.silent("node-1", T0 + 40_000));
        assertTrue(fleet.silent("node-1", T0 + 84_999));
        assertFalse(fleet.silent("node-1", T0 + 85_000));
        assertFalse(fleet.silent("node-0", T0 + 50_000));
        assertEquals(boot, fleet.hello("node-1").bootId());
        assertEquals(8, fleet.sample("node-1", T0 + 90_000).cards().size());
    }

    @Test
    void sameSeedPlaysOutTheSameAndAnotherSeedDoesNot() {
        Scenario s = file("quiet.yaml");
        Run a = new Run(s, 30);
        Run b = new Run(s, 30);
        assertEquals(a.samples, b.samples);
        assertEquals(a.fleet.hello("gpu-0"), b.fleet.hello("gpu-0"));
        Scenario other = s.with(s.duration(), 8);
        assertNotEquals(a.samples, new Run(other, 30).samples);
    }

    @Test
    void helloDescribesCardsAndAttributesProcesses() {
        SimFleet fleet = new SimFleet(file("demo.yaml"), T0);
        var hello = fleet.hello("gpu-0");
        assertEquals(8, hello.cards().size());
        assertEquals("NVIDIA H100 80GB HBM3", hello.cards().get(0).name());
        assertEquals(8, hello.cards().stream().map(c -> c.uuid()).distinct().count());
        assertTrue(hello.cards().get(0).uuid().matches("GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"));
        assertEquals("r12", hello.labels().get("rack"));
        Sample s = fleet.sample("gpu-0", T0);
        assertTrue(s.cards().get(0).processes().get(0).task().startsWith("train-llama-"));
        assertEquals("team-llm", s.cards().get(0).processes().get(0).owner());
        Set<String> serving = new HashSet<>();
        fleet.sample("gpu-3", T0).cards().forEach(c -> c.processes().forEach(p -> serving.add(p.task())));
        assertTrue(serving.contains("svc-chat-70b"), serving::toString);
    }

    @Test
    void everyFrameOfTheDemoCrossesTheWireUnchanged() {
        Run run = new Run(file("demo.yaml"), 150);
        FrameCodec codec = new FrameCodec();
        List<Frame> frames = new ArrayList<>(run.samples);
        frames.addAll(run.events);
        run.fleet.nodes().forEach(n -> frames.add(run.fleet.hello(n)));
        for (Frame f : frames) {
            Decoded d = codec.decode(codec.encode(f));
            assertEquals(new Decoded.Ok(f, null), d, () -> "frame " + f);
        }
    }

    @Test
    void demoScenarioPlaysOutAsItsCommentsSay() {
        Run run = new Run(file("demo.yaml"), 150);
        Event lost = run.events(e -> "xid".equals(e.kind()) && Integer.valueOf(79).equals(e.xid())).get(0);
        assertEquals(15.0, second(lost.ts()));
        List<Event> burst = run.events(e -> "xid".equals(e.kind()) && !Integer.valueOf(79).equals(e.xid()));
        assertEquals(4, burst.size());
        assertTrue(second(burst.get(3).ts()) - second(burst.get(0).ts()) <= 20);
        Event oom = run.events(e -> e.kind().equals("oom")).get(0);
        assertTrue(second(oom.ts()) >= 55 && second(oom.ts()) <= 65, () -> "OOM at " + second(oom.ts()));
        assertTrue(reasons(run.card("gpu-0", 2).get(40)).contains("HW_THERMAL_SLOWDOWN"));
        assertEquals(0, v(run.card("gpu-3", 7).get(50), Metric.GPU_UTIL));
        // gpu-1 sends nothing from 40 s to 85 s
        assertEquals(151 - 45, run.card("gpu-1", 0).size());
    }
}
