package io.gpuwatch.rules.dsl;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.eval.AlertState;
import io.gpuwatch.rules.eval.RuleEngine;
import io.gpuwatch.rules.scope.FakeScope;
import io.gpuwatch.rules.scope.ScopeKind;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** idle, effectiveComputeRatio and costPerToken read like metrics, derived from the readings of one instant. */
class DerivedMetricsTest {
    private static RuleLoad load(String scope, String when) {
        return RuleSet.parse("d.yml", "group: g\nlayer: business\nseverity: inspect\nscope: " + scope
                + "\nrules:\n  - name: r\n    when: \"" + when + "\"\n");
    }

    private static RuleSet rules(String scope, String when) {
        RuleLoad l = load(scope, when);
        assertTrue(l.ok(), l.diagnostics()::toString);
        return l.ruleSet();
    }

    private static Rule rule(RuleSet set) {
        return set.rules().get(0);
    }

    private static Map<Metric, Double> reading(double util, double smActive) {
        Map<Metric, Double> m = new HashMap<>();
        m.put(Metric.GPU_UTIL, util);
        if (!Double.isNaN(smActive)) {
            m.put(Metric.SM_ACTIVE, smActive);
        }
        return m;
    }

    @Test
    void idleIsAllocatedAndBelowFivePercentAndItsMeanIsTheShareOfTime() {
        RuleSet set = rules("card", "avg(idle, 4s) >= 0.5");
        FakeScope card = FakeScope.card(set, "n1", "GPU-1");
        card.allocated(true).sample(0, reading(2, Double.NaN)).sample(1000, reading(3, Double.NaN));
        card.allocated(false).sample(2000, reading(1, Double.NaN));
        card.allocated(true).sample(3000, reading(60, Double.NaN));
        // idle at 0 and 1 s; at 2 s nothing held the card; at 3 s it computed
        int idle = set.seriesId("idle");
        assertEquals(0.5, card.series(idle).avg(4000), 1e-9);
        assertTrue(rule(set).test(card));
        card.allocated(true).sample(4000, reading(90, Double.NaN));
        assertFalse(rule(set).test(card.at(4000)));
    }

    @Test
    void smActiveOfBusyIsSmActivityPerBusyTimeAndUnknownWithoutGpmOrWork() {
        RuleSet set = rules("card", "smActiveOfBusy < 0.3");
        FakeScope card = FakeScope.card(set, "n1", "GPU-1").allocated(true);
        int id = set.seriesId("smActiveOfBusy");
        card.sample(0, reading(100, 0.25));
        assertEquals(0.25, card.series(id).last(), 1e-9);
        assertTrue(rule(set).test(card));
        card.sample(1000, reading(50, 0.5));
        assertEquals(1.0, card.series(id).last(), 1e-9, "half busy, and every SM working while busy");
        card.sample(2000, reading(80, 0.9));
        assertEquals(1.0, card.series(id).last(), 1e-9, "capped at 1");
        card.sample(3000, reading(0, 0.0));
        assertEquals(3, card.series(id).count(10_000), "an idle card has no ratio: no sample is added");
        assertEquals(0.75, card.series(id).avg(10_000), 1e-9, "the mean of the ratios that were known");
        FakeScope noGpm = FakeScope.card(set, "n1", "GPU-2").allocated(true);
        noGpm.sample(0, reading(100, Double.NaN)).sample(1000, reading(100, Double.NaN));
        assertEquals(0, noGpm.series(id).count(10_000), "a card without GPM has no ratio");
        assertFalse(rule(set).test(noGpm));
    }

    @Test
    void costPerTokenPricesTheTasksCardsPerTokenItServes() {
        RuleSet set = rules("task", "costPerToken > 0.00001");
        FakeScope a = FakeScope.card(set, "n1", "GPU-a").cardHourPrice(3.6);
        FakeScope b = FakeScope.card(set, "n1", "GPU-b").cardHourPrice(7.2);
        FakeScope unpriced = FakeScope.card(set, "n1", "GPU-c");
        FakeScope task = new FakeScope(set.series(), Map.of("task", "chat")).members(List.of(a, b, unpriced));
        task.sample(0, Map.of(Metric.TOKENS_PER_SEC, 1000.0));
        // (3.6 + 7.2) per hour = 0.003 per second, over 1000 tokens per second
        assertEquals(3e-6, task.series(set.seriesId("costPerToken")).last(), 1e-15);
        assertFalse(rule(set).test(task));
        task.sample(1000, Map.of(Metric.TOKENS_PER_SEC, 100.0));
        assertTrue(rule(set).test(task));
        task.sample(2000, Map.of(Metric.TOKENS_PER_SEC, 0.0));
        assertEquals(2, task.series(set.seriesId("costPerToken")).count(10_000), "no tokens, no price per token");
        FakeScope free = new FakeScope(set.series(), Map.of("task", "t")).members(List.of(unpriced));
        free.sample(0, Map.of(Metric.TOKENS_PER_SEC, 1000.0));
        assertEquals(0, free.series(set.seriesId("costPerToken")).count(10_000), "no price configured");
        assertFalse(rule(set).test(free));
    }

    @Test
    void costPerTokenSeriesIsFedByAppFramesAndItsBaselineIsLearned() {
        RuleSet set = rules("business", "avg(costPerToken, 1h) > baseline(costPerToken).upper(2)");
        assertEquals(Metric.Source.APP, set.series().get(set.seriesId("costPerToken")).source());
        assertTrue(set.baselined().contains("costPerToken"));
        assertEquals(Metric.Source.CARD, rules("task", "avg(idle, 5m) > 0.5").series()
                .get(rules("task", "avg(idle, 5m) > 0.5").seriesId("idle")).source());
    }

    @Test
    void eachDerivedMetricIsRefusedWhereItsFramesDoNotReach() {
        assertTrue(load("card", "costPerToken > 0").diagnostics().toString().contains(
                "`costPerToken` is an application metric, read in task, replica or business scope, not card"));
        assertTrue(load("queue", "avg(idle, 5m) > 0").diagnostics().toString().contains(
                "`idle` is a card metric"));
        assertTrue(load("card", "idle(5m) > 0").diagnostics().toString().contains("`idle` is not a function"));
        assertTrue(load("task", "avg(effectiveComputeRatoi, 5m) < 1").diagnostics().toString()
                .contains("did you mean `effectiveComputeRatio`?"));
        assertTrue(load("card", "effectiveComputeRatio < 0.3").diagnostics().toString().contains(
                "`effectiveComputeRatio` is an application metric, read in task, replica or business scope, not card"));
        assertTrue(load("card", "requestedVsUsed < 0.5").diagnostics().toString().contains(
                "`requestedVsUsed` compares what a task's scheduler listing requested with what it uses, so it needs "
                        + "task or business scope, not card"));
        assertTrue(load("queue", "taskSuccessRate(1h) < 0.5").diagnostics().toString().contains(
                "needs task or business scope, not queue"));
        assertTrue(load("task", "taskSuccessRate(1h, 2h) < 0.5").diagnostics().toString().contains(
                "`taskSuccessRate` takes 1 arguments (window), got 2"));
    }

    @Test
    void effectiveComputeRatioIsModelFlopsOverThePeakOfTheCardsHeld() {
        RuleSet set = rules("task", "effectiveComputeRatio < 0.3 || computeRatioMismatch == 1 || achievedFlops < 1"
                + " || hardwareComputeRatio < 0.01");
        FakeScope h100 = FakeScope.card(set, "n1", "GPU-a");
        FakeScope other = FakeScope.card(set, "n1", "GPU-b");
        h100.sample(0, Map.of(Metric.TENSOR_ACTIVE, 0.5, Metric.SM_ACTIVE, 0.9));
        other.sample(0, Map.of(Metric.SM_ACTIVE, 0.3));
        // a 7e9-parameter model served: 2 × 7e9 = 1.4e10 FLOPs per token; two cards of 989.4e12 FLOP/s each
        FakeScope task = new FakeScope(set.series(), Map.of("task", "svc")).members(List.of(h100, other))
                .compute(1.4e10, Double.NaN, 2 * 989.4e12);
        task.sample(0, Map.of(Metric.TOKENS_PER_SEC, 50_000.0));
        assertEquals(7e14, task.series(set.seriesId("achievedFlops")).last(), 1);
        assertEquals(7e14 / 1.9788e15, task.series(set.seriesId("effectiveComputeRatio")).last(), 1e-12);
        // tensorActive 0.5 on one card, smActive 0.3 on the one without: 0.4, within a factor 2 of 0.354
        assertEquals(0.4, task.series(set.seriesId("hardwareComputeRatio")).last(), 1e-12);
        assertEquals(0, task.series(set.seriesId("computeRatioMismatch")).last());
        task.sample(1000, Map.of(Metric.TOKENS_PER_SEC, 5_000.0));
        assertEquals(1, task.series(set.seriesId("computeRatioMismatch")).last(), "0.035 against 0.4: flagged");
        task.compute(1.4e10, 1e12, 2 * 989.4e12).sample(2000, Map.of(Metric.TOKENS_PER_SEC, 5_000.0,
                Metric.SAMPLES_PER_SEC, 100.0));
        assertEquals(1e14, task.series(set.seriesId("achievedFlops")).last(), 1, "samples × FLOPs per sample first");
        FakeScope unknown = new FakeScope(set.series(), Map.of("task", "t")).members(List.of(h100))
                .compute(1.4e10, Double.NaN, Double.NaN);
        unknown.sample(0, Map.of(Metric.TOKENS_PER_SEC, 50_000.0));
        assertEquals(0, unknown.series(set.seriesId("effectiveComputeRatio")).count(10_000),
                "a card the peak table lacks: no ratio, never 0");
        assertEquals(Metric.Source.APP, set.series().get(set.seriesId("effectiveComputeRatio")).source());
    }

    @Test
    void requestedVsUsedAndTaskOutcomesReadTheScopeAtEvaluation() {
        RuleSet set = rules("business", "requestedVsUsed < 0.5 && tasksEnded(1h) >= 2 && taskSuccessRate(1h) < 0.6");
        FakeScope b = new FakeScope(set.series(), Map.of("business", "chat")).requestedVsUsed(0.25)
                .ended(0, true).at(2000);
        assertFalse(rule(set).test(b), "one task ended: too few to judge");
        b.ended(1000, false).ended(1500, false).at(2000);
        assertTrue(rule(set).test(b), "1 of 3 succeeded");
        assertFalse(rule(set).test(b.at(3_600_000 + 1200)), "two of them are older than the hour");
    }

    @Test
    void consecutiveCountsPeriodsOfTheScopeNotEvaluationsWithinOne() {
        RuleSet set = rules("queue", "consecutive(waitP50s > 300, 3)");
        RuleEngine engine = new RuleEngine(set);
        FakeScope queue = new FakeScope(set.series(), Map.of("queue", "q"));
        long t = 0;
        for (int report = 1; report <= 3; report++) {
            queue.period(report).sample(t, Map.of(Metric.WAIT_P50_S, 400.0));
            // a report a minute, evaluated on every 1 s tick in between
            for (int tick = 0; tick < 60; tick++, t += 1000) {
                engine.evaluate(ScopeKind.QUEUE, "queue/q", queue.at(t), x -> { });
                AlertState expected = report < 3 ? AlertState.INACTIVE : AlertState.FIRING;
                assertEquals(expected, engine.state("r", "queue/q"), "report " + report + ", tick " + tick);
            }
        }
    }
}
