package io.gpuwatch.gateway.backtest;

import io.gpuwatch.gateway.replay.Replay;
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

class BacktestTest {
    private static final long T = 1_764_700_000_000L;

    private static final RuleSet RULES = rules();

    private static RuleSet rules() {
        RuleLoad load = RuleSet.parse("r.yml", """
                group: t
                layer: device
                severity: page
                rules:
                  - name: xid-79
                    when: count(events('xid', 79), 10s) > 0
                    summary: "@{node}/@{card.uuid} XID 79"
                  - name: node-silent
                    scope: node
                    when: silentFor > 5s
                    summary: "@{node} silent"
                """);
        assertTrue(load.ok(), load.diagnostics().toString());
        return load.ruleSet();
    }

    private static Hello hello(String node, String uuid) {
        return new Hello(1, node, "b1", "test", null, null, Map.of(),
                List.of(new CardInfo(uuid, 0, null, null, null, null, null, null)));
    }

    private static Sample sample(long seq, long ts, String uuid, ProcessInfo... p) {
        return new Sample(seq, ts, List.of(new CardReading(uuid,
                MetricValues.builder().set(Metric.GPU_UTIL, 90).build(), List.of(p))));
    }

    /**
     * Two nodes: gpu-a reports for 20 s and has an XID 79 at 3.5 s on a card running a task; gpu-b, whose
     * clock runs 5 ms behind, stops after 8 s. The hellos come first, without time stamps.
     */
    private static List<TraceFrame> trace() {
        List<TraceFrame> t = new ArrayList<>();
        t.add(new TraceFrame("gpu-a", hello("gpu-a", "GPU-1")));
        t.add(new TraceFrame("gpu-b", hello("gpu-b", "GPU-2")));
        ProcessInfo task = new ProcessInfo(7, null, "train", "ann", "ads");
        for (int s = 0; s < 20; s++) {
            t.add(new TraceFrame("gpu-a", sample(s + 1, T + s * 1000L, "GPU-1", task)));
            if (s < 9) {
                t.add(new TraceFrame("gpu-b", sample(s + 1, T + s * 1000L - 5, "GPU-2")));
            }
            if (s == 3) {
                t.add(new TraceFrame("gpu-a", new Event(100, T + 3_500, "GPU-1", "xid", 79, "fallen off", null)));
            }
        }
        return t;
    }

    @Test
    void everyNotificationBecomesOneJsonLine() {
        List<String> lines = new ArrayList<>();
        Backtest.run(RULES, trace(), s -> lines.add(JsonLines.line(s)), (f, v) -> { });
        String labels = "{\"node\":\"gpu-a\",\"uuid\":\"GPU-1\","
                + "\"task\":\"train\",\"owner\":\"ann\",\"business\":\"ads\"}";
        assertEquals(List.of(
                "{\"ts\":1764700003500,\"status\":\"firing\",\"rule\":\"xid-79\",\"severity\":\"page\",\"labels\":"
                        + labels + ",\"summary\":\"gpu-a/GPU-1 XID 79\"}",
                "{\"ts\":1764700014000,\"status\":\"resolved\",\"rule\":\"xid-79\",\"severity\":\"page\",\"labels\":"
                        + labels + ",\"summary\":\"gpu-a/GPU-1 XID 79\"}",
                "{\"ts\":1764700014000,\"status\":\"firing\",\"rule\":\"node-silent\",\"severity\":\"page\","
                        + "\"labels\":{\"node\":\"gpu-b\"},\"summary\":\"gpu-b silent\"}"), lines);
    }

    @Test
    void alertsCarryTheirSpanAndNotificationCount() {
        Backtest.Result r = Backtest.run(RULES, trace(), s -> { }, (f, v) -> { });
        Map<String, String> a = Map.of("node", "gpu-a", "uuid", "GPU-1", "task", "train", "owner", "ann",
                "business", "ads");
        assertEquals(List.of(
                new Episode("xid-79", "page", a, "gpu-a/GPU-1 XID 79", T + 3_500, T + 14_000, false, 2),
                new Episode("node-silent", "page", Map.of("node", "gpu-b"), "gpu-b silent", T + 14_000, T + 19_000,
                        true, 1)), r.alerts());
        assertEquals(3, r.sent().size());
        assertEquals(32, r.stats().frames());
        assertEquals(29, r.stats().cardReadings());
        assertEquals(10, r.stats().clamped(), "gpu-b's hello and 9 samples arrive stamped behind the clock");
        assertEquals(List.of(), r.runtimeErrors());
    }

    @Test
    void theTextReportListsAlertsAndATablePerRule() {
        Backtest.Result r = Backtest.run(RULES, trace(), s -> { }, (f, v) -> { });
        assertEquals("""
                2025-12-02T18:26:43.500Z  page    xid-79  node=gpu-a uuid=GPU-1 task=train owner=ann business=ads
                    fired for 10.5s, resolved 2025-12-02T18:26:54Z; 2 notifications
                    gpu-a/GPU-1 XID 79
                2025-12-02T18:26:54Z  page    node-silent  node=gpu-b
                    still firing at the end of the trace, after 5s; 1 notification
                    gpu-b silent

                rule         alerts  notifications
                node-silent       1              1
                xid-79            1              2
                2 alerts, 3 notifications over 19s of trace (32 frames, 29 card readings, 1 event)
                """, TextReport.render(r));
    }

    @Test
    void progressIsReportedAtTheEndWithTheVirtualTimeReached() {
        List<long[]> seen = new ArrayList<>();
        Backtest.run(RULES, trace(), s -> { }, (frames, virtualMs) -> seen.add(new long[]{frames, virtualMs}));
        assertEquals(1, seen.size(), "fewer frames than one progress step");
        assertEquals(32, seen.get(0)[0]);
        assertEquals(T + 19_000, seen.get(0)[1]);
    }

    @Test
    void aHelloArrivesWithItsNodesFirstStampedFrame() {
        List<TraceFrame> t = new ArrayList<>();
        t.add(new TraceFrame("gpu-a", hello("gpu-a", "GPU-1")));
        t.add(new TraceFrame("gpu-a", sample(1, T, "GPU-1")));
        // gpu-b's hello is recorded early but its first frame comes 60 s later: it was not silent before that
        t.add(new TraceFrame("gpu-b", hello("gpu-b", "GPU-2")));
        t.add(new TraceFrame("gpu-a", sample(2, T + 60_000, "GPU-1")));
        t.add(new TraceFrame("gpu-b", sample(1, T + 60_000, "GPU-2")));
        t.add(new TraceFrame("gpu-a", sample(3, T + 61_000, "GPU-1")));
        t.add(new TraceFrame("gpu-b", sample(2, T + 61_000, "GPU-2")));
        Backtest.Result r = Backtest.run(RULES, t, s -> { }, (f, v) -> { });
        List<String> silent = r.sent().stream().filter(s -> s.rule().equals("node-silent"))
                .map(s -> s.scope().get("node") + " " + (s.firing() ? "firing" : "resolved") + " +" + (s.at() - T))
                .toList();
        assertEquals(List.of("gpu-a firing +6000", "gpu-a resolved +60000"), silent);
        assertEquals(List.of(), r.sent().stream().map(Replay.Sent::rule).filter(n -> !n.equals("node-silent"))
                .toList());
    }
}
