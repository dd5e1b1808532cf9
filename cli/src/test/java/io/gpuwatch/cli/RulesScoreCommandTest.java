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
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code rules score} end to end: a trace and its labels written here, scored through the command line. */
class RulesScoreCommandTest extends InProcessCommandTest {
    private static final long T = 1_764_950_400_000L;
    private static final FrameCodec CODEC = new FrameCodec();
    private static final String RULES = """
            group: score-test
            layer: device
            scope: card
            severity: page
            rules:
              - name: bus
                when: count(events('xid', 79), 2m) > 0
                summary: "@{card.uuid} fell off the bus"
                labels:
                  action: reset-gpu
              - name: hot
                severity: notice
                when: tempC > 85
                summary: "@{card.uuid} is hot"
            """;

    /**
     * gpu-1 (cards GPU-a, GPU-b) and gpu-2 (GPU-c) report every second for a minute; GPU-a loses the bus at
     * 10.5 s and GPU-c runs hot from 20 s to 25 s.
     */
    private static List<String> trace() {
        List<String> lines = new ArrayList<>();
        lines.add(CODEC.encode(hello("gpu-1", "GPU-a", "GPU-b"), null));
        lines.add(CODEC.encode(hello("gpu-2", "GPU-c"), null));
        for (int s = 0; s < 60; s++) {
            long ts = T + s * 1000L;
            lines.add(CODEC.encode(sample(s + 1, ts, Map.of("GPU-a", 60.0, "GPU-b", 60.0)), "gpu-1"));
            lines.add(CODEC.encode(sample(s + 1, ts, Map.of("GPU-c", s >= 20 && s < 25 ? 90.0 : 60.0)), "gpu-2"));
            if (s == 10) {
                lines.add(CODEC.encode(new Event(100, ts + 500, "GPU-a", "xid", 79, "fallen off the bus", null),
                        "gpu-1"));
            }
        }
        return lines;
    }

    private static Hello hello(String node, String... uuids) {
        List<CardInfo> cards = new ArrayList<>();
        for (int i = 0; i < uuids.length; i++) {
            cards.add(new CardInfo(uuids[i], i, "H100", null, null, null, null, null));
        }
        return new Hello(1, node, "b1", "test", null, null, Map.of(), cards);
    }

    private static Frame sample(long seq, long ts, Map<String, Double> tempByCard) {
        List<CardReading> cards = new ArrayList<>();
        tempByCard.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> cards.add(new CardReading(
                e.getKey(), MetricValues.builder().set(Metric.GPU_UTIL, 50).set(Metric.TEMP_C, e.getValue()).build(),
                List.of())));
        return new Sample(seq, ts, cards);
    }

    /** The bus loss (caught), a slow card nothing watches (missed), the hot card that must stay silent. */
    private static String labels(String trace) {
        return """
                trace: %s
                scenario: score-test
                start: %d
                items:
                  - {id: bus, class: hard, kind: xid-79, scope: card, node: gpu-1, card: GPU-a, at: 10000,
                     until: 70000, within: 30000, severity: page}
                  - {id: slow, class: composite, kind: slow-card, node: gpu-1, card: GPU-b, at: 0, until: 60000,
                     within: 60000, severity: notice}
                  - {id: warm, class: lookalike, kind: hot-card, node: gpu-2, card: GPU-c, at: 19000, until: 40000,
                     must: not-notify}
                """.formatted(trace, T);
    }

    @TempDir
    Path dir;

    private Path rules;

    @BeforeEach
    void write() throws Exception {
        rules = dir.resolve("rules.yml");
        Files.writeString(rules, RULES);
    }

    private Path traceWithLabelsBeside(String name) throws Exception {
        Path trace = dir.resolve(name + ".trace.jsonl");
        Files.write(trace, trace());
        Files.writeString(dir.resolve(name + ".labels.yaml"), labels(trace.getFileName().toString()));
        return trace;
    }

    @Test
    void scoresATraceAgainstTheLabelsBesideIt() throws Exception {
        Path trace = traceWithLabelsBeside("day");
        assertEquals(0, run("rules", "score", "--rules", rules.toString(), trace.toString()), err.toString());
        assertEquals("""
                hard faults caught on time: 1 of 1 (100 %)
                composite incidents caught on time: 0 of 1 (0 %)
                severity right: 1 of 1 (100 %) detected
                notification precision: 1 of 2 (50 %)
                page precision: 1 of 1 (100 %)
                pages per paged incident: 1.00 (1 page, 1 paged incident)
                look-alikes paged: 0 of 1 (0 %)
                look-alikes notified: 1 of 1 (100 %) must-not-notify
                detection delay: median 0.5s max 0.5s

                trace day.trace.jsonl: on time 1 of 2 incidents, loud 1 of 1 look-alike, true 1 of 2 notifications

                id    kind       class      expected      got     action     delay  notifications  verdict
                bus   xid-79     hard       page in 30s   page    reset-gpu  0.5s               1  ok
                slow  slow-card  composite  notice in 1m  -       -          -                  0  missed
                warm  hot-card   lookalike  not-notify    notice  -          1s                 1  notified

                rule  notifications  true  false  precision
                bus               1     1      0      100 %
                hot               1     0      1        0 %
                """, out.toString());
    }

    @Test
    void jsonPoolsSeveralTracesMatchedToTheirLabelsByName() throws Exception {
        Path a = traceWithLabelsBeside("a");
        Path b = traceWithLabelsBeside("b");
        assertEquals(0, run("rules", "score", "--rules", rules.toString(), "--format", "json",
                "--labels", dir.resolve("b.labels.yaml").toString(),
                "--labels", dir.resolve("a.labels.yaml").toString(), a.toString(), b.toString()), err.toString());
        JsonObject json = new JsonObject(out.toString());
        JsonObject summary = json.getJsonObject("summary");
        assertEquals(new JsonObject().put("part", 2).put("whole", 2).put("value", 1.0),
                summary.getJsonObject("hardOnTime"));
        assertEquals(0.5, summary.getJsonObject("notificationPrecision").getDouble("value"));
        assertEquals(500L, summary.getLong("delayMaxMs"));
        JsonArray traces = json.getJsonArray("traces");
        assertEquals(List.of("a.trace.jsonl", "b.trace.jsonl"),
                List.of(traces.getJsonObject(0).getString("trace"), traces.getJsonObject(1).getString("trace")));
        JsonArray items = json.getJsonArray("items");
        assertEquals(6, items.size());
        assertEquals("reset-gpu", items.getJsonObject(0).getString("action"));
        assertEquals("notified", items.getJsonObject(5).getString("verdict"));
        assertEquals(new JsonObject().put("rule", "hot").put("notifications", 2).put("true", 0).put("false", 2)
                .put("precision", 0.0), json.getJsonArray("rules").getJsonObject(1));
    }

    @Test
    void missingOrBrokenLabelsExitOneAndSayWhere() throws Exception {
        Path trace = dir.resolve("lone.jsonl.gz");
        Files.write(trace, new byte[0]);
        assertEquals(1, run("rules", "score", "--rules", rules.toString(), trace.toString()));
        assertEquals(dir.resolve("lone.labels.yaml") + ": error: cannot read: no such file\n", err.toString());
        err.getBuffer().setLength(0);
        Path bad = dir.resolve("bad.labels.yaml");
        Files.writeString(bad,
                "start: 0\nitems:\n  - {id: x, class: hard, node: n, at: 0, within: 1, severity: pge}\n");
        assertEquals(1, run("rules", "score", "--rules", rules.toString(), "--labels", bad.toString(),
                trace.toString()));
        assertTrue(err.toString().startsWith(bad + ":3:63: error: unknown value `pge`"), err.toString());
    }
}
