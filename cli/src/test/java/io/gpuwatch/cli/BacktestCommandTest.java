package io.gpuwatch.cli;

import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.codec.FrameCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BacktestCommandTest extends InProcessCommandTest {
    private static final long T = 1_764_700_000_000L;
    private static final FrameCodec CODEC = new FrameCodec();

    @TempDir
    Path dir;

    private static String line(String node, Frame f) {
        return CODEC.encode(f, f instanceof Hello ? null : node);
    }

    private static Hello hello(String node, String uuid, String name) {
        return new Hello(1, node, "b1", "test", null, null, Map.of(),
                List.of(new CardInfo(uuid, 0, name, null, null, null, null, null)));
    }

    private static Sample sample(long seq, long ts, String uuid) {
        return new Sample(seq, ts, List.of(new CardReading(uuid,
                MetricValues.builder().set(Metric.GPU_UTIL, 50).build(), List.of())));
    }

    /**
     * Through the example pack: gpu-a17 reports for 40 s and loses a card to XID 79 at 10.5 s; gpu-b02 stops
     * after 4 s. Line 3 is not a frame.
     */
    private static List<String> trace() {
        List<String> lines = new ArrayList<>();
        lines.add(line("gpu-a17", hello("gpu-a17", "GPU-3f1c", "NVIDIA H100 80GB HBM3")));
        lines.add(line("gpu-b02", hello("gpu-b02", "GPU-9d2e", null)));
        lines.add("{\"type\":\"sample\",\"seq\":1,\"node\":\"gpu-a17\",\"ts\":\"soon\",\"cards\":[]}");
        for (int s = 0; s < 40; s++) {
            lines.add(line("gpu-a17", sample(s + 1, T + s * 1000L, "GPU-3f1c")));
            if (s < 5) {
                lines.add(line("gpu-b02", sample(s + 1, T + s * 1000L, "GPU-9d2e")));
            }
            if (s == 10) {
                lines.add(line("gpu-a17", new Event(100, T + 10_500, "GPU-3f1c", "xid", 79, "fallen off the bus",
                        null)));
            }
        }
        return lines;
    }

    private static final List<String> EXPECTED = List.of(
            "{\"ts\":1764700010500,\"status\":\"firing\",\"rule\":\"xid-fallen-off-bus\",\"severity\":\"page\","
                    + "\"labels\":{\"node\":\"gpu-a17\"},"
                    + "\"summary\":\"GPU 0 of gpu-a17 fell off the bus (XID 79)\"}",
            "{\"ts\":1764700035000,\"status\":\"firing\",\"rule\":\"node-silent\",\"severity\":\"page\","
                    + "\"labels\":{\"node\":\"gpu-b02\"},\"summary\":\"gpu-b02 has sent nothing for 31 s\"}");

    @Test
    void jsonWritesOneLinePerNotificationAndReportsBadLinesWithTheirPlace() throws Exception {
        Path file = dir.resolve("trace.jsonl");
        Files.write(file, trace());
        assertEquals(0, run("rules", "backtest", "--rules", "../examples/rules", "--trace", file.toString(),
                "--format", "json"), err.toString());
        assertEquals(EXPECTED, out.toString().lines().toList());
        String problems = err.toString();
        assertTrue(problems.startsWith(file + ":3: field 'ts' "), problems);
        assertTrue(problems.contains(file + ": warning: 1 line skipped\n"), problems);
    }

    @Test
    void gzippedTracesReadTheSame() throws Exception {
        Path file = dir.resolve("trace.jsonl.gz");
        try (OutputStream gz = new GZIPOutputStream(Files.newOutputStream(file))) {
            gz.write((String.join("\n", trace()) + "\n").getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(0, run("rules", "backtest", "--rules", "../examples/rules", "--trace", file.toString(),
                "--format", "json"), err.toString());
        assertEquals(EXPECTED, out.toString().lines().toList());
    }

    @Test
    void textListsEachAlertWithItsSpanAndTheTotals() throws Exception {
        Path file = dir.resolve("trace.jsonl");
        Files.write(file, trace());
        assertEquals(0, run("rules", "backtest", "--rules", "../examples/rules", "--trace", file.toString()));
        assertEquals("""
                2025-12-02T18:26:50.500Z  page    xid-fallen-off-bus  node=gpu-a17
                    still firing at the end of the trace, after 28.5s; 1 notification
                    GPU 0 of gpu-a17 fell off the bus (XID 79)
                2025-12-02T18:27:15Z  page    node-silent  node=gpu-b02
                    still firing at the end of the trace, after 4s; 1 notification
                    gpu-b02 has sent nothing for 31 s

                rule                alerts  notifications
                node-silent              1              1
                xid-fallen-off-bus       1              1
                2 alerts, 2 notifications over 39s of trace (48 frames, 45 card readings, 1 event)
                """, out.toString());
    }

    @Test
    void aMissingTraceOrBrokenRulesExitOne() throws Exception {
        assertEquals(1, run("rules", "backtest", "--rules", "../examples/rules", "--trace",
                dir.resolve("nope.jsonl").toString()));
        assertEquals(dir.resolve("nope.jsonl") + ": error: cannot read: no such file\n", err.toString());
        err.getBuffer().setLength(0);
        Path rules = dir.resolve("bad.yml");
        Files.writeString(rules, "group: g\nrules:\n  - name: x\n    when: tempc > 1\n    layer: device\n"
                + "    severity: page\n");
        Path file = dir.resolve("trace.jsonl");
        Files.write(file, trace());
        assertEquals(1, run("rules", "backtest", "--rules", rules.toString(), "--trace", file.toString()));
        assertTrue(err.toString().startsWith(rules + ":4:11: error: unknown name `tempc`"), err.toString());
        assertEquals("", out.toString());
    }

    @Test
    void severalTracesAreReplayedSideBySideAndEachIsReportedOnItsOwn() throws Exception {
        Path first = dir.resolve("first.jsonl");
        Path second = dir.resolve("second.jsonl.gz");
        Files.write(first, trace());
        try (OutputStream gz = new GZIPOutputStream(Files.newOutputStream(second))) {
            gz.write((String.join("\n", trace().subList(0, 20)) + "\n").getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(0, run("rules", "backtest", "--rules", "../examples/rules", "--format", "json", "--trace",
                first.toString(), second.toString()), err.toString());
        List<String> lines = out.toString().lines().toList();
        String named = "{\"trace\":\"" + first + "\",";
        assertEquals(EXPECTED.stream().map(l -> named + l.substring(1)).toList(),
                lines.stream().filter(l -> l.startsWith(named)).toList());
        // the shorter trace has the XID but ends before gpu-b02 has been silent for long
        String named2 = "{\"trace\":\"" + second + "\",";
        assertEquals(List.of(named2 + EXPECTED.get(0).substring(1)),
                lines.stream().filter(l -> !l.startsWith(named)).toList());
        String report = err.toString();
        assertTrue(report.contains(first + ": replayed 45 card readings in "), report);
        Matcher left = Pattern.compile(Pattern.quote(first.toString())
                + ": replayed .* \\(([0-9,]+) of ([0-9,]+) rule evaluations left out").matcher(report);
        assertTrue(left.find(), report);
        long slept = Long.parseLong(left.group(1).replace(",", ""));
        long all = Long.parseLong(left.group(2).replace(",", ""));
        // 45 readings of 3 cards and 3 events: some rules sleep, none sleeps before its first evaluation
        assertTrue(slept > 0 && slept < all, report);
        assertTrue(report.contains(second + ": replayed "), report);
        assertTrue(report.contains(" card readings of 2 traces in "), report);

        out.getBuffer().setLength(0);
        assertEquals(0, run("rules", "backtest", "--rules", "../examples/rules", first.toString(),
                second.toString()), err.toString());
        String text = out.toString();
        assertTrue(text.startsWith("== " + first + "\n2025-12-02T18:26:50.500Z  page    xid-fallen-off-bus"), text);
        assertTrue(text.contains("\n== " + second + "\n"), text);
    }

    @Test
    void aBacktestWithoutATraceIsAUsageError() {
        assertEquals(2, run("rules", "backtest", "--rules", "../examples/rules"));
        assertTrue(err.toString().startsWith("Missing required trace"), err.toString());
    }
}
