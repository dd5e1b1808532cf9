package io.gpuwatch.rules.eval;

import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.ScopeKind;
import io.gpuwatch.rules.scope.FakeScope;
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
    void anAlertOfARuleThatIsNoLongerLoadedIsNotRestored() {
        RuleEngine engine = new RuleEngine(rules());
        assertFalse(engine.restore("gone", KEY, 5_000));
        assertEquals(AlertState.INACTIVE, engine.state("gone", KEY));
    }
}
