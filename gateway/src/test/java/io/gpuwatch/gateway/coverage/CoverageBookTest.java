package io.gpuwatch.gateway.coverage;

import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.protocol.SchedTask;
import io.gpuwatch.rules.Layer;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Counting and grouping over explicit arrival times: what arrives, how often, and which rules go blind. */
class CoverageBookTest {
    /** Aligned to the five-minute window, so the arithmetic below is plain. */
    private static final long T0 = 1_764_700_200_000L;
    private static final long WINDOW = CoverageBook.DEFAULT_WINDOW_MS;

    private static final RuleSet RULES = rules();

    /** Three rule files, one per layer the missing signals belong to, loaded as a gateway loads a directory. */
    private static RuleSet rules() {
        try {
            Path dir = Files.createTempDirectory("coverage-rules");
            Files.writeString(dir.resolve("device.yml"), """
                    group: device
                    layer: device
                    scope: card
                    rules:
                      - name: sm-starved
                        severity: inspect
                        when: smActiveOfBusy < 0.3 && gpuUtil > 80
                      - name: nvlink-errors
                        severity: ticket
                        when: nvlinkErrors > 0
                      - name: hot
                        severity: page
                        when: tempC > 85 && throttled('HW_SLOWDOWN')
                    """);
            Files.writeString(dir.resolve("tasks.yml"), """
                    group: tasks
                    layer: business
                    scope: task
                    rules:
                      - name: dear-tokens
                        severity: inspect
                        when: costPerMTokens > 2
                    """);
            Files.writeString(dir.resolve("queues.yml"), """
                    group: queues
                    layer: scheduling
                    scope: queue
                    rules:
                      - name: queue-long
                        severity: ticket
                        when: pending > 10
                    """);
            RuleLoad load = RuleSet.load(List.of(dir));
            assertTrue(load.ok(), load.diagnostics().toString());
            return load.ruleSet();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Hello hello(String node, String pool, String driver, String model, String... uuids) {
        List<CardInfo> cards = new java.util.ArrayList<>();
        for (int i = 0; i < uuids.length; i++) {
            cards.add(new CardInfo(uuids[i], i, model, null, null, null, null, null));
        }
        return new Hello(1, node, "b1", "test", driver, null, Map.of("pool", pool), cards);
    }

    private static MetricValues full() {
        return MetricValues.builder().set(Metric.GPU_UTIL, 90).set(Metric.TEMP_C, 60).set(Metric.SM_ACTIVE, 0.7)
                .set(Metric.NVLINK_ERRORS, 0).set(Metric.CLOCK_EVENT_REASONS, 0).build();
    }

    private static MetricValues rented() {
        return MetricValues.builder().set(Metric.GPU_UTIL, 90).set(Metric.TEMP_C, 60)
                .set(Metric.CLOCK_EVENT_REASONS, 0).build();
    }

    @Test
    void aRentedPoolWithoutProfilingOrNvlinkLosesTheRulesThatReadThem() {
        FleetState fleet = new FleetState();
        CoverageBook book = new CoverageBook(WINDOW);
        fleet.hello(hello("own-1", "owned", "550.54", "H100", "GPU-o1", "GPU-o2"), T0);
        fleet.hello(hello("rent-1", "rented", "535.10", "H100", "GPU-r1"), T0);
        ProcessInfo withMem = new ProcessInfo(1, 1_000L, "train-7", "ana", "chat");
        ProcessInfo withoutMem = new ProcessInfo(2, null, null, null, null);
        for (int s = 0; s < 60; s++) {
            long at = T0 + s * 1000L;
            // o2 reports its temperature every other sample only
            MetricValues o2 = s % 2 == 0 ? full() : MetricValues.builder().set(Metric.GPU_UTIL, 90)
                    .set(Metric.SM_ACTIVE, 0.7).build();
            book.frame("own-1", new Sample(s + 1, at, List.of(new CardReading("GPU-o1", full(), List.of(withMem)),
                    new CardReading("GPU-o2", o2, List.of()))), at);
            book.frame("rent-1", new Sample(s + 1, at, List.of(new CardReading("GPU-r1", rented(),
                    List.of(withoutMem)))), at);
        }
        CoverageReport r = book.report(fleet, RULES, T0 + 60_000);
        assertEquals(2, r.groups().size());
        CoverageReport.GroupCoverage owned = r.groups().get(0);
        assertEquals(new CoverageReport.Key("owned", "H100", "550.54"), owned.key());
        assertEquals(2, owned.cards());
        assertEquals(2, owned.sampledCards());
        CoverageReport.LayerCoverage device = owned.layer(Layer.DEVICE);
        CoverageReport.SignalCoverage util = device.signal("gpuUtil");
        assertEquals(1.0, util.share());
        assertEquals(1.0, util.perSecond(), 1e-9, "60 readings in 60 s");
        assertEquals(1.0, util.frameShare());
        CoverageReport.SignalCoverage temp = device.signal("tempC");
        assertEquals(1.0, temp.share(), "both cards sent it");
        assertEquals(0.75, temp.perSecond(), 1e-9, "o1 every second, o2 every other: (1 + 0.5) / 2");
        assertEquals(0.75, temp.frameShare(), 1e-9);
        assertNotNull(device.signal("processMemory"), "o1's process carries its memory");
        assertNull(device.missing("smActive"));

        CoverageReport.GroupCoverage rent = r.groups().get(1);
        assertEquals(new CoverageReport.Key("rented", "H100", "535.10"), rent.key());
        CoverageReport.LayerCoverage rentDevice = rent.layer(Layer.DEVICE);
        CoverageReport.Missing sm = rentDevice.missing("smActive");
        assertEquals("profiling (GPM or DCGM) unsupported or disabled", sm.reason());
        assertEquals(List.of(new CoverageReport.RuleRef("sm-starved", "device", "card")), sm.rules());
        assertEquals(List.of(new CoverageReport.RuleRef("nvlink-errors", "device", "card")),
                rentDevice.missing("nvlinkErrors").rules());
        assertTrue(rentDevice.missing("processMemory").reason().startsWith("no per-process memory"));
        assertNull(rentDevice.missing("tempC"));

        // no app or sched frames anywhere: every group lacks both layers, and the rules reading them say so
        CoverageReport.Missing tokens = rent.layer(Layer.APPLICATION).missing("tokensPerSec");
        assertEquals(Signal.NO_APP_SCRAPE, tokens.reason());
        assertEquals(List.of(new CoverageReport.RuleRef("dear-tokens", "business", "task")), tokens.rules());
        CoverageReport.Missing pending = owned.layer(Layer.SCHEDULING).missing("pending");
        assertEquals(Signal.NO_SCHEDULER, pending.reason());
        assertEquals("queue-long", pending.rules().get(0).name());
        assertEquals(Signal.NO_SCHEDULER, owned.layer(Layer.SCHEDULING).missing("schedulerListing").reason());
        assertNotNull(owned.layer(Layer.BUSINESS).signal("taskAttribution"));
        assertNotNull(rent.layer(Layer.BUSINESS).missing("taskAttribution"));
    }

    @Test
    void appAndSchedFramesCountPerRelayingNodeTaskAndQueue() {
        FleetState fleet = new FleetState();
        CoverageBook book = new CoverageBook(WINDOW);
        fleet.hello(hello("n1", "owned", "550.54", "H100", "GPU-1"), T0);
        fleet.hello(hello("n2", "owned", "550.54", "H100", "GPU-2"), T0);
        for (int s = 0; s < 100; s++) {
            long at = T0 + s * 1000L;
            book.frame("n1", new Sample(s + 1, at, List.of(new CardReading("GPU-1", full(), List.of()))), at);
            book.frame("n2", new Sample(s + 1, at, List.of(new CardReading("GPU-2", full(), List.of()))), at);
            if (s % 10 == 0) {
                book.frame("n1", new App(s + 1, at, "serve-1", "chat", "vllm",
                        MetricValues.builder().set(Metric.TOKENS_PER_SEC, 500).build()), at);
                book.frame("sched-api", new Sched(s + 1, at, "gpu",
                        MetricValues.builder().set(Metric.PENDING, 3).build(),
                        List.of(new SchedTask("serve-1", "ana", "chat", List.of("GPU-1"), "running", 1))), at);
            }
        }
        CoverageReport r = book.report(fleet, RULES, T0 + 100_000);
        CoverageReport.GroupCoverage g = r.groups().get(0);
        CoverageReport.SignalCoverage tokens = g.layer(Layer.APPLICATION).signal("tokensPerSec");
        assertEquals(0.5, tokens.share(), "one node of two relays the task's metrics");
        assertEquals(0.1, tokens.perSecond(), 1e-9, "10 frames in 100 s");
        assertEquals("not exported by the scraped applications",
                g.layer(Layer.APPLICATION).missing("ttftP99Ms").reason());
        assertEquals(1.0, g.layer(Layer.SCHEDULING).signal("pending").share(), "the one queue reports it");
        assertEquals(0.5, g.layer(Layer.SCHEDULING).signal("schedulerListing").share(), "GPU-1 of two cards");
        assertEquals("not reported by the scheduler adapter", g.layer(Layer.SCHEDULING).missing("waitP90s").reason());
        assertEquals(List.of(new CoverageReport.ScopeCoverage("serve-1", 0.1, List.of("tokensPerSec"))), r.tasks());
        assertEquals(List.of(new CoverageReport.ScopeCoverage("gpu", 0.1, List.of("pending"))), r.queues());
    }

    @Test
    void oneNodesCardsEachWithTheirRatesAndGaps() {
        FleetState fleet = new FleetState();
        CoverageBook book = new CoverageBook(WINDOW);
        fleet.hello(hello("n1", "owned", "550.54", "H100", "GPU-1", "GPU-2"), T0);
        for (int s = 0; s < 40; s++) {
            long at = T0 + s * 1000L;
            // GPU-2 is read every other second, without profiling
            List<CardReading> cards = s % 2 == 0
                    ? List.of(new CardReading("GPU-1", full(), List.of()), new CardReading("GPU-2", rented(), List.of()))
                    : List.of(new CardReading("GPU-1", full(), List.of()));
            book.frame("n1", new Sample(s + 1, at, cards), at);
        }
        book.frame("n1", new App(41, T0 + 39_000, "serve-1", "chat", "vllm",
                MetricValues.builder().set(Metric.TTFT_P99_MS, 300).build()), T0 + 39_000);
        NodeCoverage n = book.node(fleet, "n1", T0 + 40_000);
        assertEquals("owned", n.pool());
        assertEquals(1.0, n.cards().get(0).readingsPerSecond(), 1e-9);
        assertEquals(0.5, n.cards().get(1).readingsPerSecond(), 1e-9);
        assertTrue(n.cards().get(1).missing().containsAll(List.of("smActive", "nvlinkErrors", "schedulerListing")),
                n.cards().get(1).missing().toString());
        assertTrue(n.cards().get(0).present().stream().anyMatch(sc -> sc.signal().equals("smActive")));
        assertEquals(List.of("ttftP99Ms"), n.appSignals());
        assertNull(book.node(fleet, "n9", T0));
    }

    @Test
    void countsOutliveOneWindowAndAreGoneAfterTwo() {
        FleetState fleet = new FleetState();
        CoverageBook book = new CoverageBook(WINDOW);
        fleet.hello(hello("n1", "owned", "550.54", "H100", "GPU-1"), T0);
        for (int s = 0; s < 60; s++) {
            long at = T0 + s * 1000L;
            book.frame("n1", new Sample(s + 1, at, List.of(new CardReading("GPU-1", full(), List.of()))), at);
        }
        // the next window: the first one's readings still count, over the time since the first
        long later = T0 + WINDOW + 60_000;
        book.frame("n1", new Sample(61, later, List.of(new CardReading("GPU-1", rented(), List.of()))), later);
        CoverageReport.LayerCoverage device = book.report(fleet, RULES, later).groups().get(0).layer(Layer.DEVICE);
        assertEquals(60.0 / ((WINDOW + 60_000) / 1000.0), device.signal("smActive").perSecond(), 1e-9);
        assertEquals(60.0 / 61, device.signal("smActive").frameShare(), 1e-9);

        // two windows on, smActive is gone while gpuUtil still arrives
        long gone = T0 + 2 * WINDOW + 1000;
        book.frame("n1", new Sample(62, gone, List.of(new CardReading("GPU-1", rented(), List.of()))), gone);
        device = book.report(fleet, RULES, gone).groups().get(0).layer(Layer.DEVICE);
        assertNull(device.signal("smActive"));
        assertNotNull(device.missing("smActive"));
        assertNotNull(device.signal("gpuUtil"));

        // silent for two windows more: the card counts as known but not sampled
        CoverageReport.GroupCoverage silent = book.report(fleet, RULES, gone + 2 * WINDOW + 1).groups().get(0);
        assertEquals(1, silent.cards());
        assertEquals(0, silent.sampledCards());
    }

    @Test
    void signalsByNodeNameWhatEachNodeSends() {
        FleetState fleet = new FleetState();
        CoverageBook book = new CoverageBook(WINDOW);
        fleet.hello(hello("n1", "owned", "550.54", "H100", "GPU-1"), T0);
        fleet.hello(hello("n2", "owned", "550.54", "H100", "GPU-2"), T0);
        book.frame("n1", new Sample(1, T0, List.of(new CardReading("GPU-1", rented(), List.of()))), T0);
        Map<String, BitSet> signals = book.signalsByNode(fleet, T0 + 1000);
        assertEquals(List.of("n1"), List.copyOf(signals.keySet()), "n2 sent nothing");
        assertEquals(List.of("gpuUtil", "tempC", "clockEventReasons"), CoverageBook.names(signals.get("n1")));
    }

    @Test
    void theJsonAndMarkdownCarryTheMissingSignalsAndTheirRules() {
        FleetState fleet = new FleetState();
        CoverageBook book = new CoverageBook(WINDOW);
        fleet.hello(hello("rent-1", "rented", "535.10", "L40S", "GPU-r1"), T0);
        book.frame("rent-1", new Sample(1, T0, List.of(new CardReading("GPU-r1", rented(), List.of()))), T0);
        var json = book.report(fleet, RULES, T0 + 1000).toJson();
        var group = json.getJsonArray("groups").getJsonObject(0);
        assertEquals("rented", group.getString("pool"));
        var sm = group.getJsonObject("layers").getJsonObject("device").getJsonArray("missing").stream()
                .map(o -> (io.vertx.core.json.JsonObject) o).filter(o -> o.getString("signal").equals("smActive"))
                .findFirst().orElseThrow();
        assertEquals("sm-starved", sm.getJsonArray("rules").getJsonObject(0).getString("name"));
        String md = CoverageReport.markdown(json);
        assertTrue(md.contains("## pool rented · L40S · driver 535.10"), md);
        assertTrue(md.contains("- `smActive` (device): profiling (GPM or DCGM) unsupported or disabled — cannot fire: "
                + "sm-starved (device)"), md);
        assertTrue(md.contains("| device | gpuUtil, tempC, clockEventReasons |"), md);
    }
}
