package io.gpuwatch.rules.eval;

import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.scope.FakeScope;
import io.gpuwatch.rules.scope.ScopeKind;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An alert taken back from the store after a restart resolves like any other, and never fires twice. */
class RestoreTest {
    private static final String KEY = "card/n1/GPU-1";
    private final List<Transition> out = new ArrayList<>();

    private static RuleSet rules() {
        RuleLoad load = RuleSet.parse("e.yml", "group: g\nlayer: device\nseverity: page\nrules:\n"
                + "  - name: held\n    when: allocated\n    keep_firing_for: 30s\n");
        assertTrue(load.ok(), load.diagnostics()::toString);
        return load.ruleSet();
    }

    private List<String> states() {
        return out.stream().map(t -> t.from() + "->" + t.to() + " at " + t.at() + " since " + t.activeSince()).toList();
    }

    @Test
    void aRestoredAlertStaysQuietWhileItsConditionHoldsAndResolvesAfterKeepFiringFor() {
        RuleSet set = rules();
        RuleEngine engine = new RuleEngine(set);
        assertTrue(engine.restore("held", KEY, 5_000));
        assertEquals(AlertState.FIRING, engine.state("held", KEY));
        FakeScope card = FakeScope.card(set, "n1", "GPU-1").allocated(true);
        for (long t = 100_000; t < 110_000; t += 1000) {
            engine.evaluate(ScopeKind.CARD, KEY, card.at(t), out::add);
        }
        assertTrue(out.isEmpty(), "still true: no second FIRING after the restart " + states());
        card.allocated(false);
        for (long t = 110_000; t <= 140_000; t += 1000) {
            engine.evaluate(ScopeKind.CARD, KEY, card.at(t), out::add);
        }
        assertEquals(List.of("FIRING->RESOLVED at 140000 since 5000"), states(),
                "resolves 30 s after the condition ends, and the episode keeps its start from before the crash");
    }

    @Test
    void anAlertResolvedAfterTheCheckpointStaysResolvedThroughTheBacklogAndTheGrace() {
        RuleSet set = rules();
        RuleEngine engine = new RuleEngine(set);
        // the checkpoint held it firing since 5 s; the ledger resolved it at 60 s, after that checkpoint
        AlertImage image = new AlertImage("held", KEY, AlertState.FIRING, 5_000, -1, java.util.Map.of("alertname",
                "held"), "s", "d");
        assertTrue(engine.restoreResolved(image, 60_000, 80_000));
        assertEquals(AlertState.RESOLVED, engine.state("held", KEY));
        FakeScope card = FakeScope.card(set, "n1", "GPU-1").allocated(true);
        for (long t = 50_000; t < 60_000; t += 1000) {
            engine.evaluate(ScopeKind.CARD, KEY, card.at(t), out::add);
        }
        assertTrue(out.isEmpty(), "a backlog from before the resolve is decided already " + states());
        engine.evaluate(ScopeKind.CARD, KEY, card.at(70_000), out::add);
        assertTrue(out.isEmpty(), "in its grace a true condition does not fire it again " + states());
        engine.endGrace(KEY, "card/n1/");
        engine.evaluate(ScopeKind.CARD, KEY, card.at(71_000), out::add);
        assertEquals(List.of("RESOLVED->FIRING at 71000 since 71000"), states(),
                "its node back, a condition that holds is a new episode");
    }

    @Test
    void anAlertOfARuleThatIsNoLongerLoadedIsNotRestored() {
        RuleEngine engine = new RuleEngine(rules());
        assertFalse(engine.restore("gone", KEY, 5_000));
        assertEquals(AlertState.INACTIVE, engine.state("gone", KEY));
    }

    @Test
    void aRestoredAlertIsHeldForItsRulesWindowBecauseTheRestartEmptiedIt() {
        RuleLoad load = RuleSet.parse("x.yml", "group: g\nlayer: device\nseverity: page\nrules:\n"
                + "  - name: xid\n    when: count(events('xid', 79), 2m) > 0 || avg(tempC, 30s) > 95\n");
        assertTrue(load.ok(), load.diagnostics()::toString);
        RuleSet set = load.ruleSet();
        assertEquals(120_000, set.rules().get(0).longestWindowMs());
        RuleEngine engine = new RuleEngine(set);
        assertTrue(engine.restore("xid", KEY, 5_000));
        // the XID that fired it is in no event log after the restart: the condition reads false from the start
        FakeScope card = FakeScope.card(set, "n1", "GPU-1");
        for (long t = 100_000; t < 220_000; t += 1000) {
            engine.evaluate(ScopeKind.CARD, KEY, card.at(t), out::add);
        }
        assertTrue(out.isEmpty(), "no false resolve while the 2m window refills " + states());
        engine.evaluate(ScopeKind.CARD, KEY, card.at(220_000), out::add);
        assertEquals(List.of("FIRING->RESOLVED at 220000 since 5000"), states());
    }

    @Test
    void aConditionThatHoldsAgainDuringTheHoldKeepsTheAlertWithoutANewPage() {
        RuleLoad load = RuleSet.parse("x.yml", "group: g\nlayer: device\nseverity: page\nrules:\n"
                + "  - name: xid\n    when: count(events('xid', 79), 2m) > 0\n");
        RuleSet set = load.ruleSet();
        RuleEngine engine = new RuleEngine(set);
        engine.restore("xid", KEY, 5_000);
        FakeScope card = FakeScope.card(set, "n1", "GPU-1");
        engine.evaluate(ScopeKind.CARD, KEY, card.at(100_000), out::add);
        card.event(150_000, "xid", 79);
        for (long t = 150_000; t < 270_000; t += 1000) {
            engine.evaluate(ScopeKind.CARD, KEY, card.at(t), out::add);
        }
        assertTrue(out.isEmpty(), "the new XID keeps it firing past the hold, which ended at 220 s " + states());
        engine.evaluate(ScopeKind.CARD, KEY, card.at(272_000), out::add);
        assertEquals(List.of("FIRING->RESOLVED at 272000 since 5000"), states(), "over once the XID left its window");
    }
}
