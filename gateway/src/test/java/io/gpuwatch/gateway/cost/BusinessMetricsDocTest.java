package io.gpuwatch.gateway.cost;

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
        List<CardInfo> infos = new ArrayList<>();
        for (int i = 0; i < cards; i++) {
            infos.add(new CardInfo(node + "-GPU-" + i, i, H100, null, null, null, null, null));
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
}
