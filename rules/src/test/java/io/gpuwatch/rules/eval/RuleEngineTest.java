package io.gpuwatch.rules.eval;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.scope.FakeScope;
import io.gpuwatch.rules.scope.ScopeKind;
import io.gpuwatch.rules.source.Diagnostic;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The per-instance state machine, driven by a fake scope whose clock the test sets. */
class RuleEngineTest {
    private static final String KEY = "card/n1/GPU-1";
    private final List<Transition> out = new ArrayList<>();

    private static RuleSet rules(String rulesYaml) {
        RuleLoad load = RuleSet.parse("e.yml", "group: g\nlayer: device\nseverity: page\nrules:\n" + rulesYaml);
        assertTrue(load.ok(), load.diagnostics()::toString);
        return load.ruleSet();
    }

    /** Evaluates at every second in [from, to) with the card allocated or not. */
    private void run(RuleEngine engine, FakeScope card, long fromMs, long toMs, boolean allocated) {
        card.allocated(allocated);
        for (long t = fromMs; t < toMs; t += 1000) {
            engine.evaluate(ScopeKind.CARD, KEY, card.at(t), out::add);
        }
    }

    private List<String> states() {
        return out.stream().map(t -> t.rule().name() + " " + t.from() + "->" + t.to() + " at " + t.at()
                + " since " + t.activeSince()).toList();
    }

    @Test
    void forFiresAtExactlyItsDurationAndNotOneMillisecondBefore() {
        RuleSet set = rules("  - name: held\n    when: allocated\n    for: 2m\n");
        RuleEngine engine = new RuleEngine(set);
        FakeScope card = FakeScope.card(set, "n1", "GPU-1").allocated(true);
        engine.evaluate(ScopeKind.CARD, KEY, card.at(1_000), out::add);
        engine.evaluate(ScopeKind.CARD, KEY, card.at(1_000 + 119_999), out::add);
        assertEquals(List.of("held INACTIVE->PENDING at 1000 since 1000"), states());
        engine.evaluate(ScopeKind.CARD, KEY, card.at(1_000 + 120_000), out::add);
        assertEquals(List.of("held INACTIVE->PENDING at 1000 since 1000",
                "held PENDING->FIRING at 121000 since 1000"), states());
        assertEquals(AlertState.FIRING, engine.state("held", KEY));
    }

    @Test
    void pendingThatStopsHoldingGoesBackToInactive() {
        RuleSet set = rules("  - name: held\n    when: allocated\n    for: 2m\n");
        RuleEngine engine = new RuleEngine(set);
        FakeScope card = FakeScope.card(set, "n1", "GPU-1");
        run(engine, card, 0, 60_000, true);
        run(engine, card, 60_000, 61_000, false);
        run(engine, card, 61_000, 62_000, true);
        assertEquals(List.of("held INACTIVE->PENDING at 0 since 0", "held PENDING->INACTIVE at 60000 since 0",
                "held INACTIVE->PENDING at 61000 since 61000"), states());
    }

    @Test
    void pendingListsOnlyTheAlertsWaitingOutTheirFor() {
        RuleSet set = rules("  - name: held\n    when: allocated\n    for: 2m\n");
        RuleEngine engine = new RuleEngine(set);
        FakeScope card = FakeScope.card(set, "n1", "GPU-1");
        assertEquals(List.of(), engine.pending());
        run(engine, card, 0, 60_000, true);
        List<Transition> waiting = engine.pending();
        assertEquals(1, waiting.size());
        assertEquals("held", waiting.get(0).rule().name());
        assertEquals(0, waiting.get(0).activeSince());
        assertEquals("GPU-1", waiting.get(0).labels().get("uuid"));
        run(engine, card, 60_000, 121_000, true);
        assertEquals(AlertState.FIRING, engine.state("held", KEY));
        assertEquals(List.of(), engine.pending(), "a firing alert is no longer pending");
    }

    @Test
    void aRuleTrueForTenMinutesThenFalseFiresOnceAndResolvesOnce() {
        RuleSet set = rules("  - name: ten\n    when: allocated\n    summary: \"@{node} busy\"\n");
        RuleEngine engine = new RuleEngine(set);
        FakeScope card = FakeScope.card(set, "n1", "GPU-1");
        run(engine, card, 0, 600_000, true);
        run(engine, card, 600_000, 900_000, false);
        assertEquals(List.of("ten INACTIVE->FIRING at 0 since 0", "ten FIRING->RESOLVED at 600000 since 0"), states());
        Transition firing = out.get(0);
        assertEquals(Map.of("alertname", "ten", "severity", "page", "layer", "device", "node", "n1",
                "uuid", "GPU-1"), firing.labels());
        assertEquals(List.of("alertname", "severity", "layer", "node", "uuid"), List.copyOf(firing.labels().keySet()));
        assertEquals("n1 busy", firing.summary());
        assertEquals("", firing.description());
    }

    @Test
    void keepFiringForHoldsThroughAShortDipAndResolvesAfterALongOne() {
        RuleSet set = rules("  - name: sticky\n    when: allocated\n    keep_firing_for: 1m\n");
        RuleEngine engine = new RuleEngine(set);
        FakeScope card = FakeScope.card(set, "n1", "GPU-1");
        run(engine, card, 0, 100_000, true);
        run(engine, card, 100_000, 130_000, false);
        run(engine, card, 130_000, 200_000, true);
        assertEquals(List.of("sticky INACTIVE->FIRING at 0 since 0"), states(), "a 30 s dip keeps it firing");
        run(engine, card, 200_000, 259_000, false);
        assertEquals(1, out.size(), "59 s into the second dip it still fires");
        run(engine, card, 259_000, 261_000, false);
        assertEquals(List.of("sticky INACTIVE->FIRING at 0 since 0", "sticky FIRING->RESOLVED at 260000 since 0"),
                states());
        run(engine, card, 261_000, 262_000, true);
        assertEquals("sticky RESOLVED->FIRING at 261000 since 261000", states().get(2), "a new episode");
    }

    @Test
    void keepFiringWhileHoldsAFaultOpenUntilTheCardShowsItRecovered() {
        RuleSet set = rules("  - name: lost\n    when: count(events('xid', 79), 2m) > 0\n"
                + "    keep_firing_while: absent(gpuUtil, 1m)\n    keep_firing_for: 10s\n");
        assertEquals("absent(gpuUtil, 1m)", set.rules().get(0).keepFiringWhile());
        RuleEngine engine = new RuleEngine(set);
        FakeScope card = FakeScope.card(set, "n1", "GPU-1");
        card.sample(0, Map.of(Metric.GPU_UTIL, 90.0));
        card.event(1_000, "xid", 79);
        run(engine, card, 1_000, 400_000, false);
        assertEquals(List.of("lost INACTIVE->FIRING at 1000 since 1000"), states(),
                "the XID aged out of its window at 121 s, but the card has sent nothing since");
        card.sample(400_000, Map.of(Metric.GPU_UTIL, 90.0));
        run(engine, card, 400_000, 409_000, false);
        assertEquals(1, out.size(), "keep_firing_for counts from the recovery");
        run(engine, card, 409_000, 411_000, false);
        assertEquals(List.of("lost INACTIVE->FIRING at 1000 since 1000", "lost FIRING->RESOLVED at 410000 since 1000"),
                states(), "its readings resumed 10 s ago (keep_firing_for) and `when` is false");
    }

    @Test
    void keepFiringWhileDoesNotStartAnAlertAndWaitsForKeepFiringFor() {
        RuleSet set = rules("  - name: lost\n    when: count(events('xid', 79), 2m) > 0\n"
                + "    keep_firing_while: absent(gpuUtil, 1m)\n    keep_firing_for: 3m\n");
        RuleEngine engine = new RuleEngine(set);
        FakeScope card = FakeScope.card(set, "n1", "GPU-1");
        run(engine, card, 0, 60_000, false);
        assertEquals(List.of(), states(), "a card that never reported is no fault without the XID");
        card.event(60_000, "xid", 79);
        for (long t = 60_000; t < 400_000; t += 1000) {
            card.sample(t, Map.of(Metric.GPU_UTIL, 90.0));
            engine.evaluate(ScopeKind.CARD, KEY, card.at(t), out::add);
        }
        assertEquals(List.of("lost INACTIVE->FIRING at 60000 since 60000", "lost FIRING->RESOLVED at 360000 since 60000"),
                states(), "the card reports all along: keep_firing_for alone decides, 3 minutes after the window");
    }

    @Test
    void keepFiringWhileIsCheckedWithItsPosition() {
        RuleLoad load = RuleSet.parse("e.yml", "group: g\nlayer: device\nseverity: page\nrules:\n"
                + "  - name: a\n    when: allocated\n    keep_firing_while: consecutive(allocated, 3)\n"
                + "  - name: b\n    when: allocated\n    keep_firing_while: gpuUtl > 1\n");
        assertEquals(List.of("e.yml:7:24: error: `consecutive` can only be used in `when`: `keep_firing_while` is "
                        + "evaluated only while the alert fires",
                "e.yml:10:24: error: unknown name `gpuUtl` (not a metric, label or builtin) (did you mean `gpuUtil`?)"),
                load.diagnostics().stream().map(Object::toString).toList());
    }

    @Test
    void staticLabelsJoinTheAlertLabels() {
        RuleSet set = rules("  - name: l\n    when: allocated\n    labels:\n      team: infra\n");
        RuleEngine engine = new RuleEngine(set);
        run(engine, FakeScope.card(set, "n1", "GPU-1"), 0, 1000, true);
        assertEquals("infra", out.get(0).labels().get("team"));
    }

    @Test
    void replaceKeepsTheStateOfSurvivingRules() {
        RuleSet first = rules("  - name: stays\n    when: allocated\n    for: 2m\n"
                + "  - name: goes\n    when: allocated\n");
        RuleEngine engine = new RuleEngine(first);
        FakeScope card = FakeScope.card(first, "n1", "GPU-1");
        run(engine, card, 0, 60_000, true);
        assertEquals(List.of("stays INACTIVE->PENDING at 0 since 0", "goes INACTIVE->FIRING at 0 since 0"), states());
        RuleSet next = rules("  - name: stays\n    when: allocated\n    for: 2m\n"
                + "  - name: arrives\n    when: allocated\n");
        engine.replace(next, 60_000, out::add);
        assertEquals("goes FIRING->RESOLVED at 60000 since 0", states().get(2), "the removed rule's alert resolves");
        assertEquals(3, out.size());
        out.clear();
        run(engine, FakeScope.card(next, "n1", "GPU-1"), 60_000, 121_000, true);
        assertEquals(List.of("arrives INACTIVE->FIRING at 60000 since 60000",
                "stays PENDING->FIRING at 120000 since 0"), states(), "the pending clock kept running");
        assertEquals(AlertState.INACTIVE, engine.state("goes", KEY));
    }

    @Test
    void aRemovedRulesAlertResolvesOnceWithTheLabelsItFiredWith() {
        RuleSet first = rules("  - name: goes\n    when: allocated\n    labels:\n      team: infra\n"
                + "    summary: \"@{node} busy\"\n");
        RuleEngine engine = new RuleEngine(first);
        run(engine, FakeScope.card(first, "n1", "GPU-1"), 0, 5000, true);
        RuleSet empty = rules("  - name: other\n    when: allocated\n");
        engine.replace(empty, 5000, out::add);
        engine.replace(rules("  - name: other\n    when: allocated\n"), 6000, out::add);
        assertEquals(List.of("goes INACTIVE->FIRING at 0 since 0", "goes FIRING->RESOLVED at 5000 since 0"), states());
        assertEquals(out.get(0).labels(), out.get(1).labels());
        assertEquals("n1 busy", out.get(1).summary());
    }

    @Test
    void aRuleThatChangesScopeResolvesItsOldInstances() {
        RuleSet cards = rules("  - name: moves\n    when: allocated\n");
        RuleEngine engine = new RuleEngine(cards);
        run(engine, FakeScope.card(cards, "n1", "GPU-1"), 0, 1000, true);
        engine.replace(rules("  - name: moves\n    scope: node\n    when: allocated\n"), 1000, out::add);
        assertEquals(List.of("moves INACTIVE->FIRING at 0 since 0", "moves FIRING->RESOLVED at 1000 since 0"),
                states(), "no node evaluation would ever resolve the card's alert");
    }

    @Test
    void countsSayHowManyInstancesAreInEachState() {
        RuleSet set = rules("  - name: held\n    when: allocated\n    for: 1m\n");
        RuleEngine engine = new RuleEngine(set);
        run(engine, FakeScope.card(set, "n1", "GPU-1"), 0, 61_000, true);
        engine.evaluate(ScopeKind.CARD, "card/n1/GPU-2", FakeScope.card(set, "n1", "GPU-2").allocated(true).at(0),
                out::add);
        Map<AlertState, Integer> counts = engine.counts("held");
        assertEquals(1, counts.get(AlertState.FIRING));
        assertEquals(1, counts.get(AlertState.PENDING));
        assertEquals(0, engine.counts("unknown").get(AlertState.FIRING));
    }

    @Test
    void aThrowingRuleIsReportedAndTheOthersStillFire() {
        RuleSet set = rules("  - name: broken\n    when: task == 'x'\n  - name: fine\n    when: allocated\n");
        RuleEngine engine = new RuleEngine(set);
        FakeScope card = FakeScope.card(set, "n1", "GPU-1").labelHook(k -> {
            if (k.equals("task")) {
                throw new IllegalStateException("attribution unavailable");
            }
            return null;
        });
        run(engine, card, 0, 1000, true);
        assertEquals(List.of("fine INACTIVE->FIRING at 0 since 0"), states());
        List<Diagnostic> errors = engine.runtimeErrors();
        assertEquals(1, errors.size());
        assertEquals("e.yml:6:11: error: rule `broken` on card/n1/GPU-1: when failed: IllegalStateException: "
                + "attribution unavailable", errors.get(0).toString());
        assertEquals(errors.get(0), engine.runtimeError("broken").orElseThrow(), "found by the rule's name");
        assertTrue(engine.runtimeError("fine").isEmpty());
    }

    @Test
    void forgetDropsAnInstancesState() {
        RuleSet set = rules("  - name: held\n    when: allocated\n    for: 2m\n");
        RuleEngine engine = new RuleEngine(set);
        FakeScope card = FakeScope.card(set, "n1", "GPU-1");
        run(engine, card, 0, 60_000, true);
        engine.forget(KEY);
        assertEquals(AlertState.INACTIVE, engine.state("held", KEY));
        out.clear();
        run(engine, card, 60_000, 61_000, true);
        assertEquals(List.of("held INACTIVE->PENDING at 60000 since 60000"), states());
    }

    @Test
    void onlyRulesOfTheEvaluatedScopeRun() {
        RuleSet set = rules("  - name: on-node\n    scope: node\n    when: silentFor > 30s\n"
                + "  - name: on-card\n    when: allocated\n");
        RuleEngine engine = new RuleEngine(set);
        FakeScope node = FakeScope.node(set, "n1").heard(0).allocated(true);
        engine.evaluate(ScopeKind.NODE, "node/n1", node.at(31_000), out::add);
        assertEquals(List.of("on-node INACTIVE->FIRING at 31000 since 31000"), states());
        assertEquals(Map.of("alertname", "on-node", "severity", "page", "layer", "device", "node", "n1"),
                out.get(0).labels());
    }

    @Test
    void aPendingAlertTakenBackFromACheckpointFiresAtItsOriginalDeadline() {
        RuleSet set = rules("  - name: held\n    when: allocated\n    for: 2m\n");
        RuleEngine before = new RuleEngine(set);
        FakeScope card = FakeScope.card(set, "n1", "GPU-1");
        run(before, card, 0, 50_000, true);
        List<AlertImage> images = before.images();
        assertEquals(List.of(AlertState.PENDING), images.stream().map(AlertImage::state).toList());
        out.clear();
        RuleEngine after = new RuleEngine(set);
        assertTrue(after.restore(images.get(0), 70_000));
        // the restart emptied the windows: a false condition within the grace leaves it pending
        run(after, card, 60_000, 70_000, false);
        run(after, card, 70_000, 121_000, true);
        assertEquals(List.of("held PENDING->FIRING at 120000 since 0"), states());
    }

    @Test
    void aFiringAlertTakenBackResolvesAfterItsGraceOnlyWhenItsConditionIsOver() {
        RuleSet set = rules("  - name: hot\n    when: allocated\n    keep_firing_for: 30s\n");
        RuleEngine before = new RuleEngine(set);
        FakeScope card = FakeScope.card(set, "n1", "GPU-1");
        run(before, card, 0, 10_000, true);
        run(before, card, 10_000, 20_000, false);
        AlertImage image = before.images().get(0);
        assertEquals(10_000, image.falseSince(), "keep_firing_for is counting");
        out.clear();
        RuleEngine after = new RuleEngine(set);
        assertTrue(after.restore(image, 35_000));
        run(after, card, 30_000, 60_000, false);
        assertEquals(List.of("hot FIRING->RESOLVED at 40000 since 0"), states(),
                "resolved at falseSince + keep_firing_for, as without a restart, the grace being over by then");
        assertEquals(Map.of("alertname", "hot", "severity", "page", "layer", "device", "node", "n1",
                "uuid", "GPU-1"), out.get(0).labels());
    }

    @Test
    void anAlertOfARuleNoLongerLoadedIsNotTakenBack() {
        RuleSet set = rules("  - name: hot\n    when: allocated\n");
        AlertImage image = new AlertImage("gone", KEY, AlertState.FIRING, 0, -1, null, null, null);
        RuleEngine engine = new RuleEngine(set);
        assertTrue(!engine.restore(image, 0));
        assertEquals(AlertState.INACTIVE, engine.state("gone", KEY));
    }
}
