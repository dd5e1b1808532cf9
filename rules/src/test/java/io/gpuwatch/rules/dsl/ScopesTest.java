package io.gpuwatch.rules.dsl;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.scope.FakeScope;
import io.gpuwatch.rules.scope.ScopeKind;
import io.gpuwatch.rules.scope.ScopeView;
import io.gpuwatch.rules.scope.Series;
import io.gpuwatch.rules.source.Diagnostic;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Task, business and queue scopes: what each may read, with positions in errors, and `count(cards where …)`. */
class ScopesTest {
    private static RuleLoad load(String scope, String when) {
        return RuleSet.parse("s.yml", "group: g\nlayer: application\nseverity: ticket\nscope: " + scope
                + "\nrules:\n  - name: r\n    when: " + when + "\n");
    }

    private static List<String> errors(String scope, String when) {
        return load(scope, when).diagnostics().stream().filter(d -> d.level() == Diagnostic.Level.ERROR)
                .map(Diagnostic::toString).toList();
    }

    private static Rule rule(String scope, String when) {
        RuleLoad l = load(scope, when);
        assertNotNull(l.ruleSet(), () -> l.diagnostics().toString());
        return l.ruleSet().rules().get(0);
    }

    @Test
    void theNewScopesLoadWithTheirMetrics() {
        assertEquals(ScopeKind.TASK, rule("task", "avg(tokensPerSec, 5m) < 10 && avg(gpuUtil, 5m) > 80").scope());
        assertEquals(ScopeKind.BUSINESS, rule("business", "sum(tokensPerSec, 5m) > 0 && business == 'search'")
                .scope());
        assertEquals(ScopeKind.QUEUE, rule("queue", "increase(preemptions, 10m) > 20 && queue != 'x'").scope());
        assertEquals(ScopeKind.TASK, rule("task", "task == 't' && owner == 'o' && queue == 'q'").scope());
    }

    @Test
    void metricsAndLabelsOutsideTheirScopeAreErrorsAtTheirPlace() {
        assertEquals(List.of("s.yml:7:11: error: `gpuUtil` is a card metric, and queue scope reads scheduling "
                + "metrics (pending, running, waitP50s, preemptions, …)"), errors("queue", "gpuUtil > 5"));
        assertEquals(List.of("s.yml:7:15: error: `waitP50s` is a scheduling metric, read in queue scope, not task"),
                errors("task", "avg(waitP50s, 5m) > 5"));
        assertEquals(List.of("s.yml:7:11: error: `tokensPerSec` is an application metric, read in task, replica or "
                + "business scope, not node"), errors("node", "tokensPerSec < 5"));
        assertEquals(List.of(), errors("replica", "avg(tokensPerSec, 2m) < 0.5 * peers(tokensPerSec, 2m).median "
                + "&& avg(gpuUtil, 2m) > 60 && node != '' && task != '' && labels.rack != ''"),
                "a replica reads its own app frames, its cards, its node's labels and its task's");
        assertEquals(List.of("s.yml:7:11: error: `lostCards` counts the cards a node no longer lists, so it needs "
                + "node scope, not replica"), errors("replica", "lostCards > 0"));
        assertEquals(List.of("s.yml:7:11: error: `node` is not a label of task scope (task, owner, business, queue)"),
                errors("task", "node == 'a'"));
        assertEquals(List.of("s.yml:7:11: error: `task` is not a label of queue scope (queue)"),
                errors("queue", "task == 'a'"));
        assertEquals(List.of("s.yml:7:11: error: node labels from hello are not available in business scope, "
                + "which spans nodes"), errors("business", "labels.cluster == 'a'"));
        assertEquals(List.of("s.yml:7:11: error: `allocated` is not available in queue scope, which has no cards"),
                errors("queue", "allocated"));
        assertEquals(List.of("s.yml:7:11: error: `fraction` is evaluated per card sample, and queue scope has no "
                + "cards; use consecutive() over evaluations"), errors("queue", "fraction(pending > 1, 5m) > 0.5"));
    }

    @Test
    void cardsWhereIsCheckedAsACardCondition() {
        assertEquals(List.of("s.yml:7:17: error: `count(cards where …)` reads the cards of a node, task, replica or "
                + "business, so it needs node, task, replica or business scope, not card"),
                errors("card", "count(cards where gpuUtil < 5) > 0"));
        assertEquals(List.of("s.yml:7:11: error: `lostCards` counts the cards a node no longer lists, so it needs "
                + "node scope, not card"), errors("card", "lostCards > 0"));
        assertEquals(List.of(), errors("node", "lostCards > 0"));
        assertEquals(List.of("s.yml:7:20: error: `distinct(cards where …)` reads the cards of a node, task, replica "
                + "or business, so it needs node, task, replica or business scope, not queue"),
                errors("queue", "distinct(cards where gpuUtil < 5) != ''"));
        assertEquals(List.of("s.yml:7:29: error: `tokensPerSec` is an application metric, read in task, replica or "
                + "business scope, not card"), errors("task", "count(cards where tokensPerSec < 5) > 0"));
        assertEquals(List.of("s.yml:7:29: error: `cards where` needs a condition (true/false), e.g. "
                + "count(cards where gpuUtil < 5), but this is a number"), errors("task", "count(cards where gpuUtil) > 0"));
        assertEquals(List.of("s.yml:7:11: error: `cards where …` can only be the argument of count() or distinct(), e.g. "
                + "count(cards where gpuUtil < 5) > 0"), errors("task", "cards where gpuUtil < 5"));
        assertEquals(List.of("s.yml:7:29: error: `consecutive` cannot be used inside `cards where`, which is "
                + "evaluated per card"), errors("task", "count(cards where consecutive(gpuUtil < 5, 3)) > 0"));
    }

    @Test
    void cardsWhereCountsTheMembersForWhichTheConditionHoldsNow() {
        Rule r = rule("task", "count(cards where gpuUtil < 5 && card.name != 'spare') >= 2");
        assertEquals("count(cards where (gpuUtil < 5) && (card.name != 'spare')) >= 2", r.when());
        RuleSet set = load("task", "count(cards where gpuUtil < 5 && card.name != 'spare') >= 2").ruleSet();
        FakeScope idle = card(set, "a", 2.0, "c0");
        FakeScope busy = card(set, "b", 90.0, "c1");
        FakeScope spare = card(set, "c", 1.0, "spare");
        assertFalse(r.test(group(List.of(idle, busy, spare))));
        assertTrue(r.test(group(List.of(idle, busy, spare, card(set, "d", 0.0, "c3")))));
        assertFalse(r.test(group(List.of())), "a task without cards counts none");
    }

    @Test
    void distinctCardsWhereListsTheIndexesOfTheNodesCardsForWhichTheConditionHolds() {
        RuleLoad l = RuleSet.parse("s.yml", "group: g\nlayer: device\nseverity: page\nscope: node\nrules:\n"
                + "  - name: r\n    when: count(cards where gpuUtil < 5) >= 2\n"
                + "    summary: \"GPUs @{distinct(cards where gpuUtil < 5)} of @{count(cards where gpuUtil >= 0)}\"\n");
        assertNotNull(l.ruleSet(), () -> l.diagnostics().toString());
        Rule r = l.ruleSet().rules().get(0);
        RuleSet set = l.ruleSet();
        ScopeView node = group(List.of(card(set, "a", 2.0, "c0").label("card.index", "0"),
                card(set, "b", 90.0, "c1").label("card.index", "1"), card(set, "c", 1.0, "c2")));
        assertTrue(r.test(node));
        assertEquals("GPUs 0, c of 3", r.renderSummary(node), "a card without an index is named by its uuid");
        assertEquals("GPUs  of 0", r.renderSummary(group(List.of())));
    }

    private static FakeScope card(RuleSet set, String uuid, double util, String name) {
        return FakeScope.card(set, "n", uuid).label("card.name", name).sample(1000, Map.of(Metric.GPU_UTIL, util))
                .at(1000);
    }

    /** A task over these member cards, which reads nothing itself. */
    private static ScopeView group(List<FakeScope> cards) {
        return new ScopeView() {
            @Override
            public long now() {
                return 1000;
            }

            @Override
            public String label(String key) {
                return null;
            }

            @Override
            public Map<String, String> identity() {
                return Map.of("task", "t");
            }

            @Override
            public Series series(int seriesId) {
                return Series.EMPTY;
            }

            @Override
            public int countEvents(String kind, int code, long windowMs) {
                return 0;
            }

            @Override
            public List<String> distinctEvents(String kind, int code, long windowMs) {
                return List.of();
            }

            @Override
            public long silentForMs() {
                return 0;
            }

            @Override
            public boolean allocated() {
                return !cards.isEmpty();
            }

            @Override
            public List<? extends ScopeView> members() {
                return cards;
            }
        };
    }
}
