package io.gpuwatch.rules.eval;

import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.ScopeKind;
import io.gpuwatch.rules.scope.FakeScope;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The per-evaluation time budget, measured on an injected nano clock: reading the `task` label advances the
 * clock by however long the test says the slow rule takes, so no rule has to be slow for real.
 */
class TimeBudgetTest {
    private static final String KEY = "card/n1/GPU-1";
    private static final String RULES = "group: g\nlayer: device\nseverity: page\nrules:\n"
            + "  - name: slow\n    when: task != 'batch' && allocated\n"
            + "  - name: fast\n    when: allocated\n";

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final AtomicLong slowBy = new AtomicLong();
    private final List<Transition> out = new ArrayList<>();
    private final RuleSet set = load(RULES);
    private final FakeScope card = FakeScope.card(set, "n1", "GPU-1").allocated(true).labelHook(k -> {
        if (k.equals("task")) {
            nanos.addAndGet(slowBy.get());
        }
        return null;
    });

    private static RuleSet load(String yaml) {
        RuleLoad load = RuleSet.parse("b.yml", yaml);
        assertTrue(load.ok(), load.diagnostics()::toString);
        return load.ruleSet();
    }

    private void evaluate(RuleEngine engine, long atMs) {
        engine.evaluate(ScopeKind.CARD, KEY, card.at(atMs), out::add);
    }

    private List<String> transitions() {
        return out.stream().map(t -> t.rule().name() + " " + t.from() + "->" + t.to() + " at " + t.at()).toList();
    }

    @Test
    void aRuleOverItsBudgetIsDisabledAndTheOthersKeepRunning() {
        RuleEngine engine = new RuleEngine(set, EvalBudget.of(Duration.ofMillis(10)), nanos::get);
        slowBy.set(10_000_000L);
        evaluate(engine, 0);
        assertTrue(engine.disabled().isEmpty(), "exactly the budget is within it");

        slowBy.set(12_500_000L);
        evaluate(engine, 1000);
        assertEquals(List.of("slow"), engine.disabled().stream().map(DisabledRule::rule).toList());
        DisabledRule d = engine.disabled().get(0);
        assertEquals(KEY, d.instanceKey());
        assertEquals(12_500_000L, d.tookNanos());
        assertEquals(10_000_000L, d.budgetNanos());
        assertEquals("b.yml:6:11: error: rule `slow` disabled: evaluating it on card/n1/GPU-1 took 12.5 ms, over "
                + "the budget of 10 ms per evaluation; its alerts keep their state until the rules are reloaded",
                d.diagnostic().toString());

        card.allocated(false);
        long before = nanos.get();
        evaluate(engine, 2000);
        assertEquals(before, nanos.get(), "a disabled rule no longer runs: it never reads its label again");
        assertEquals(AlertState.FIRING, engine.state("slow", KEY), "its alert is frozen, not resolved");
        assertEquals(List.of("slow INACTIVE->FIRING at 0", "fast INACTIVE->FIRING at 0",
                "fast FIRING->RESOLVED at 2000"), transitions(), "the other rule kept running");
    }

    @Test
    void oneSlowEvaluationAmongFastOnesIsForgivenButRepeatedOverrunsAreNot() {
        RuleEngine engine = new RuleEngine(set, new EvalBudget(Duration.ofMillis(10), 3, Duration.ofMinutes(1)),
                nanos::get);
        slowBy.set(50_000_000L);
        evaluate(engine, 0);
        evaluate(engine, 1000);
        slowBy.set(0);
        nanos.addAndGet(Duration.ofMinutes(2).toNanos());
        evaluate(engine, 2000);
        slowBy.set(50_000_000L);
        evaluate(engine, 3000);
        assertTrue(engine.disabled().isEmpty(), "the first two overruns are more than a minute old");
        evaluate(engine, 4000);
        evaluate(engine, 5000);
        assertEquals(1, engine.disabled().size());
        assertEquals("b.yml:6:11: error: rule `slow` disabled: evaluating it on card/n1/GPU-1 took 50 ms, over the "
                + "budget of 10 ms per evaluation (3 overruns within 60 s); its alerts keep their state until the "
                + "rules are reloaded", engine.disabled().get(0).diagnostic().toString());
    }

    @Test
    void aReloadGivesADisabledRuleANewStartAndKeepsItsState() {
        RuleEngine engine = new RuleEngine(set, EvalBudget.of(Duration.ofMillis(10)), nanos::get);
        slowBy.set(20_000_000L);
        evaluate(engine, 0);
        assertEquals(1, engine.disabled().size());
        slowBy.set(0);
        engine.replace(load(RULES), 1000, out::add);
        assertTrue(engine.disabled().isEmpty());
        out.clear();
        evaluate(engine, 2000);
        assertEquals(List.of(), out, "both rules still fire, and nothing was notified twice");
        assertEquals(AlertState.FIRING, engine.state("slow", KEY));
    }

    @Test
    void theDefaultBudgetToleratesPausesButNotAStalledLoopAndNonsenseBudgetsAreRefused() {
        assertEquals(Duration.ofMillis(50), EvalBudget.DEFAULT.perEvaluation());
        assertEquals(5, EvalBudget.DEFAULT.strikes(), "one pause of the process never disables a rule");
        assertThrows(IllegalArgumentException.class, () -> EvalBudget.of(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> new EvalBudget(Duration.ofMillis(1), 0, Duration.ZERO));
    }
}
