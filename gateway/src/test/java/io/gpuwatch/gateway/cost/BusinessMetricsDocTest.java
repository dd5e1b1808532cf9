package io.gpuwatch.gateway.cost;

import io.gpuwatch.gateway.capacity.CapacityReport;
import io.gpuwatch.gateway.capacity.UsageSampler;
import io.gpuwatch.gateway.replay.Replay;
import io.gpuwatch.gateway.state.QueueState;
import io.gpuwatch.gateway.state.TaskState;
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
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every worked example of docs/business-metrics.md, run through the gateway's code: the bold results hold. */
class BusinessMetricsDocTest {
    private static final Path DOC = Path.of("../docs/business-metrics.md");
    private static final long T0 = 1_767_571_200_000L;
    private static final String H100 = "NVIDIA H100 80GB HBM3";
    private static final String A100 = "NVIDIA A100-SXM4-80GB";

    private static String doc() throws IOException {
        return Files.readString(DOC);
    }

    /** The result as the page writes it, bold, with {@code decimals} places. */
    private static void documented(double value, int decimals) throws IOException {
        String bold = "**" + String.format(Locale.ROOT, "%." + decimals + "f", value) + "**";
        assertTrue(doc().contains(bold), DOC + " does not give " + bold);
    }

    private static Pricing pricing() throws IOException {
        String doc = doc();
        int start = doc.indexOf("```yaml\n") + 8;
        PricingFile.Load load = PricingFile.parse(DOC + " (yaml)", doc.substring(start, doc.indexOf("```", start)));
        assertTrue(load.ok(), load.errors().toString());
        return load.pricing();
    }

    @Test
    void aCardHourByModelAndPool() throws IOException {
        Pricing p = pricing();
        double[] prices = {
                p.perCardHour("chat", "cloud-on-demand", H100), p.perCardHour("chat", "owned", H100),
                p.perCardHour("chat", "owned", A100), p.perCardHour("chat", "reserved", A100),
                p.perCardHour("chat", null, H100), p.perCardHour("research", "cloud-on-demand", H100)};
        assertEquals(List.of(6.98, 1.10, 0.90, 2.00, 3.50, 1.20), java.util.Arrays.stream(prices).boxed().toList());
        String doc = doc();
        List<String> rows = new ArrayList<>();
        for (String line : doc.substring(doc.indexOf("| card |"), doc.indexOf("## Cost per million")).split("\n")) {
            if (line.startsWith("| NVIDIA")) {
                String[] cells = line.split("\\|");
                rows.add(cells[cells.length - 1].strip());
            }
        }
        assertEquals(List.of("**6.98**", "**1.10**", "**0.90**", "**2.00**", "**3.50**", "**1.20**"), rows,
                "the table's prices, in the same order");
    }

    private static RuleSet rules() {
        RuleLoad load = RuleSet.parse("b.yml", """
                group: b
                layer: business
                severity: notice
                rules:
                  - name: reads-cost
                    scope: task
                    when: costPerMTokens > 1000 || avg(idle, 1m) > 2
                  - name: reads-compute
                    scope: task
                    when: >-
                      avg(effectiveComputeRatio, 1h) > 100 || computeRatioMismatch > 1
                      || hardwareComputeRatio > 2 || achievedFlops < 0
                  - name: reads-queue
                    scope: queue
                    when: allocationRate > 2 || usedCards > 100 || usedOfAllocated > 2
                """);
        assertTrue(load.ok(), load.diagnostics()::toString);
        return load.ruleSet();
    }

    private static double series(RuleSet rules, String name, io.gpuwatch.rules.scope.ScopeView scope) {
        return series(rules, name, scope, 0);
    }

    /** The latest value of a series, or with {@code avgMs} its average over that window. */
    private static double series(RuleSet rules, String name, io.gpuwatch.rules.scope.ScopeView scope, long avgMs) {
        int id = rules.series().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow().id();
        return avgMs > 0 ? scope.series(id).avg(avgMs) : scope.series(id).last();
    }

    private static Hello hello(String node, String pool, int cards) {
        return hello(node, pool, cards, H100);
    }

    private static Hello hello(String node, String pool, int cards, String model) {
        List<CardInfo> infos = new ArrayList<>();
        for (int i = 0; i < cards; i++) {
            infos.add(new CardInfo(node + "-GPU-" + i, i, model, null, null, null, null, null));
        }
        return new Hello(1, node, "b1", "test", null, null, pool == null ? Map.of() : Map.of("pool", pool), infos);
    }

    private static CardReading card(String uuid, double util, String task) {
        return new CardReading(uuid, MetricValues.builder().set(Metric.GPU_UTIL, util).build(),
                List.of(new ProcessInfo(7, null, task, "ana", "chat")));
    }

    private static double costPerMTokens(String pool) throws IOException {
        RuleSet rules = rules();
        Replay replay = new Replay(rules, 1000, s -> { });
        replay.fleet().usePricing(pricing());
        replay.feed("n1", hello("n1", pool, 2), T0);
        replay.feed("n1", new Sample(1, T0, List.of(card("n1-GPU-0", 90, "chat-serve"),
                card("n1-GPU-1", 90, "chat-serve"))), T0);
        replay.feed("n1", new App(2, T0, "chat-serve", "chat", "vllm", MetricValues.builder()
                .set(Metric.TOKENS_PER_SEC, 2500).build()), T0);
        TaskState task = replay.fleet().tasks().stream().filter(t -> t.name().equals("chat-serve")).findFirst()
                .orElseThrow();
        return series(rules, "costPerMTokens", task.at(T0));
    }

    @Test
    void costPerMillionTokens() throws IOException {
        double cloud = costPerMTokens("cloud-on-demand");
        assertEquals(13.96 * 1e6 / (3600 * 2500), cloud, 1e-5);
        documented(cloud, 4);
        double owned = costPerMTokens("owned");
        assertEquals(2.20 * 1e6 / (3600 * 2500), owned, 1e-5);
        documented(owned, 4);
    }

    @Test
    void idleRatio() throws IOException {
        RuleSet rules = rules();
        Replay replay = new Replay(rules, 1000, s -> { });
        replay.feed("n1", hello("n1", null, 4), T0);
        replay.feed("n1", new Sample(1, T0, List.of(card("n1-GPU-0", 80, "ft-7b"), card("n1-GPU-1", 3, "ft-7b"),
                card("n1-GPU-2", 0, "ft-7b"), card("n1-GPU-3", 60, "ft-7b"))), T0);
        TaskState task = replay.fleet().tasks().stream().filter(t -> t.name().equals("ft-7b")).findFirst()
                .orElseThrow();
        double ratio = series(rules, "idle", task.at(T0), 60_000);
        assertEquals(0.5, ratio, 1e-12);
        documented(ratio, 1);
        double idleCost = ratio * task.cards().size() * pricing().perCardHour("chat", null, H100);
        assertEquals(7.00, idleCost, 1e-9);
        documented(idleCost, 2);
    }

    @Test
    void requestedAgainstUsedPerQueue() throws IOException {
        RuleSet rules = rules();
        Replay replay = new Replay(rules, 1000, s -> { });
        replay.feed("n1", hello("n1", null, 4), T0);
        replay.feed("n1", new Sample(1, T0, List.of(card("n1-GPU-0", 80, "slurm-1"), card("n1-GPU-1", 2, "slurm-1"),
                card("n1-GPU-2", 50, "slurm-2"))), T0);
        replay.feed("slurmctl", new Sched(0, T0, "gpu", MetricValues.builder().set(Metric.CARDS_ALLOCATED, 4)
                .set(Metric.CARDS_TOTAL, 8).build(), List.of(
                new SchedTask("slurm-1", "alice", "chat", List.of(), "running", 2),
                new SchedTask("slurm-2", "bob", "search", List.of(), "running", 2))), T0);
        QueueState q = replay.fleet().queue("gpu").at(T0);
        double allocation = series(rules, "allocationRate", q);
        double used = series(rules, "usedCards", q);
        double usedOfAllocated = series(rules, "usedOfAllocated", q);
        assertEquals(0.5, allocation, 1e-12);
        assertEquals(2, used);
        assertEquals(0.5, usedOfAllocated, 1e-12);
        documented(allocation, 1);
        documented(used, 0);
        documented(usedOfAllocated, 1);
    }

    private static CardReading card(String uuid, double util, String task, double tensorActive, double memGiB) {
        MetricValues.Builder v = MetricValues.builder().set(Metric.GPU_UTIL, util)
                .set(Metric.MEM_USED_BYTES, memGiB * GIB);
        if (!Double.isNaN(tensorActive)) {
            v.set(Metric.TENSOR_ACTIVE, tensorActive);
        }
        return new CardReading(uuid, v.build(), List.of(new ProcessInfo(7, null, task, "ana", "chat")));
    }

    private static final double GIB = 1024.0 * 1024 * 1024;

    private static TaskState task(Replay replay, String name) {
        return replay.fleet().tasks().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
    }

    private static Sched listing(long ts, SchedTask... tasks) {
        return new Sched(0, ts, "gpu", MetricValues.empty(), List.of(tasks));
    }

    private static SchedTask modelled(String task, int cards, double params, String workload, String precision,
                                      Double flopsPerSample) {
        return new SchedTask(task, "ana", "chat", List.of(), "running", cards, null, null,
                new SchedTask.Model(params, workload, precision, flopsPerSample));
    }

    /** A task of {@code cards} cards of {@code model} at tensorActive {@code tensor}, one app frame of its output. */
    private static TaskState computeTask(RuleSet rules, String model, int cards, SchedTask listing, double tensor,
                                         MetricValues app) {
        Replay replay = new Replay(rules, 1000, s -> { });
        replay.feed("n1", hello("n1", null, cards, model), T0);
        List<CardReading> readings = new ArrayList<>();
        for (int i = 0; i < cards; i++) {
            readings.add(card("n1-GPU-" + i, 95, listing.task(), tensor, 60));
        }
        replay.feed("n1", new Sample(1, T0, readings), T0);
        replay.feed("slurmctl", listing(T0, listing), T0);
        replay.feed("n1", new App(2, T0, listing.task(), "chat", "job", app), T0);
        return task(replay, listing.task()).at(T0);
    }

    @Test
    void effectiveComputeRatioOfTrainingInferenceAndSamples() throws IOException {
        RuleSet rules = rules();
        TaskState pretrain = computeTask(rules, H100, 8, modelled("pretrain-8b", 8, 8.03e9, "training", "bf16", null),
                0.45, MetricValues.builder().set(Metric.TOKENS_PER_SEC, 65_000).build());
        // windows keep single precision: 7 significant digits
        assertEquals(3.1317e15, series(rules, "achievedFlops", pretrain), 1e9);
        double training = series(rules, "effectiveComputeRatio", pretrain);
        assertEquals(3.1317e15 / 7.9152e15, training, 1e-7);
        documented(training, 3);
        assertTrue(training >= 0.38 && training <= 0.55, "inside the published band, as the page says");
        assertEquals(0.45, series(rules, "hardwareComputeRatio", pretrain), 1e-7);
        assertEquals(0, series(rules, "computeRatioMismatch", pretrain));
        documented(series(rules, "computeRatioMismatch", pretrain), 0);

        TaskState misdeclared = computeTask(rules, H100, 8, modelled("pretrain-8b", 8, 8.03e8, "training", "bf16",
                null), 0.45, MetricValues.builder().set(Metric.TOKENS_PER_SEC, 65_000).build());
        assertEquals(1, series(rules, "computeRatioMismatch", misdeclared), "a digit lost in N is flagged");
        documented(series(rules, "computeRatioMismatch", misdeclared), 0);

        TaskState serve = computeTask(rules, H100, 4, modelled("chat-serve", 4, 70.6e9, "inference", "fp8", null),
                Double.NaN, MetricValues.builder().set(Metric.TOKENS_PER_SEC, 2_500).build());
        double inference = series(rules, "effectiveComputeRatio", serve);
        assertEquals(3.53e14 / (4 * 1978.9e12), inference, 1e-7);
        documented(inference, 3);

        TaskState vision = computeTask(rules, A100, 4, modelled("vit", 4, 3e8, "training", "bf16", 1.2e13),
                0.4, MetricValues.builder().set(Metric.SAMPLES_PER_SEC, 40).set(Metric.TOKENS_PER_SEC, 9e9).build());
        double samples = series(rules, "effectiveComputeRatio", vision);
        assertEquals(4.8e14 / 1.248e15, samples, 1e-7, "samples × FLOPs per sample, not the tokens");
        documented(samples, 3);

        TaskState fp8OnA100 = computeTask(rules, A100, 4, modelled("a100-fp8", 4, 7e9, "inference", "fp8", null),
                0.4, MetricValues.builder().set(Metric.TOKENS_PER_SEC, 1000).build());
        assertTrue(Double.isNaN(series(rules, "effectiveComputeRatio", fp8OnA100)), "the A100 has no fp8 peak");
    }

    @Test
    void effectiveComputeOfATaskWhoseCardsChangeMidWindow() throws IOException {
        RuleSet rules = rules();
        Replay replay = new Replay(rules, 1000, s -> { });
        replay.feed("n1", hello("n1", null, 4), T0);
        SchedTask ft = modelled("ft-8b", 4, 8.03e9, "training", "bf16", null);
        long seq = 1;
        double first = Double.NaN;
        double second = Double.NaN;
        for (int minute = 0; minute < 60; minute++) {
            long ts = T0 + minute * 60_000L;
            int held = minute < 30 ? 2 : 4;
            List<CardReading> readings = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                readings.add(i < held ? card("n1-GPU-" + i, 90, "ft-8b", 0.2, 40)
                        : new CardReading("n1-GPU-" + i, MetricValues.builder().set(Metric.GPU_UTIL, 0).build(),
                        List.of()));
            }
            replay.feed("n1", new Sample(seq++, ts, readings), ts);
            replay.feed("slurmctl", listing(ts, ft), ts);
            replay.feed("n1", new App(seq++, ts, "ft-8b", "chat", "job",
                    MetricValues.builder().set(Metric.TOKENS_PER_SEC, 10_000).build()), ts);
            TaskState t = task(replay, "ft-8b").at(ts);
            assertEquals(held, t.cards().size());
            assertEquals(held / 4.0, t.requestedVsUsed(), 1e-12, "busy cards over the 4 requested");
            if (minute == 0) {
                first = series(rules, "effectiveComputeRatio", t);
            } else if (minute == 30) {
                second = series(rules, "effectiveComputeRatio", t);
            }
        }
        assertEquals(4.818e14 / (2 * 989.4e12), first, 1e-7);
        assertEquals(first / 2, second, 1e-7, "twice the cards from the frame they join");
        long end = T0 + 59 * 60_000L;
        double hour = series(rules, "effectiveComputeRatio", task(replay, "ft-8b").at(end), 3_600_000L);
        assertEquals((first + second) / 2, hour, 1e-7);
        documented(hour, 3);
    }

    @Test
    void requestedAgainstUsedPerTaskAndBusiness() throws IOException {
        RuleSet rules = rules();
        Replay replay = new Replay(rules, 1000, s -> { });
        replay.feed("n1", hello("n1", null, 6), T0);
        replay.feed("n1", new Sample(1, T0, List.of(card("n1-GPU-0", 80, "ft-7b", Double.NaN, 30),
                card("n1-GPU-1", 3, "ft-7b", Double.NaN, 2), card("n1-GPU-2", 0, "ft-7b", Double.NaN, 1),
                card("n1-GPU-3", 60, "ft-7b", Double.NaN, 27), card("n1-GPU-4", 70, "chat-serve", Double.NaN, 70),
                card("n1-GPU-5", 75, "chat-serve", Double.NaN, 70))), T0);
        replay.feed("slurmctl", listing(T0,
                new SchedTask("ft-7b", "ana", "chat", List.of(), "running", 8, (long) (320 * GIB), null, null),
                new SchedTask("chat-serve", "bo", "chat", List.of(), "running", 2, null, null, null)), T0);
        TaskState ft = task(replay, "ft-7b").at(T0);
        assertEquals(0.25, ft.requestedVsUsed(), 1e-12);
        documented(ft.requestedVsUsed(), 2);
        assertEquals(0.1875, ft.memRequestedVsUsed(), 1e-12);
        documented(ft.memRequestedVsUsed(), 4);
        io.gpuwatch.gateway.state.BusinessState chat = replay.fleet().businesses(T0).stream()
                .filter(b -> b.name().equals("chat")).findFirst().orElseThrow();
        assertEquals(0.4, chat.requestedVsUsed(), 1e-12);
        documented(chat.requestedVsUsed(), 1);
    }

    @Test
    void taskSuccessRateCountsEachRunOnce() throws IOException {
        RuleSet rules = rules();
        Replay replay = new Replay(rules, 1000, s -> { });
        List<SchedTask> ended = new ArrayList<>();
        String[] states = {"completed", "completed", "completed", "completed", "completed", "completed", "completed",
                "failed", "timeout", "cancelled"};
        for (int i = 0; i < states.length; i++) {
            ended.add(new SchedTask("job-" + i, "ana", "research", List.of(), states[i], 1));
        }
        // Slurm keeps listing an ended job for a while: every listing after the first repeats its outcome
        for (int k = 0; k < 3; k++) {
            long ts = T0 + k * 30_000L;
            replay.feed("slurmctl", listing(ts, ended.toArray(SchedTask[]::new)), ts);
        }
        long at = T0 + 60_000L;
        io.gpuwatch.gateway.state.BusinessState research = replay.fleet().businesses(at).stream()
                .filter(b -> b.name().equals("research")).findFirst().orElseThrow();
        assertEquals(9, research.tasksEnded(24 * 3_600_000L));
        double rate = research.taskSuccessRate(24 * 3_600_000L);
        assertEquals(7 / 9.0, rate, 1e-12);
        documented(rate, 3);
        assertEquals(List.of(9, 7), java.util.Arrays.stream(replay.fleet().ownerOutcomes("ana", at, 3_600_000L))
                .boxed().toList());
        // requeued: it runs again, then fails; a second run of the same task counts
        replay.feed("slurmctl", listing(at, new SchedTask("job-0", "ana", "research", List.of(), "running", 1)), at);
        replay.feed("slurmctl", listing(at + 1000, new SchedTask("job-0", "ana", "research", List.of(), "running", 1,
                null, "failed", null)), at + 1000);
        TaskState job0 = task(replay, "job-0").at(at + 2000);
        assertEquals(2, job0.tasksEnded(3_600_000L));
        assertEquals(0.5, job0.taskSuccessRate(3_600_000L), 1e-12);
    }

    /**
     * {@code task} reporting {@code tokens} a second for an hour on {@code held(minute)} of 8 H100 cards of a node in
     * {@code pool}, sampled into the usage history each minute, and the capacity report over that hour.
     */
    private static CapacityReport hourOnPool(String pool, SchedTask listing, double tokens,
                                             java.util.function.IntUnaryOperator held) throws IOException {
        RuleSet rules = rules();
        Replay replay = new Replay(rules, 1000, s -> { });
        replay.fleet().usePricing(pricing());
        UsageSampler sampler = new UsageSampler(replay.fleet(), n -> true, 60_000L);
        replay.feed("n1", hello("n1", pool, 8), T0);
        CapacityReport.Builder report = new CapacityReport.Builder(T0, T0 + 3_600_000L, "USD");
        long seq = 1;
        for (int minute = 0; minute <= 60; minute++) {
            long ts = T0 + minute * 60_000L;
            List<CardReading> readings = new ArrayList<>();
            for (int i = 0; i < held.applyAsInt(minute); i++) {
                readings.add(card("n1-GPU-" + i, 90, listing.task()));
            }
            replay.feed("n1", new Sample(seq++, ts, readings), ts);
            replay.feed("slurmctl", listing(ts, listing), ts);
            replay.feed("n1", new App(seq++, ts, listing.task(), "chat", "job",
                    MetricValues.builder().set(Metric.TOKENS_PER_SEC, tokens).build()), ts);
            UsageSampler.Minute m = sampler.sample(ts);
            m.usage().forEach(report::add);
        }
        return report.build();
    }

    @Test
    void costPerEffectivePflopHour() throws IOException {
        SchedTask pretrain = modelled("pretrain-8b", 8, 8.03e9, "training", "bf16", null);
        double ratio = 65_000 * 6 * 8.03e9 / (8 * 989.4e12);
        double owned = hourOnPool("owned", pretrain, 65_000, m -> 8).computeCosts().get(0)
                .costPerEffectivePflopHour();
        assertEquals(1.10 / (0.9894 * ratio), owned, 1e-9);
        documented(owned, 2);
        double cloud = hourOnPool("cloud-on-demand", pretrain, 65_000, m -> 8).computeCosts().get(0)
                .costPerEffectivePflopHour();
        assertEquals(6.98 / (0.9894 * ratio), cloud, 1e-9);
        documented(cloud, 2);
    }

    @Test
    void theCapacityReportWeighsEffectiveComputeByCardHours() throws IOException {
        SchedTask ft = modelled("ft-8b", 4, 8.03e9, "training", "bf16", null);
        CapacityReport r = hourOnPool("owned", ft, 10_000, m -> m <= 30 ? 2 : 4);
        double ratio = r.worstTasks().get(0).effectiveRatio();
        assertEquals(4.818e14 / (2 * 989.4e12 * 0.5 + 4 * 989.4e12 * 0.5), ratio, 1e-9);
        documented(ratio, 3);
        double cost = r.computeCosts().get(0).costPerEffectivePflopHour();
        assertEquals(3 * 1.10 / 0.4818, cost, 1e-9, "3 card-hours at 1.10 over 0.4818 PFLOP-hours");
        documented(cost, 2);
    }
}
