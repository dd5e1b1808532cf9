package io.gpuwatch.rules.eval;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.scope.FakeScope;
import io.gpuwatch.rules.scope.ScopeKind;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** consecutive(cond, n): runs counted per rule instance over evaluations, by the engine. */
class ConsecutiveTest {
    private final List<Transition> out = new ArrayList<>();

    private static RuleSet rules(String rulesYaml) {
        RuleLoad load = RuleSet.parse("c.yml", "group: g\nlayer: device\nseverity: page\nrules:\n" + rulesYaml);
        assertTrue(load.ok(), load.diagnostics()::toString);
        return load.ruleSet();
    }

    @Test
    void firesOnTheNthEvaluationInARowAndAMissStartsOver() {
        RuleSet set = rules("  - name: hot\n    when: consecutive(tempC > 85, 3)\n");
        RuleEngine engine = new RuleEngine(set);
        FakeScope card = FakeScope.card(set, "n1", "GPU-1");
        double[] temps = {90, 90, 80, 90, 90, 90, 90};
        List<AlertState> states = new ArrayList<>();
        for (int i = 0; i < temps.length; i++) {
            card.sample(i * 1000L, Map.of(Metric.TEMP_C, temps[i]));
            engine.evaluate(ScopeKind.CARD, "card/n1/GPU-1", card, out::add);
            states.add(engine.state("hot", "card/n1/GPU-1"));
        }
        assertEquals(List.of(AlertState.INACTIVE, AlertState.INACTIVE, AlertState.INACTIVE, AlertState.INACTIVE,
                AlertState.INACTIVE, AlertState.FIRING, AlertState.FIRING), states);
        assertEquals(1, out.size());
        assertEquals(5000, out.get(0).at());
    }

    @Test
    void eachInstanceKeepsItsOwnRunAndShortCircuitsDoNotSkipCounting() {
        // `allocated &&` is false on the first evaluations, yet the run of tempC > 85 is still counted
        RuleSet set = rules("  - name: hot\n    when: allocated && consecutive(tempC > 85, 2)\n");
        RuleEngine engine = new RuleEngine(set);
        FakeScope a = FakeScope.card(set, "n1", "GPU-a");
        FakeScope b = FakeScope.card(set, "n1", "GPU-b");
        a.sample(0, Map.of(Metric.TEMP_C, 90.0));
        b.sample(0, Map.of(Metric.TEMP_C, 50.0));
        engine.evaluate(ScopeKind.CARD, "a", a, out::add);
        engine.evaluate(ScopeKind.CARD, "b", b, out::add);
        a.allocated(true).sample(1000, Map.of(Metric.TEMP_C, 90.0));
        b.allocated(true).sample(1000, Map.of(Metric.TEMP_C, 90.0));
        engine.evaluate(ScopeKind.CARD, "a", a, out::add);
        engine.evaluate(ScopeKind.CARD, "b", b, out::add);
        assertEquals(AlertState.FIRING, engine.state("hot", "a"));
        assertEquals(AlertState.INACTIVE, engine.state("hot", "b"), "b's run is one evaluation long");
        assertEquals(1, engine.counts("hot").get(AlertState.FIRING));
        assertEquals(0, engine.counts("hot").get(AlertState.INACTIVE), "b never held: not counted");
    }

    @Test
    void aReloadKeepsTheRunOfAnUnchangedRuleAndRestartsAChangedOne() {
        String yaml = "  - name: hot\n    when: consecutive(tempC > 85, 3)\n";
        RuleSet first = rules(yaml);
        RuleEngine engine = new RuleEngine(first);
        FakeScope card = FakeScope.card(first, "n1", "GPU-1");
        for (int i = 0; i < 2; i++) {
            card.sample(i * 1000L, Map.of(Metric.TEMP_C, 90.0));
            engine.evaluate(ScopeKind.CARD, "k", card, out::add);
        }
        engine.replace(rules(yaml), 1500, out::add);
        card.sample(2000, Map.of(Metric.TEMP_C, 90.0));
        engine.evaluate(ScopeKind.CARD, "k", card, out::add);
        assertEquals(AlertState.FIRING, engine.state("hot", "k"), "the run survived the reload");

        engine.replace(rules("  - name: hot\n    when: consecutive(tempC > 80, 3)\n"), 2500, out::add);
        card.sample(3000, Map.of(Metric.TEMP_C, 90.0));
        engine.evaluate(ScopeKind.CARD, "k", card, out::add);
        // the changed condition starts its run over, so the alert resolves (keep_firing_for is 0)
        assertEquals(AlertState.RESOLVED, engine.state("hot", "k"));
    }

    @Test
    void withoutEngineStateOnlyARunOfOneCanHold() {
        RuleSet set = rules("  - name: one\n    when: consecutive(tempC > 85, 1)\n"
                + "  - name: two\n    when: consecutive(tempC > 85, 2)\n");
        FakeScope card = FakeScope.card(set, "n1", "GPU-1").sample(0, Map.of(Metric.TEMP_C, 90.0));
        assertTrue(set.rules().get(0).test(card));
        assertFalse(set.rules().get(1).test(card));
    }
}
