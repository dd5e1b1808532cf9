package io.gpuwatch.cli;

import io.gpuwatch.gateway.backtest.Backtest;
import io.gpuwatch.gateway.backtest.Episode;
import io.gpuwatch.gateway.backtest.TraceFrame;
import io.gpuwatch.probe.scenario.Scenario;
import io.gpuwatch.probe.scenario.ScenarioLoad;
import io.gpuwatch.probe.scenario.ScenarioLoader;
import io.gpuwatch.probe.sim.SimFleet;
import io.gpuwatch.probe.trace.TraceWriter;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.codec.Decoded;
import io.gpuwatch.protocol.codec.FrameCodec;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The trace reader (lines cut from bytes, samples decoded without Jackson) gives the same frames, the same
 * problems and so the same alerts as the plain reference: {@link BufferedReader#readLine()} and
 * {@link FrameCodec#decode(String)}, over the demo's incidents of every kind.
 */
class TraceLinesTest {
    private static final long T0 = 1_764_700_000_000L;
    private static final String[] ENDS = {"\n", "\r\n", "\r"};

    @TempDir
    Path dir;

    @Test
    void framesProblemsAndAlertsAreThoseOfThePlainReader() throws Exception {
        byte[] text = demoTrace(600);
        Path plain = dir.resolve("demo.jsonl");
        Files.write(plain, text);
        Path gz = dir.resolve("demo.jsonl.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
            out.write(text);
        }
        List<String> refProblems = new ArrayList<>();
        List<TraceFrame> reference = reference(plain, refProblems);
        assertEquals(1, refProblems.size(), refProblems.toString());
        RuleLoad rules = RuleSet.load(List.of(Path.of("../examples/rules")));
        assertTrue(rules.ok(), rules.diagnostics().toString());
        List<Episode> expected = Backtest.run(rules.ruleSet(), reference, s -> { }, (f, v) -> { }).alerts();
        Set<String> fired = new TreeSet<>();
        expected.forEach(e -> fired.add(e.rule()));
        assertTrue(fired.size() >= 5, "the demo's incidents fire several rules: " + fired);

        for (Path file : List.of(plain, gz)) {
            List<String> problems = new ArrayList<>();
            List<TraceFrame> frames = new ArrayList<>();
            try (TraceLines lines = new TraceLines(file, problems::add)) {
                lines.forEach(frames::add);
            }
            assertEquals(reference, frames, file.toString());
            assertEquals(refProblems.stream().map(p -> p.replace(plain.toString(), file.toString())).toList(),
                    problems);
            assertEquals(expected, Backtest.run(rules.ruleSet(), frames, s -> { }, (f, v) -> { }).alerts());
        }
    }

    @Test
    void aBinaryTraceGivesTheFramesAndAlertsOfItsJsonTrace() throws Exception {
        Path plain = dir.resolve("demo.jsonl");
        Files.write(plain, demoTrace(600));
        List<TraceFrame> reference = reference(plain, new ArrayList<>());
        RuleLoad rules = RuleSet.load(List.of(Path.of("../examples/rules")));
        List<Episode> expected = Backtest.run(rules.ruleSet(), reference, s -> { }, (f, v) -> { }).alerts();
        for (String name : List.of("demo.gwt", "demo.gwt.gz")) {
            Path file = dir.resolve(name);
            try (TraceWriter w = TraceWriter.open(file, Integer.MAX_VALUE)) {
                for (TraceFrame f : reference) {
                    assertTrue(w.write(f.frame(), f.frame() instanceof Hello ? null : f.node()));
                }
            }
            List<String> problems = new ArrayList<>();
            List<TraceFrame> frames = new ArrayList<>();
            try (TraceLines lines = new TraceLines(file, problems::add)) {
                lines.forEach(frames::add);
            }
            assertEquals(List.of(), problems, name);
            assertEquals(reference, frames, name);
            assertEquals(expected, Backtest.run(rules.ruleSet(), frames, s -> { }, (f, v) -> { }).alerts(), name);
            assertTrue(Files.size(file) < Files.size(plain) / 3, name + " is smaller than the JSON");
        }
    }

    @Test
    void aBinaryTraceCutShortReportsWhereAndKeepsWhatCameBefore() throws Exception {
        Path plain = dir.resolve("demo.jsonl");
        Files.write(plain, demoTrace(60));
        List<TraceFrame> reference = reference(plain, new ArrayList<>());
        Path file = dir.resolve("cut.gwt");
        try (TraceWriter w = TraceWriter.open(file, Integer.MAX_VALUE)) {
            for (TraceFrame f : reference) {
                w.write(f.frame(), f.frame() instanceof Hello ? null : f.node());
            }
        }
        byte[] whole = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(whole, whole.length - 10));
        List<String> problems = new ArrayList<>();
        List<TraceFrame> frames = new ArrayList<>();
        try (TraceLines lines = new TraceLines(file, problems::add)) {
            lines.forEach(frames::add);
        }
        assertEquals(reference.subList(0, reference.size() - 1), frames);
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).matches(Pattern.quote(file.toString())
                + ": byte \\d+: the file ends inside a record .*"), problems.get(0));
    }

    /** The demo fleet's frames, lines ended by LF, CR LF and CR in turn, with a blank, a bad and a non-ASCII line. */
    private static byte[] demoTrace(int seconds) throws Exception {
        ScenarioLoad load = ScenarioLoader.load(Path.of("../examples/scenarios/demo.yaml"));
        Scenario demo = ((ScenarioLoad.Loaded) load).scenario();
        SimFleet sim = new SimFleet(demo, T0);
        FrameCodec codec = new FrameCodec();
        List<String> lines = new ArrayList<>();
        for (String node : sim.nodes()) {
            lines.add(codec.encode(sim.hello(node)));
        }
        for (long s = 0; s < seconds; s++) {
            long at = T0 + s * 1000;
            for (String node : sim.nodes()) {
                if (sim.silent(node, at)) {
                    continue;
                }
                for (Event e : sim.eventsDue(node, at)) {
                    lines.add(codec.encode(e, node));
                }
                Frame sample = sim.sample(node, at);
                String line = codec.encode(sample, node);
                lines.add(s % 97 == 5 ? line.replace("\"uuid\"", "\"uuid\" ") : line);
            }
            if (s == 30) {
                lines.add("   ");
                lines.add("{\"type\":\"sample\",\"seq\":1,\"node\":\"gpu-0\",\"ts\":0,\"cards\":[]}");
                lines.add("{\"type\":\"event\",\"seq\":1,\"node\":\"gpu-0\",\"ts\":" + at
                        + ",\"kind\":\"probe_degraded\",\"text\":\"capteur défaillant\"}");
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < lines.size(); i++) {
            out.write((lines.get(i) + ENDS[i % ENDS.length]).getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }

    private static List<TraceFrame> reference(Path file, List<String> problems) throws Exception {
        FrameCodec codec = new FrameCodec();
        List<TraceFrame> frames = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            long n = 0;
            for (String line; (line = r.readLine()) != null; ) {
                n++;
                if (line.isBlank()) {
                    continue;
                }
                Decoded d = codec.decode(line);
                if (d instanceof Decoded.Bad bad) {
                    problems.add(file + ":" + n + ": " + bad.message());
                } else if (d instanceof Decoded.Ok ok) {
                    frames.add(new TraceFrame(ok.frame() instanceof Hello h ? h.node() : ok.node(), ok.frame()));
                }
            }
        }
        return frames;
    }
}
