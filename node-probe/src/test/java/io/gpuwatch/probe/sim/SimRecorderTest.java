package io.gpuwatch.probe.sim;

import io.gpuwatch.probe.scenario.Scenario;
import io.gpuwatch.probe.scenario.ScenarioLoad;
import io.gpuwatch.probe.scenario.ScenarioLoader;
import io.gpuwatch.probe.trace.TraceWriter;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.protocol.codec.Decoded;
import io.gpuwatch.protocol.codec.FrameCodec;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SimRecorderTest {
    private static final String SCENARIO = """
            name: rec
            nodes: 4
            cardsPerNode: 2
            nodePrefix: gpu-
            duration: 3m
            seed: 3
            incidents:
              - {at: 30s, node: gpu-2, kind: probe-disconnect, for: 20s, expect: {id: disc, class: lookalike, must: not-page}}
              - {at: 60s, node: gpu-1, kind: node-reboot, down: 30s}
              - {at: 90s, node: gpu-0, card: 1, kind: xid, code: 79, expect: {id: x79, class: hard, severity: page, within: 30s}}
              - {at: 20s, queue: training, kind: sched-burst, for: 1m, expect: {id: burst, class: lookalike, must: not-notify}}
            """;

    private static Scenario scenario(String yaml) {
        ScenarioLoad load = ScenarioLoader.parse("rec.yaml", yaml);
        return assertInstanceOf(ScenarioLoad.Loaded.class, load, load::toString).scenario();
    }

    /** A recorded run: its lines decoded, each with its producer, in file order. */
    private record Recorded(List<Frame> frames, List<String> nodes, List<SimRecorder.Label> labels) {
    }

    private static Recorded record(Scenario s) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TraceWriter writer = new TraceWriter(bytes, false, "rec.jsonl", TraceWriter.DEFAULT_CAPACITY);
        List<SimRecorder.Label> labels = new SimRecorder(new SimFleet(s, s.startMs()), writer).run();
        writer.close();
        FrameCodec codec = new FrameCodec();
        List<Frame> frames = new ArrayList<>();
        List<String> nodes = new ArrayList<>();
        for (String line : bytes.toString(StandardCharsets.UTF_8).split("\n")) {
            Decoded.Ok ok = assertInstanceOf(Decoded.Ok.class, codec.decode(line), line);
            frames.add(ok.frame());
            nodes.add(ok.frame() instanceof Hello h ? h.node() : ok.node());
        }
        return new Recorded(frames, nodes, labels);
    }

    private static List<Long> sampleTimes(Recorded r, String node) {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < r.frames().size(); i++) {
            if (r.nodes().get(i).equals(node) && r.frames().get(i) instanceof Sample s) {
                out.add(s.ts() - scenario(SCENARIO).startMs());
            }
        }
        return out;
    }

    @Test
    void recordsTheWholeRunInVirtualTimeInTheOrderAGatewayReceivesIt() throws Exception {
        Recorded r = record(scenario(SCENARIO));
        assertEquals(180, sampleTimes(r, "gpu-0").size());
        assertEquals(Scenario.DEFAULT_START_MS, ((Sample) r.frames().stream().filter(f -> f instanceof Sample)
                .findFirst().orElseThrow()).ts());

        // a disconnected probe loses nothing: its samples arrive late (see below)
        assertEquals(180, sampleTimes(r, "gpu-2").size());

        // the rebooting node is a gap, then a second hello with another boot
        List<Long> gpu1 = sampleTimes(r, "gpu-1");
        assertEquals(150, gpu1.size());
        assertTrue(gpu1.stream().noneMatch(t -> t >= 60_000 && t < 90_000));
        List<Hello> hellos = r.frames().stream().filter(f -> f instanceof Hello h && h.node().equals("gpu-1"))
                .map(f -> (Hello) f).toList();
        assertEquals(2, hellos.size());
        assertNotEquals(hellos.get(0).bootId(), hellos.get(1).bootId());

        assertEquals(2 * 180, r.frames().stream().filter(f -> f instanceof Sched).count());
        assertTrue(r.frames().stream().anyMatch(f -> f instanceof App a && a.task().equals("svc-chat-70b")));
    }

    @Test
    void aReplayedBurstArrivesLateWithItsOwnTimes() throws Exception {
        Recorded r = record(scenario(SCENARIO));
        List<Long> gpu2 = new ArrayList<>();
        List<Integer> positions = new ArrayList<>();
        for (int i = 0; i < r.frames().size(); i++) {
            if (r.nodes().get(i).equals("gpu-2") && r.frames().get(i) instanceof Sample s) {
                gpu2.add(s.ts() - Scenario.DEFAULT_START_MS);
                positions.add(i);
            }
        }
        int first = gpu2.indexOf(30_000L);
        int resume = gpu2.indexOf(50_000L);
        // the buffered samples sit right before the first live one, behind gpu-0's samples of 50 s
        int gpu0At50 = -1;
        for (int i = 0; i < r.frames().size(); i++) {
            if (r.nodes().get(i).equals("gpu-0") && r.frames().get(i) instanceof Sample s
                    && s.ts() == Scenario.DEFAULT_START_MS + 50_000) {
                gpu0At50 = i;
            }
        }
        assertEquals(20, resume - first);
        assertTrue(positions.get(first) > gpu0At50, "sampled at 30 s, received at 50 s");
    }

    @Test
    void labelsCarryTheCardsUuidAndTheTaskOnItAsTheIncidentBegins() throws Exception {
        Scenario s = scenario(SCENARIO);
        Recorded r = record(s);
        assertEquals(List.of("disc", "x79", "burst"), r.labels().stream().map(l -> l.expectation().id()).toList());
        SimFleet fleet = new SimFleet(s, s.startMs());
        SimRecorder.Label x79 = r.labels().get(1);
        assertEquals(fleet.uuid("gpu-0", 1), x79.uuid());
        assertTrue(x79.task().startsWith("train-llama-"), x79.task());
        assertEquals("chat-pretrain", x79.business());
        SimRecorder.Label burst = r.labels().get(2);
        assertEquals(null, burst.task());

        String text = LabelsFile.text("rec.trace.gz", s.name(), s.startMs(), r.labels());
        Map<?, ?> doc = (Map<?, ?>) new Load(LoadSettings.builder().build()).loadFromString(text);
        assertEquals("rec.trace.gz", doc.get("trace"));
        assertEquals(Scenario.DEFAULT_START_MS, ((Number) doc.get("start")).longValue());
        List<?> items = (List<?>) doc.get("items");
        Map<?, ?> item = (Map<?, ?>) items.get(1);
        assertEquals("xid-79", item.get("kind"));
        assertEquals("card", item.get("scope"));
        assertEquals(x79.uuid(), item.get("card"));
        assertEquals(90_000, ((Number) item.get("at")).intValue());
        assertEquals(120_000, ((Number) item.get("until")).intValue());
        assertEquals(30_000, ((Number) item.get("within")).intValue());
        assertEquals("page", item.get("severity"));
        Map<?, ?> queue = (Map<?, ?>) items.get(2);
        assertEquals("training", queue.get("queue"));
        assertEquals("not-notify", queue.get("must"));
        assertTrue(!queue.containsKey("node") && !queue.containsKey("severity"), "nulls are left out: " + queue);
    }

    @Test
    void anIdleHoldersLabelNamesTheHolderNotTheTaskItReplaced() throws Exception {
        Scenario s = scenario("""
                name: rec
                nodes: 1
                cardsPerNode: 2
                nodePrefix: gpu-
                duration: 2m
                seed: 3
                incidents:
                  - {at: 30s, node: gpu-0, card: 1, kind: idle-allocated, for: 1m,
                     expect: {id: idle, class: composite, severity: inspect, within: 1h}}
                  - {at: 40s, node: gpu-0, card: 0, kind: xid, code: 79, expect: {id: x79, class: hard, severity: page, within: 30s}}
                """);
        assertTrue(s.expectations().get(0).holderAfter());
        assertTrue(!s.expectations().get(1).holderAfter(), "an XID hits the task that runs on the card");
        Recorded r = record(s);
        SimRecorder.Label idle = r.labels().get(0);
        SimRecorder.Label x79 = r.labels().get(1);
        // the job that ran on the card exits at 30 s and an idle holder takes the card: the holder must act
        List<String> started = r.frames().stream().filter(f -> f instanceof Event e && e.kind().equals("process_start")
                && idle.uuid().equals(e.uuid())).map(f -> ((Event) f).text()).toList();
        // the first start on the card is the holder's (a job takes the card again after it)
        assertTrue(!started.isEmpty() && started.get(0).contains("(" + idle.task() + ")"),
                idle.task() + " in " + started);
        assertTrue(x79.task().startsWith("train-llama-"), x79.task());
        assertNotEquals(x79.task(), idle.task());
    }

    @Test
    void labelsGoBesideTheTraceUnderItsBareName() {
        assertEquals(Path.of("c/day.labels.yaml"), LabelsFile.beside(Path.of("c/day.trace.gz")));
        assertEquals(Path.of("day.labels.yaml"), LabelsFile.beside(Path.of("day.jsonl.gz")));
        assertEquals(Path.of("day.labels.yaml"), LabelsFile.beside(Path.of("day.jsonl")));
        assertEquals(Path.of("day.labels.yaml"), LabelsFile.beside(Path.of("day.gwt")));
    }

    @Test
    void anEndlessScenarioCannotBeRecordedOffline() throws Exception {
        Scenario endless = scenario(SCENARIO).with(null, 3);
        try (TraceWriter writer = new TraceWriter(new ByteArrayOutputStream(), false, "x", 10)) {
            assertThrows(IllegalArgumentException.class, () -> new SimRecorder(new SimFleet(endless, 0), writer));
        }
    }
}
