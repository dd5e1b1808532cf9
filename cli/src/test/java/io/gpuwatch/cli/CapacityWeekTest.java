package io.gpuwatch.cli;

import io.gpuwatch.gateway.capacity.CapacityReport;
import io.gpuwatch.gateway.capacity.CapacityText;
import io.gpuwatch.gateway.capacity.UsageSampler;
import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.replay.Replay;
import io.gpuwatch.gateway.store.Backoff;
import io.gpuwatch.gateway.store.QueueRow;
import io.gpuwatch.gateway.store.Store;
import io.gpuwatch.gateway.store.UsageRow;
import io.gpuwatch.probe.scenario.Scenario;
import io.gpuwatch.probe.scenario.ScenarioLoad;
import io.gpuwatch.probe.scenario.ScenarioLoader;
import io.gpuwatch.probe.sim.SimFleet;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.protocol.SchedTask;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A week of {@code examples/scenarios/capacity-week.yaml} played in virtual time through the gateway's own state
 * and sampler into a real store, one reading and one history row a minute, then the capacity report over it: the
 * idle owner, the reclaimable card-hours, the worst tasks and the what-if are what the scenario was written to
 * produce.
 */
class CapacityWeekTest {
    private static final long T0 = Instant.parse("2026-01-05T00:00:00Z").toEpochMilli();
    private static final long MIN = 60_000L;
    private static final long WEEK = 7 * 86_400_000L;
    private static final double H100_BF16 = 989.4e12;
    /** The fine-tune's declared size: 7.6 B parameters, trained at bf16. */
    private static final double FT_PARAMS = 7.6e9;
    /** Tokens a second that make the fine-tune's ratio 0.30 on its 4 cards. */
    private static final double FT_TOKENS = 0.30 * 4 * H100_BF16 / (6 * FT_PARAMS);

    @TempDir
    Path dir;

    @Test
    void aWeekOfIdleNotebooksAndPiledUpQueuesReadsAsScripted() {
        ScenarioLoad load = ScenarioLoader.load(Path.of("../examples/scenarios/capacity-week.yaml"));
        Scenario week = assertInstanceOf(ScenarioLoad.Loaded.class, load, load.toString()).scenario();
        SimFleet sim = new SimFleet(week, T0);
        RuleLoad rules = RuleSet.load(List.of(Path.of("../examples/rules")));
        assertTrue(rules.ok(), rules.diagnostics().toString());
        Replay replay = new Replay(rules.ruleSet(), MIN, s -> { });
        replay.fleet().usePricing(new Pricing("USD", 2.00, List.of(), Map.of(), Map.of(
                "owned", new Pricing.PoolPrice(1.10, List.of()),
                "rented", new Pricing.PoolPrice(2.50, List.of()),
                "cloud-on-demand", new Pricing.PoolPrice(6.98, List.of()))));
        UsageSampler sampler = new UsageSampler(replay.fleet(), n -> true, MIN);
        for (String p : sim.producers()) {
            replay.feed(p, sim.hello(p), T0);
        }
        String fineTune = sim.task("gpu-2", 0)[0];
        // what an operator declares with POST /v1/sched: each service's model, and the fine-tune's
        replay.feed("ops", new Sched(0, T0, "inference", MetricValues.empty(), List.of(
                declared("svc-chat-70b", "team-serving", "chat", 70.6e9, "inference", "fp8"),
                declared("svc-embed-8b", "team-search", "search", 8e9, "inference", "bf16"),
                declared("svc-rerank-2b", "team-search", "search", 2e9, "inference", "bf16"))), T0);
        replay.feed("ops", new Sched(0, T0, "training", MetricValues.empty(), List.of(
                declared(fineTune, "team-llm", "chat-sft", FT_PARAMS, "training", "bf16"))), T0);

        try (Store store = Store.open(dir.resolve("gpuwatch"), () -> Instant.ofEpochMilli(T0), Backoff.standard())) {
            List<UsageRow> usage = new ArrayList<>();
            List<QueueRow> queues = new ArrayList<>();
            long seq = 1;
            for (long now = T0; now <= T0 + WEEK; now += MIN) {
                for (String p : sim.producers()) {
                    if (sim.silent(p, now)) {
                        continue;
                    }
                    for (Frame f : sim.frames(p, now)) {
                        replay.feed(p, f, now);
                    }
                }
                replay.feed("gpu-2", new App(seq++, now, fineTune, "chat-sft", "job",
                        MetricValues.builder().set(Metric.TOKENS_PER_SEC, FT_TOKENS).build()), now);
                UsageSampler.Minute m = sampler.sample(now);
                usage.addAll(m.usage());
                queues.addAll(m.queues());
                // an hour a transaction, as a gateway's store would hold it
                if ((now - T0) % 3_600_000L == 0) {
                    store.usageHistory().add(usage, queues);
                    usage.clear();
                    queues.clear();
                }
            }
            store.usageHistory().add(usage, queues);
            CapacityReport.Builder b = new CapacityReport.Builder(T0, T0 + WEEK, "USD");
            store.usageHistory().scan(T0, T0 + WEEK, b::add);
            store.usageHistory().queues(T0, T0 + WEEK).forEach(b::add);
            check(b.build(), fineTune);
        }
    }

    private static SchedTask declared(String task, String owner, String business, double params, String workload,
                                      String precision) {
        return new SchedTask(task, owner, business, List.of(), "running", null, null, null,
                new SchedTask.Model(params, workload, precision, null));
    }

    private static void check(CapacityReport r, String fineTune) {
        String md = CapacityText.markdown(r);
        assertEquals(168.0, r.coveredHours(), 1e-6, md);
        assertEquals(16 * 168.0, r.totals().cardHours(), 0.2, "16 cards all week");

        // the two notebooks, 6 h and 10 h, less their first half hour each
        CapacityReport.OwnerIdle research = r.idleOwners().get(0);
        assertEquals("team-research", research.owner(), md);
        assertEquals(15.0, research.reclaimableCardHours(), 0.1, md);
        assertEquals(16.0, research.idleCardHours(), 0.1, md);
        assertEquals(5.5 * 2.50 + 9.5 * 1.10, research.reclaimableCost(), 0.3, "rented at 2.50, owned at 1.10");
        assertEquals(15.0, r.totals().reclaimableCardHours(), 0.1, md);
        for (CapacityReport.OwnerIdle o : r.idleOwners().subList(1, r.idleOwners().size())) {
            assertEquals(0, o.reclaimableCardHours(), 1e-9, "only the notebooks idle for half an hour: " + o);
        }

        // the services by their model FLOPs per card (reranking's 2 B model least), then the fine-tune
        List<String> worst = r.worstTasks().stream().map(CapacityReport.TaskCompute::task).toList();
        assertEquals(List.of("svc-rerank-2b", "svc-embed-8b", "svc-chat-70b", fineTune), worst, md);
        CapacityReport.TaskCompute ft = r.worstTasks().get(3);
        assertEquals(CapacityReport.Band.BELOW, ft.band());
        assertEquals("team-llm", ft.owner());
        // 0.30 on 4 cards; for the 6 hours the notebook held one of them, the same tokens on 3
        assertEquals(0.30 * 4 * 168 / (162 * 4 + 6 * 3), ft.effectiveRatio(), 0.002, md);
        assertEquals(CapacityReport.Band.SERVING, r.worstTasks().get(0).band());

        // the fine-tune's rented H100s: 2.50 over 0.9894 PFLOP/s at its ratio
        CapacityReport.ComputeCost rented = r.computeCosts().stream().filter(c -> c.pool().equals("rented"))
                .findFirst().orElseThrow();
        assertEquals(2.50 / (0.9894 * ft.effectiveRatio()), rented.costPerEffectivePflopHour(), 0.05, md);

        // a week goes by day; the pile-up of day 2 is its longest wait
        CapacityReport.QueueTrend training = r.queues().stream().filter(q -> q.queue().equals("training"))
                .findFirst().orElseThrow();
        assertEquals(7, training.buckets().size(), md);
        CapacityReport.Bucket day2 = training.buckets().get(1);
        for (CapacityReport.Bucket other : training.buckets()) {
            assertTrue(other == day2 || other.maxWaitS() < day2.maxWaitS(), md);
        }
        // waiting tasks each asked for 8 cards; the notebooks' one card at a time covered an eighth of them
        CapacityReport.WhatIf whatIf = r.whatIf().stream().filter(w -> w.queue().equals("training")).findFirst()
                .orElseThrow();
        assertEquals(15.0, whatIf.reclaimableCardHours(), 0.1, md);
        assertTrue(whatIf.coverableTaskHours() > 5.0 / 8 && whatIf.coverableTaskHours() <= 15.0 / 8, md);
        assertTrue(whatIf.share() > 0 && whatIf.share() < 0.2, md);
    }
}
