package io.gpuwatch.rules.eval;

import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.scope.FakeScope;
import io.gpuwatch.rules.scope.ScopeKind;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The per-evaluation time budget, its start-up grace and its back-off, all on an injected nano clock: reading the
 * `task` label advances the clock by however long the test says the slow rule takes, so no rule has to be slow for
 * real and minutes of back-off pass at once.
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
    void whatTheSinkDoesWithAChangeIsNotChargedToTheRule() {
        RuleEngine engine = new RuleEngine(set, EvalBudget.of(Duration.ofMillis(10)), nanos::get);
        // the ledger, routing and delivery behind the sink take 200 ms for each change: a storm of new alerts
        engine.evaluate(ScopeKind.CARD, KEY, card.at(0), t -> {
            nanos.addAndGet(200_000_000L);
            out.add(t);
        });
        assertEquals(List.of("slow INACTIVE->FIRING at 0", "fast INACTIVE->FIRING at 0"), transitions());
        assertTrue(engine.disabled().isEmpty(), "both rules took no time of their own");
        assertEquals(0, engine.overruns());
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
        assertEquals(nanos.get(), d.disabledAtNanos(), "disabled when the slow evaluation returned");
        assertEquals(Duration.ofMinutes(5), d.backoff());
        assertEquals(1, d.inARow());
        assertEquals("b.yml:6:11: error: rule `slow` disabled for 5 min: evaluating it on card/n1/GPU-1 took 12.5 ms, "
                + "over the budget of 10 ms per evaluation; its alerts keep their state until it runs again",
                d.diagnostic().toString());
        assertEquals(1, engine.disablements());
        assertEquals(1, engine.overruns());

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
        assertEquals("b.yml:6:11: error: rule `slow` disabled for 5 min: evaluating it on card/n1/GPU-1 took 50 ms, "
                + "over the budget of 10 ms per evaluation (3 overruns within 1 min); its alerts keep their state "
                + "until it runs again", engine.disabled().get(0).diagnostic().toString());
    }

    @Test
    void overrunsDuringTheStartupGraceAreCountedButNeverStrike() {
        RuleEngine engine = new RuleEngine(set, EvalBudget.DEFAULT, nanos::get);
        slowBy.set(135_000_000L);
        for (int i = 0; i < 20; i++) {
            evaluate(engine, i * 1000L);
        }
        assertTrue(engine.disabled().isEmpty(), "a JIT warming up on a loaded host disables nothing");
        assertEquals(20, engine.overruns(), "the warm-up overruns are still counted");

        slowBy.set(0);
        nanos.set(1_000_000_000L + Duration.ofMinutes(2).toNanos());
        slowBy.set(135_000_000L);
        for (int i = 0; i < 4; i++) {
            evaluate(engine, 200_000 + i * 1000L);
        }
        assertTrue(engine.disabled().isEmpty(), "four strikes after the grace are not five");
        evaluate(engine, 205_000);
        assertEquals(List.of("slow"), engine.disabled().stream().map(DisabledRule::rule).toList(),
                "past the grace, five overruns within a minute disable the rule");
        assertEquals(25, engine.overruns());
        assertEquals(1, engine.disablements());
    }

    @Test
    void aReloadStartsTheGraceOver() {
        RuleEngine engine = new RuleEngine(set, EvalBudget.of(Duration.ofMillis(10)).withGrace(Duration.ofMinutes(2)),
                nanos::get);
        nanos.addAndGet(Duration.ofMinutes(3).toNanos());
        engine.replace(load(RULES), 0, out::add);
        slowBy.set(20_000_000L);
        evaluate(engine, 1000);
        assertTrue(engine.disabled().isEmpty(), "the reloaded rules are compiled anew and warm up again");
        nanos.addAndGet(Duration.ofMinutes(2).toNanos());
        evaluate(engine, 2000);
        assertEquals(1, engine.disabled().size());
    }

    @Test
    void aDisabledRuleRunsAgainAfterItsBackoffWithTheStateItHad() {
        RuleEngine engine = new RuleEngine(set, EvalBudget.of(Duration.ofMillis(10)), nanos::get);
        slowBy.set(20_000_000L);
        evaluate(engine, 0);
        DisabledRule d = engine.disabled().get(0);
        slowBy.set(0);
        card.allocated(false);
        evaluate(engine, 1000);
        assertEquals(AlertState.FIRING, engine.state("slow", KEY), "frozen while disabled");

        nanos.set(d.retryAtNanos() - 1);
        evaluate(engine, 2000);
        assertEquals(List.of("slow"), engine.disabled().stream().map(DisabledRule::rule).toList());
        assertEquals(AlertState.FIRING, engine.state("slow", KEY));

        nanos.set(d.retryAtNanos());
        assertTrue(engine.disabled().isEmpty(), "the back-off is over, so nothing is disabled now");
        evaluate(engine, 3000);
        assertEquals(AlertState.RESOLVED, engine.state("slow", KEY));
        assertEquals(List.of("slow INACTIVE->FIRING at 0", "fast INACTIVE->FIRING at 0",
                "fast FIRING->RESOLVED at 1000", "slow FIRING->RESOLVED at 3000"), transitions(),
                "the rule evaluates again and resolves what it had firing");
    }

    @Test
    void anOverrunMostlySpentInACollectionPauseIsNotTheRules() {
        // every slow evaluation takes 120 ms, of which the process stood still for 100 (a young collection)
        RuleEngine paused = new RuleEngine(set, EvalBudget.of(Duration.ofMillis(50)), nanos::get,
                (from, to) -> Math.min(to - from, 100_000_000L));
        slowBy.set(120_000_000L);
        evaluate(paused, 0);
        evaluate(paused, 1000);
        assertTrue(paused.disabled().isEmpty(), "20 ms of its own is within the budget");
        assertEquals(2, paused.pausedOverruns());
        assertEquals(2, paused.overruns(), "still counted as overruns");

        RuleEngine stalled = new RuleEngine(set, EvalBudget.of(Duration.ofMillis(50)), nanos::get,
                (from, to) -> 10_000_000L);
        evaluate(stalled, 0);
        assertEquals(List.of("slow"), stalled.disabled().stream().map(DisabledRule::rule).toList(),
                "110 ms of its own is the rule's");
    }

    @Test
    void aPendingAlertCountsItsForAgainFromTheRulesReturn() {
        RuleSet withFor = load("group: g\nlayer: device\nseverity: page\nrules:\n"
                + "  - name: slow\n    when: task != 'batch' && allocated\n    for: 1m\n");
        FakeScope scope = FakeScope.card(withFor, "n1", "GPU-1").allocated(true).labelHook(k -> {
            if (k.equals("task")) {
                nanos.addAndGet(slowBy.get());
            }
            return null;
        });
        RuleEngine engine = new RuleEngine(withFor, EvalBudget.of(Duration.ofMillis(10)), nanos::get);
        engine.evaluate(ScopeKind.CARD, KEY, scope.at(0), out::add);
        slowBy.set(20_000_000L);
        engine.evaluate(ScopeKind.CARD, KEY, scope.at(1_000), out::add);
        DisabledRule d = engine.disabled().get(0);
        slowBy.set(0);

        nanos.set(d.retryAtNanos());
        engine.evaluate(ScopeKind.CARD, KEY, scope.at(400_000), out::add);
        assertEquals(AlertState.PENDING, engine.state("slow", KEY),
                "400 s after it became pending, but the rule was away for most of them");
        engine.evaluate(ScopeKind.CARD, KEY, scope.at(459_000), out::add);
        assertEquals(AlertState.PENDING, engine.state("slow", KEY));
        engine.evaluate(ScopeKind.CARD, KEY, scope.at(460_000), out::add);
        assertEquals(List.of("slow INACTIVE->PENDING at 0", "slow PENDING->FIRING at 460000"), transitions(),
                "it fires a minute after it came back, its condition holding all that minute");
    }

    @Test
    void theBackoffDoublesUpToItsCapAndStartsOverAfterALongCleanRun() {
        RuleEngine engine = new RuleEngine(set, EvalBudget.of(Duration.ofMillis(10)), nanos::get);
        slowBy.set(20_000_000L);
        List<Duration> backoffs = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            evaluate(engine, i * 1000L);
            DisabledRule d = engine.disabled().get(0);
            assertEquals(i + 1, d.inARow());
            backoffs.add(d.backoff());
            nanos.set(d.retryAtNanos());
        }
        assertEquals(List.of(5L, 10L, 20L, 40L, 60L, 60L, 60L), backoffs.stream().map(Duration::toMinutes).toList());
        assertEquals(7, engine.disablements());

        // back again: 59 clean minutes are not long enough to forgive
        slowBy.set(0);
        evaluate(engine, 10_000);
        nanos.addAndGet(Duration.ofMinutes(59).toNanos());
        slowBy.set(20_000_000L);
        evaluate(engine, 11_000);
        DisabledRule again = engine.disabled().get(0);
        assertEquals(8, again.inARow());
        assertEquals(Duration.ofHours(1), again.backoff());
        assertTrue(again.diagnostic().toString().contains("disabled for 60 min, the 8th time in a row:"),
                again.diagnostic()::toString);

        // an hour without being disabled after coming back: the next disablement is a first one again
        nanos.set(again.retryAtNanos());
        slowBy.set(0);
        evaluate(engine, 12_000);
        nanos.addAndGet(Duration.ofHours(1).toNanos());
        slowBy.set(20_000_000L);
        evaluate(engine, 13_000);
        DisabledRule fresh = engine.disabled().get(0);
        assertEquals(1, fresh.inARow());
        assertEquals(Duration.ofMinutes(5), fresh.backoff());
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
        assertEquals(Duration.ofMinutes(2), EvalBudget.DEFAULT.grace());
        assertEquals(Duration.ofMinutes(5), EvalBudget.DEFAULT.backoff());
        assertEquals(Duration.ofHours(1), EvalBudget.DEFAULT.maxBackoff());
        assertThrows(IllegalArgumentException.class, () -> EvalBudget.of(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> new EvalBudget(Duration.ofMillis(1), 0, Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> EvalBudget.DEFAULT.withGrace(Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class,
                () -> EvalBudget.DEFAULT.withBackoff(Duration.ZERO, Duration.ofHours(1)));
        assertThrows(IllegalArgumentException.class,
                () -> EvalBudget.DEFAULT.withBackoff(Duration.ofHours(2), Duration.ofHours(1)));
    }

    @Test
    void eachRulesEvaluationCostIsKeptItsMeanAndItsLastUntilTheNextRuleSet() {
        RuleEngine engine = new RuleEngine(set, EvalBudget.of(Duration.ofMillis(10)), nanos::get);
        slowBy.set(2_000_000L);
        evaluate(engine, 0);
        slowBy.set(4_000_000L);
        evaluate(engine, 1000);
        RuleEngine.Cost slow = engine.cost("slow");
        assertEquals(2, slow.evaluations());
        assertEquals(3_000_000L, slow.meanNanos());
        assertEquals(4_000_000L, slow.lastNanos());
        assertEquals(new RuleEngine.Cost(2, 0, 0), engine.cost("fast"), "reading no task label took no time");
        assertEquals(new RuleEngine.Cost(0, 0, 0), engine.cost("nothing-by-this-name"));
        engine.replace(set, 2000, t -> { });
        assertEquals(0, engine.cost("slow").evaluations(), "counted afresh for the rules now loaded");
    }
}
