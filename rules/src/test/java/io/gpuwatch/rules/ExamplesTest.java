package io.gpuwatch.rules;

import io.gpuwatch.protocol.ClockEventReason;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.eval.AlertState;
import io.gpuwatch.rules.eval.RuleEngine;
import io.gpuwatch.rules.eval.Transition;
import io.gpuwatch.rules.scope.FakeScope;
import io.gpuwatch.rules.scope.ScopeKind;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The demo's rule pack loads clean, stays quiet on a healthy card, and fires within 90 s of each incident
 * the demo stages (samples every second, as the probe sends them).
 */
class ExamplesTest {
    private static final long T0 = 1_764_700_000_000L;
    private static RuleSet pack;

    private final List<Transition> out = new ArrayList<>();

    @BeforeAll
    static void load() {
        RuleLoad load = RuleSet.load(List.of(Path.of("../examples/rules")));
        assertEquals(List.of(), load.diagnostics());
        pack = load.ruleSet();
    }

    private static Map<Metric, Double> healthy(long second) {
        Map<Metric, Double> v = new HashMap<>();
        v.put(Metric.GPU_UTIL, 45.0 + (second % 7));
        v.put(Metric.MEM_USED_BYTES, 30e9 + (second % 5) * 1e6);
        v.put(Metric.TEMP_C, 62.0);
        v.put(Metric.SM_CLOCK_MHZ, 1755.0);
        v.put(Metric.CLOCK_EVENT_REASONS, (double) ClockEventReason.SW_POWER_CAP.bit());
        return v;
    }

    private FakeScope card() {
        return FakeScope.card(pack, "gpu-node-1", "GPU-1").label("card.name", "NVIDIA H100 80GB HBM3")
                .label("card.index", "3").label("task", "train-llama").label("owner", "team-llm")
                .label("business", "chat-pretrain");
    }

    private void eval(RuleEngine engine, FakeScope card, FakeScope node) {
        engine.evaluate(ScopeKind.CARD, "card/gpu-node-1/GPU-1", card, out::add);
        if (node != null) {
            engine.evaluate(ScopeKind.NODE, "node/gpu-node-1", node.at(card.now()), out::add);
        }
    }

    private Transition firing(String rule) {
        return out.stream().filter(t -> t.to() == AlertState.FIRING && t.rule().name().equals(rule)).findFirst()
                .orElseThrow(() -> new AssertionError(rule + " did not fire: " + out));
    }

    @Test
    void everyFileLoadsCleanlyInPathOrder() {
        List<String> files = pack.rules().stream().map(r -> Path.of(r.file()).getFileName().toString()).toList();
        assertEquals(files.stream().sorted().toList(), files, "files load in path order, rules in file order");
        assertEquals(List.of("application-health.yml", "application-tasks.yml", "business-baselines.yml", "business-inspection.yml",
                "business-tasks.yml", "device-hard-faults.yml", "device-trends.yml", "node-health.yml",
                "scheduling-queues.yml", "task-compute.yml", "task-peers.yml"), files.stream().distinct().toList());
        assertEquals(pack.rules().size(), pack.rules().stream().map(Rule::name).distinct().count(),
                "rule names are unique across the pack");
        assertEquals("xid-fallen-off-bus", pack.rules().stream().filter(r -> r.file().endsWith("device-hard-faults.yml"))
                .findFirst().orElseThrow().name());
        assertEquals(List.of("node-idle", "xid-fallen-off-bus", "xid-reboot-required", "xid-reset-gpu",
                        "ecc-uncorrectable", "nvlink-link-down", "hw-slowdown", "hw-power-brake", "node-xid-burst",
                        "thermal-throttling-under-load", "node-silent", "straggler-rank", "slow-node"),
                pack.rules(ScopeKind.NODE).stream().map(Rule::name).toList(),
                "hard faults are node alerts, one per fault and action, naming their cards; so are a node's "
                        + "throttled cards and a node compared with its peers");
        assertTrue(pack.horizonMs() <= 90 * 60_000L, "the pack keeps at most 90 minutes of history, not "
                + pack.horizonMs() / 60_000 + " minutes");
    }

    @Test
    void quietAndBusyHealthyCardsNeverMatch() {
        RuleEngine engine = new RuleEngine(pack);
        FakeScope idle = card();
        FakeScope busy = FakeScope.card(pack, "gpu-node-1", "GPU-2").allocated(true);
        FakeScope node = FakeScope.node(pack, "gpu-node-1");
        for (long s = 0; s < 15 * 60; s++) {
            long t = T0 + s * 1000;
            Map<Metric, Double> quiet = healthy(s);
            quiet.put(Metric.GPU_UTIL, 0.0);
            quiet.put(Metric.CLOCK_EVENT_REASONS, (double) ClockEventReason.GPU_IDLE.bit());
            idle.sample(t, quiet);
            busy.sample(t, healthy(s));
            node.heard(t);
            eval(engine, idle, node);
            engine.evaluate(ScopeKind.CARD, "card/gpu-node-1/GPU-2", busy, out::add);
        }
        assertEquals(List.of(), out);
        assertEquals(List.of(), engine.runtimeErrors());
    }

    /** Healthy for a minute, then {@code incident} changes the readings; returns seconds from incident to fire. */
    private long secondsToFire(String rule, FakeScope card, FakeScope node,
                               java.util.function.BiConsumer<Long, Map<Metric, Double>> incident) {
        RuleEngine engine = new RuleEngine(pack);
        for (long s = 0; s < 60 + 180; s++) {
            Map<Metric, Double> v = healthy(s);
            if (s >= 60) {
                incident.accept(s - 60, v);
            } else if (node != null) {
                node.heard(T0 + s * 1000);
            }
            card.sample(T0 + s * 1000, v);
            eval(engine, card, node);
            if (out.stream().anyMatch(t -> t.to() == AlertState.FIRING && t.rule().name().equals(rule))) {
                return s - 60;
            }
        }
        throw new AssertionError(rule + " never fired: " + out);
    }

    @Test
    void xidSeventyNinePagesAtOnceForTheNodeNamingTheCard() {
        FakeScope card = card();
        FakeScope node = FakeScope.node(pack, "gpu-node-1").members(List.of(card));
        long s = secondsToFire("xid-fallen-off-bus", card, node, (i, v) -> {
            node.heard(T0 + (60 + i) * 1000);
            if (i == 0) {
                card.event(T0 + 60_000, "xid", 79);
                node.event(T0 + 60_000, "xid", 79);
            }
        });
        assertEquals(0, s);
        Transition t = firing("xid-fallen-off-bus");
        assertEquals("GPU 3 of gpu-node-1 fell off the bus (XID 79)", t.summary());
        assertEquals("page", t.labels().get("severity"));
        assertEquals("reboot-node", t.labels().get("action"));
        assertEquals(null, t.labels().get("uuid"), "a node alert");
    }

    @Test
    void threeXidsOverTwoCardsOfANodePageWithTheirCodes() {
        FakeScope card = card();
        FakeScope other = FakeScope.card(pack, "gpu-node-1", "GPU-2").label("card.index", "5");
        FakeScope node = FakeScope.node(pack, "gpu-node-1").members(List.of(card, other));
        long s = secondsToFire("node-xid-burst", card, node, (i, v) -> {
            long t = T0 + (60 + i) * 1000;
            node.heard(t);
            other.at(t);
            if (i == 0 || i == 20 || i == 40) {
                int code = i == 20 ? 13 : i == 40 ? 31 : 43;
                (i == 20 ? other : card).event(t, "xid", code);
                node.event(t, "xid", code);
            }
        });
        assertEquals(40, s);
        assertEquals("3 XIDs on GPU 3, 5 of gpu-node-1 within 2 minutes (codes 13, 31, 43)",
                firing("node-xid-burst").summary());
    }

    @Test
    void thermalThrottlingUnderLoadTicketsTheNodeWithinTwoMinutes() {
        double throttled = ClockEventReason.HW_THERMAL_SLOWDOWN.bit() | ClockEventReason.SW_POWER_CAP.bit();
        FakeScope card = card();
        FakeScope node = FakeScope.node(pack, "gpu-node-1").members(List.of(card));
        long s = secondsToFire("thermal-throttling-under-load", card, node, (i, v) -> {
            v.put(Metric.GPU_UTIL, 97.0);
            v.put(Metric.TEMP_C, 89.0);
            v.put(Metric.SM_CLOCK_MHZ, 1140.0);
            v.put(Metric.CLOCK_EVENT_REASONS, throttled);
            node.heard(T0 + (60 + i) * 1000);
            node.sample(T0 + (60 + i) * 1000, v);
        });
        assertTrue(s >= 60 && s <= 120, "fired " + s + " s into the incident");
        assertEquals("GPU 3 of gpu-node-1 thermally throttled under load for over half of the last two minutes (up "
                + "to 89 °C, SM clock down to 1140 MHz)", firing("thermal-throttling-under-load").summary());
    }

    @Test
    void memoryClimbWithOomPagesWithin90Seconds() {
        FakeScope card = card();
        long s = secondsToFire("memory-climb-with-oom", card, null, (i, v) -> {
            v.put(Metric.MEM_USED_BYTES, 30e9 + i * (1L << 30) / 60.0);
            if (i == 45) {
                card.event(T0 + (60 + i) * 1000, "oom", -1);
            }
        });
        assertTrue(s >= 45 && s <= 90, "fired " + s + " s into the incident");
        String summary = firing("memory-climb-with-oom").summary();
        assertTrue(summary.matches("Memory on NVIDIA H100 80GB HBM3 on gpu-node-1 climbs [0-9.]+ MiB/min "
                + "\\(peak [0-9.]+ GiB\\) with 1 OOM in the last minute"), summary);
    }

    @Test
    void aSilentNodePagesAfterThirtySeconds() {
        FakeScope node = FakeScope.node(pack, "gpu-node-1");
        long s = secondsToFire("node-silent", card(), node, (i, v) -> { });
        assertEquals(30, s, "the first missing frame is the incident's start");
        assertEquals("gpu-node-1 has sent nothing for 31 s", firing("node-silent").summary());
    }

    @Test
    void anAllocatedCardIdleForMinutesIsNoInspectionItemYet() {
        FakeScope card = card().allocated(true);
        RuleEngine engine = new RuleEngine(pack);
        for (long s = 0; s < 20 * 60; s++) {
            Map<Metric, Double> v = healthy(s);
            v.put(Metric.GPU_UTIL, 1.0);
            card.sample(T0 + s * 1000, v);
            eval(engine, card, null);
        }
        assertEquals(List.of(), out.stream().filter(t -> t.to() == AlertState.FIRING).toList(), "a job starting, checkpointing or evaluating idles for minutes; idle-but-allocated "
                + "waits half an hour (examples/rules/tests/idle-but-allocated.test.yml)");
    }
}
