package io.gpuwatch.probe.sim;

import io.gpuwatch.probe.scenario.Scenario;
import io.gpuwatch.probe.scenario.ScenarioLoad;
import io.gpuwatch.probe.scenario.ScenarioLoader;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.ClockEventReason;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.protocol.codec.FrameCodec;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each incident kind of the alert-quality corpus has its effect on the readings, and only while it holds. */
class SimIncidentKindsTest {
    private static final long T0 = 1_767_225_600_000L;

    /** gpu-0 and gpu-1 share a training job, gpu-2 trains alone, gpu-3 serves inference. */
    private static Scenario scenario(String incidents) {
        String yaml = "nodes: 4\ncardsPerNode: 8\nnodePrefix: gpu-\nseed: 5\nincidents:\n" + incidents;
        ScenarioLoad load = ScenarioLoader.parse("kinds.yaml", yaml);
        if (load instanceof ScenarioLoad.Invalid invalid) {
            throw new AssertionError(invalid.errors().toString());
        }
        return ((ScenarioLoad.Loaded) load).scenario();
    }

    /** Every frame of every producer, second by second, as the runner would send them. */
    private static final class Run {
        final SimFleet fleet;
        final List<Frame> frames = new ArrayList<>();
        final List<String> producers = new ArrayList<>();

        Run(Scenario s, long seconds) {
            fleet = new SimFleet(s, T0);
            for (long t = 0; t <= seconds; t++) {
                for (String p : fleet.producers()) {
                    if (!fleet.silent(p, T0 + t * 1000)) {
                        for (Frame f : fleet.frames(p, T0 + t * 1000)) {
                            frames.add(f);
                            producers.add(p);
                        }
                    }
                }
            }
        }

        /** The card's readings in seconds [from, to). */
        List<CardReading> card(String node, int index, long from, long to) {
            List<CardReading> out = new ArrayList<>();
            for (int i = 0; i < frames.size(); i++) {
                if (frames.get(i) instanceof Sample s && producers.get(i).equals(node) && s.ts() >= T0 + from * 1000
                        && s.ts() < T0 + to * 1000) {
                    out.add(s.cards().get(index));
                }
            }
            return out;
        }

        double mean(String node, int index, long from, long to, Metric m) {
            return mean(card(node, index, from, to), r -> r.values().get(m));
        }

        List<App> apps(String task, long from, long to) {
            return frames.stream().filter(f -> f instanceof App a && a.task().equals(task) && a.ts() >= T0 + from * 1000
                    && a.ts() < T0 + to * 1000).map(f -> (App) f).toList();
        }

        List<Event> events(String kind) {
            return frames.stream().filter(f -> f instanceof Event e && e.kind().equals(kind)).map(f -> (Event) f).toList();
        }

        String uuid(String node, int card) {
            return fleet.uuid(node, card);
        }

        static <T> double mean(List<T> xs, ToDoubleFunction<T> f) {
            assertFalse(xs.isEmpty(), "no readings in the window");
            return xs.stream().mapToDouble(f).average().orElseThrow();
        }
    }

    private static boolean reason(CardReading r, ClockEventReason reason) {
        return ((long) r.values().get(Metric.CLOCK_EVENT_REASONS) & reason.bit()) != 0;
    }

    @Test
    void clockEventOnAllCardsSetsItsReasonsAndLowersClockAndPowerWhileItHolds() {
        Run run = new Run(scenario("  - {at: 60s, node: gpu-0, kind: clock-event, cards: all, "
                + "reasons: [HW_SLOWDOWN, HW_POWER_BRAKE_SLOWDOWN], for: 60s}\n"), 150);
        for (int c = 0; c < 8; c++) {
            assertTrue(run.card("gpu-0", c, 62, 120).stream().allMatch(r -> reason(r, ClockEventReason.HW_SLOWDOWN)
                    && reason(r, ClockEventReason.HW_POWER_BRAKE_SLOWDOWN)), "card " + c);
            assertTrue(run.card("gpu-0", c, 122, 150).stream().noneMatch(r -> reason(r, ClockEventReason.HW_SLOWDOWN)));
            assertTrue(run.mean("gpu-0", c, 70, 120, Metric.SM_CLOCK_MHZ)
                    < 0.6 * run.mean("gpu-0", c, 20, 60, Metric.SM_CLOCK_MHZ));
            assertTrue(run.mean("gpu-0", c, 70, 120, Metric.POWER_W) < 0.6 * run.mean("gpu-0", c, 20, 60, Metric.POWER_W));
            assertTrue(run.mean("gpu-0", c, 70, 120, Metric.GPU_UTIL) > 85, "the work still runs, slower");
        }
        assertTrue(run.card("gpu-1", 0, 62, 120).stream().noneMatch(r -> reason(r, ClockEventReason.HW_SLOWDOWN)));
    }

    @Test
    void clockBlipLastsItsFewSecondsAndPowerCapHoldsPowerAtTheLimit() {
        Run run = new Run(scenario("""
                  - {at: 30s, node: gpu-1, card: 2, kind: clock-blip, for: 3s}
                  - {at: 30s, node: gpu-2, card: 4, kind: power-cap, for: 60s}
                """), 100);
        long blipped = run.card("gpu-1", 2, 0, 100).stream().filter(r -> reason(r, ClockEventReason.HW_SLOWDOWN)).count();
        assertEquals(3, blipped);
        List<CardReading> capped = run.card("gpu-2", 4, 31, 90);
        assertTrue(capped.stream().allMatch(r -> reason(r, ClockEventReason.SW_POWER_CAP)));
        assertTrue(capped.stream().allMatch(r -> r.values().get(Metric.POWER_W) >= 0.96 * 700));
        assertTrue(run.mean("gpu-2", 4, 31, 90, Metric.GPU_UTIL) > 85);
        assertTrue(run.card("gpu-2", 4, 91, 100).stream().noneMatch(r -> reason(r, ClockEventReason.SW_POWER_CAP)));
    }

    @Test
    void nvlinkDownCountsItsLinksAndErrorsThenRecovers() {
        Run run = new Run(scenario("  - {at: 20s, node: gpu-0, card: 1, kind: nvlink-down, links: 2, for: 30s}\n"), 60);
        assertTrue(run.card("gpu-0", 1, 21, 50).stream().allMatch(r -> r.values().get(Metric.NVLINK_LINKS_DOWN) == 2));
        assertTrue(run.card("gpu-0", 1, 51, 60).stream().allMatch(r -> r.values().get(Metric.NVLINK_LINKS_DOWN) == 0));
        assertTrue(run.card("gpu-0", 1, 21, 22).get(0).values().get(Metric.NVLINK_ERRORS)
                > run.card("gpu-0", 1, 0, 1).get(0).values().get(Metric.NVLINK_ERRORS));
    }

    @Test
    void tempRiseClimbsAtItsRateTowardItsTargetAndHotStableHoldsSteady() {
        Run run = new Run(scenario("""
                  - {at: 60s, node: gpu-0, card: 0, kind: temp-rise, rate: 3, to: 84}
                  - {at: 0s, node: gpu-2, card: 0, kind: hot-stable, tempC: 80}
                """), 600);
        double before = run.mean("gpu-0", 0, 50, 60, Metric.TEMP_C);
        double after3m = run.mean("gpu-0", 0, 235, 245, Metric.TEMP_C);
        assertTrue(after3m > before + 6 && after3m < before + 11, before + " → " + after3m);
        assertEquals(84, run.mean("gpu-0", 0, 550, 600, Metric.TEMP_C), 1.5);
        assertEquals(80, run.mean("gpu-2", 0, 120, 600, Metric.TEMP_C), 1.5);
        assertTrue(run.card("gpu-2", 0, 120, 600).stream()
                .noneMatch(r -> reason(r, ClockEventReason.HW_THERMAL_SLOWDOWN)), "below the slowdown threshold");
    }

    @Test
    void stragglerIsOneCardFarBelowItsPeersAndSlowNodeIsAWholeNodeBelowTheJobsOther() {
        Run run = new Run(scenario("""
                  - {at: 30s, node: gpu-0, card: 3, kind: straggler, for: 2m, slowdown: 0.5}
                  - {at: 30s, node: gpu-1, kind: slow-node, for: 2m, slowdown: 0.7}
                """), 200);
        double peer = run.mean("gpu-0", 2, 60, 150, Metric.GPU_UTIL);
        double straggler = run.mean("gpu-0", 3, 60, 150, Metric.GPU_UTIL);
        assertEquals(0.5, straggler / peer, 0.08);
        assertTrue(run.mean("gpu-0", 3, 60, 150, Metric.SM_ACTIVE) < 0.6 * run.mean("gpu-0", 2, 60, 150, Metric.SM_ACTIVE));
        assertTrue(run.mean("gpu-0", 3, 60, 150, Metric.POWER_W) < 0.75 * run.mean("gpu-0", 2, 60, 150, Metric.POWER_W));
        assertEquals(peer, run.mean("gpu-0", 3, 180, 200, Metric.GPU_UTIL), 6, "back with its peers afterwards");
        for (int c = 0; c < 8; c++) {
            assertEquals(0.7, run.mean("gpu-1", c, 60, 150, Metric.GPU_UTIL) / peer, 0.08, "card " + c);
        }
    }

    @Test
    void checkpointAndEvalDropUtilisationButNotMemory() {
        Run run = new Run(scenario("""
                  - {at: 60s, node: gpu-2, kind: checkpoint, every: 3m, for: 60s, count: 2}
                  - {at: 60s, node: gpu-0, card: 0, kind: eval, for: 2m}
                """), 400);
        for (long from : new long[]{60, 240}) {
            assertTrue(run.mean("gpu-2", 5, from + 10, from + 60, Metric.GPU_UTIL) < 5, "checkpoint at " + from);
        }
        assertTrue(run.mean("gpu-2", 5, 150, 240, Metric.GPU_UTIL) > 85, "training between checkpoints");
        assertEquals(run.mean("gpu-2", 5, 30, 60, Metric.MEM_USED_BYTES), run.mean("gpu-2", 5, 70, 120,
                Metric.MEM_USED_BYTES), 1e6);
        assertEquals(0.4, run.mean("gpu-0", 0, 80, 180, Metric.GPU_UTIL) / run.mean("gpu-0", 1, 80, 180,
                Metric.GPU_UTIL), 0.08);
    }

    @Test
    void memoryPlateauHoldsNearFullAndDiurnalDipsDeepestMidSpell() {
        Run run = new Run(scenario("""
                  - {at: 30s, node: gpu-2, card: 1, kind: memory-plateau, level: 0.97, for: 3m}
                  - {at: 0s, node: gpu-3, kind: diurnal, for: 10m, low: 0.3}
                """), 600);
        double total = 85_520_809_984.0;
        assertEquals(0.97, run.mean("gpu-2", 1, 90, 210, Metric.MEM_USED_BYTES) / total, 0.005);
        double mid = run.mean("gpu-3", 0, 280, 320, Metric.GPU_UTIL);
        double edge = run.mean("gpu-3", 0, 20, 40, Metric.GPU_UTIL);
        assertTrue(mid < 0.45 * edge, mid + " at night vs " + edge);
        assertTrue(Run.mean(run.apps("svc-chat-70b", 280, 320), a -> a.values().get(Metric.REQUESTS_PER_SEC))
                < 0.5 * Run.mean(run.apps("svc-chat-70b", 20, 40), a -> a.values().get(Metric.REQUESTS_PER_SEC)));
    }

    @Test
    void inferenceServicesReportAppFramesAndTokensCollapseWhileTheGpusStayBusy() {
        Run run = new Run(scenario("""
                  - {at: 60s, node: gpu-3, card: 0, kind: tokens-collapse, for: 60s, factor: 0.1}
                  - {at: 60s, node: gpu-3, card: 4, kind: latency-regression, for: 60s, factor: 3}
                """), 150);
        List<String> tasks = run.frames.stream().filter(f -> f instanceof App).map(f -> ((App) f).task()).distinct().toList();
        assertEquals(List.of("svc-chat-70b", "svc-embed-8b", "svc-rerank-2b"), tasks);
        ToDoubleFunction<App> tokens = a -> a.values().get(Metric.TOKENS_PER_SEC);
        double normal = Run.mean(run.apps("svc-chat-70b", 30, 60), tokens);
        double collapsed = Run.mean(run.apps("svc-chat-70b", 65, 120), tokens);
        // one shard of four makes a tenth of its tokens, and the replica's shards step together: all of it does
        assertEquals(0.1, collapsed / normal, 0.02);
        assertTrue(run.mean("gpu-3", 0, 65, 120, Metric.GPU_UTIL) > 60, "the GPU stays busy");
        ToDoubleFunction<App> ttft = a -> a.values().get(Metric.TTFT_P99_MS);
        assertTrue(Run.mean(run.apps("svc-embed-8b", 65, 120), ttft) > 2.5 * Run.mean(run.apps("svc-embed-8b", 30, 60), ttft));
        assertTrue(Run.mean(run.apps("svc-embed-8b", 125, 150), ttft) < 1.5 * Run.mean(run.apps("svc-embed-8b", 30, 60), ttft));
    }

    @Test
    void collectorUnsupportedLeavesItsFieldsOut() {
        Run run = new Run(scenario("  - {at: 10s, node: gpu-2, kind: collector-unsupported, fields: [smActive, memTempC], for: 20s}\n"), 40);
        for (CardReading r : run.card("gpu-2", 6, 11, 30)) {
            assertFalse(r.values().has(Metric.SM_ACTIVE));
            assertFalse(r.values().has(Metric.MEM_TEMP_C));
            assertTrue(r.values().has(Metric.TEMP_C));
        }
        assertTrue(run.card("gpu-2", 6, 31, 40).stream().allMatch(r -> r.values().has(Metric.SM_ACTIVE)));
    }

    @Test
    void jobsEndStartGetCancelledAndRespawnWithTheirProcessEvents() {
        Run run = new Run(scenario("""
                  - {at: 20s, node: gpu-2, card: 0, kind: job-end}
                  - {at: 60s, node: gpu-2, card: 1, kind: job-start, ramp: 2m}
                  - {at: 30s, node: gpu-0, kind: job-cancel, for: 1m, ramp: 30s}
                  - {at: 40s, node: gpu-1, card: 5, kind: worker-respawn, for: 5s}
                  - {at: 0s, node: gpu-2, card: 7, kind: spare-card}
                """), 300);
        String ended = run.uuid("gpu-2", 0);
        assertTrue(run.events("process_exit").stream().anyMatch(e -> e.uuid().equals(ended) && e.text().contains("code 0")));
        assertTrue(run.card("gpu-2", 0, 21, 300).stream().allMatch(r -> r.processes().isEmpty()
                && r.values().get(Metric.GPU_UTIL) == 0));

        assertTrue(run.card("gpu-2", 1, 0, 60).stream().allMatch(r -> r.processes().isEmpty()));
        assertTrue(run.events("process_start").stream().anyMatch(e -> e.uuid().equals(run.uuid("gpu-2", 1))
                && e.ts() == T0 + 60_000));
        double ramping = run.mean("gpu-2", 1, 70, 170, Metric.GPU_UTIL);
        assertTrue(ramping > 3 && ramping < 20, "a starting job loads data at low utilisation: " + ramping);
        assertTrue(run.mean("gpu-2", 1, 220, 300, Metric.GPU_UTIL) > 85);

        for (int c = 0; c < 8; c++) {
            String uuid = run.uuid("gpu-0", c);
            assertTrue(run.events("process_exit").stream().anyMatch(e -> e.uuid().equals(uuid)
                    && e.text().contains("SIGTERM") && e.ts() == T0 + 30_000), "card " + c);
            assertTrue(run.events("process_start").stream().anyMatch(e -> e.uuid().equals(uuid) && e.ts() == T0 + 90_000));
        }

        String respawned = run.uuid("gpu-1", 5);
        Event exit = run.events("process_exit").stream().filter(e -> e.uuid().equals(respawned)).findFirst().orElseThrow();
        Event start = run.events("process_start").stream().filter(e -> e.uuid().equals(respawned)).findFirst().orElseThrow();
        assertEquals(5_000, start.ts() - exit.ts());
        assertNotEquals(exit.pid(), start.pid());

        String spare = run.uuid("gpu-2", 7);
        assertTrue(run.card("gpu-2", 7, 0, 300).stream().allMatch(r -> r.processes().isEmpty()
                && reason(r, ClockEventReason.GPU_IDLE)));
        assertTrue(run.frames.stream().noneMatch(f -> f instanceof Event e && spare.equals(e.uuid())));
    }

    @Test
    void correctedEccAndAnXidThatLeavesTheCardOnTheBus() {
        Run run = new Run(scenario("""
                  - {at: 10s, node: gpu-1, card: 2, kind: ecc-corrected, count: 4}
                  - {at: 10s, node: gpu-1, card: 3, kind: xid, code: 79, lost: false}
                """), 30);
        double before = run.card("gpu-1", 2, 0, 10).get(0).values().get(Metric.ECC_CORRECTED_VOLATILE);
        assertEquals(before + 4, run.card("gpu-1", 2, 11, 12).get(0).values().get(Metric.ECC_CORRECTED_VOLATILE));
        assertEquals(1, run.events("ecc_corrected").size());
        assertEquals(1, run.events("xid").size());
        assertTrue(run.events("gpu_lost").isEmpty());
        assertTrue(run.card("gpu-1", 3, 11, 30).stream().allMatch(r -> r.values().has(Metric.GPU_UTIL)));
    }

    @Test
    void probeDisconnectKeepsSamplingAndNodeRebootComesBackWithANewBoot() {
        Scenario s = scenario("""
                  - {at: 20s, node: gpu-2, kind: probe-disconnect, for: 20s}
                  - {at: 30s, node: gpu-1, kind: node-reboot, down: 40s}
                """);
        SimFleet fleet = new SimFleet(s, T0);
        String boot = fleet.hello("gpu-1").bootId();
        assertFalse(fleet.disconnected("gpu-2", T0 + 19_000));
        assertTrue(fleet.disconnected("gpu-2", T0 + 20_000));
        assertFalse(fleet.disconnected("gpu-2", T0 + 40_000));
        assertFalse(fleet.silent("gpu-2", T0 + 30_000), "a disconnected probe still samples");
        double energy = 0;
        for (long t = 0; t < 30; t++) {
            for (Frame f : fleet.frames("gpu-1", T0 + t * 1000)) {
                if (f instanceof Sample smp) {
                    energy = smp.cards().get(0).values().get(Metric.ENERGY_J);
                }
            }
        }
        assertTrue(fleet.silent("gpu-1", T0 + 30_000));
        assertTrue(fleet.silent("gpu-1", T0 + 69_000));
        assertFalse(fleet.silent("gpu-1", T0 + 70_000));
        List<Frame> back = fleet.frames("gpu-1", T0 + 70_000);
        assertNotEquals(boot, fleet.hello("gpu-1").bootId());
        Sample first = (Sample) back.stream().filter(f -> f instanceof Sample).findFirst().orElseThrow();
        assertTrue(first.cards().get(0).values().get(Metric.ENERGY_J) < energy, "counters restart with the driver");
        assertTrue(back.stream().anyMatch(f -> f instanceof Event e && e.kind().equals("process_start")));
    }

    @Test
    void queueWaitPilesUpAndSchedBurstDrains() {
        Run run = new Run(scenario("""
                  - {at: 60s, queue: training, kind: queue-wait, for: 8m, pending: 12}
                  - {at: 60s, queue: inference, kind: sched-burst, for: 5m, pending: 20}
                """), 600);
        List<Sched> training = run.frames.stream().filter(f -> f instanceof Sched q && q.queue().equals("training"))
                .map(f -> (Sched) f).toList();
        List<Sched> inference = run.frames.stream().filter(f -> f instanceof Sched q && q.queue().equals("inference"))
                .map(f -> (Sched) f).toList();
        assertEquals(601, training.size());
        Sched late = training.get(500);
        assertTrue(late.values().get(Metric.PENDING) >= 12);
        assertTrue(late.values().get(Metric.WAIT_MAX_S) > 400, "nothing started: the oldest waits since the start");
        assertTrue(training.get(300).values().get(Metric.WAIT_MAX_S) < late.values().get(Metric.WAIT_MAX_S));
        assertEquals(20, inference.get(120).values().get(Metric.PENDING));
        assertEquals(0, inference.get(400).values().get(Metric.PENDING));
        assertTrue(inference.stream().mapToDouble(q -> q.values().get(Metric.WAIT_MAX_S)).max().orElseThrow() < 300);
        assertTrue(training.get(0).tasks().stream().anyMatch(t -> t.state().equals("running") && t.cards().size() == 16
                && t.owner().equals("team-llm") && t.business().equals("chat-pretrain")),
                "the two-node job holds 16 cards");
    }

    @Test
    void theSameSeedReplaysEveryKindIdenticallyAndAnotherSeedDoesNot() {
        String all = """
                  - {at: 10s, node: gpu-0, card: 3, kind: straggler, for: 30s}
                  - {at: 10s, node: gpu-1, kind: clock-event, reasons: [SW_THERMAL_SLOWDOWN], for: 30s}
                  - {at: 10s, node: gpu-2, kind: checkpoint, every: 20s, for: 5s, count: 2}
                  - {at: 10s, node: gpu-3, card: 1, kind: tokens-collapse, for: 30s}
                  - {at: 15s, node: gpu-2, card: 2, kind: worker-respawn}
                  - {at: 20s, node: gpu-1, kind: node-reboot, down: 10s}
                  - {at: 10s, queue: training, kind: sched-burst, for: 30s}
                """;
        FrameCodec codec = new FrameCodec();
        List<String> a = new Run(scenario(all), 60).frames.stream().map(f -> codec.encode(f, null)).toList();
        List<String> b = new Run(scenario(all), 60).frames.stream().map(f -> codec.encode(f, null)).toList();
        assertEquals(a, b);
        Scenario other = scenario(all).with(null, 6);
        assertNotEquals(a, new Run(other, 60).frames.stream().map(f -> codec.encode(f, null)).toList());
    }

    @Test
    void aTaskOnACardIsKnownUntilItsCardEmpties() {
        SimFleet fleet = new SimFleet(scenario("  - {at: 10s, node: gpu-2, card: 0, kind: job-end}\n"), T0);
        fleet.frames("gpu-2", T0);
        assertTrue(fleet.task("gpu-2", 0)[0].startsWith("finetune-qwen-"));
        fleet.frames("gpu-2", T0 + 11_000);
        assertNull(fleet.task("gpu-2", 0));
        List<ProcessInfo> none = ((Sample) fleet.frames("gpu-2", T0 + 12_000).stream()
                .filter(f -> f instanceof Sample).findFirst().orElseThrow()).cards().get(0).processes();
        assertTrue(none.isEmpty());
    }
}
