package io.gpuwatch.rules;

import io.gpuwatch.rules.scope.FakeScope;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Templates compile their MVEL at the first render, or all at once when a server asks, with the same text. */
class PrepareRenderingTest {
    private static final String PACK = """
            group: t
            layer: device
            severity: ticket
            rules:
              - name: hot
                when: tempC > 90
                summary: '@{node} is at @{tempC} C'
                description: 'at most @{max(tempC, 1m)} C in the last minute'
              - name: plain
                when: tempC > 95
                summary: no values here
            """;

    @Test
    void templatesCompileOnFirstRenderOrWhenPrepared() {
        RuleSet lazy = RuleSet.parse("t.yml", PACK).ruleSet();
        Rule hot = lazy.rules().get(0);
        assertFalse(hot.renderingPrepared(), "nothing compiled at load");
        assertTrue(lazy.rules().get(1).renderingPrepared(), "a template without values has nothing to compile");
        FakeScope card = FakeScope.card(lazy, "n1", "GPU-1").allocated(true);
        card.sample(0, java.util.Map.of(io.gpuwatch.protocol.Metric.TEMP_C, 93.0));
        String summary = hot.renderSummary(card.at(0));
        assertEquals("n1 is at 93 C", summary);
        assertFalse(hot.renderingPrepared(), "the description is still not compiled");
        hot.renderDescription(card.at(0));
        assertTrue(hot.renderingPrepared(), "each template compiled by its render");

        RuleSet eager = RuleSet.parse("t.yml", PACK).ruleSet();
        assertSame(eager, eager.prepareRendering());
        assertTrue(eager.rules().stream().allMatch(Rule::renderingPrepared));
        FakeScope same = FakeScope.card(eager, "n1", "GPU-1").allocated(true);
        same.sample(0, java.util.Map.of(io.gpuwatch.protocol.Metric.TEMP_C, 93.0));
        assertEquals(summary, eager.rules().get(0).renderSummary(same.at(0)));
        assertEquals(hot.renderDescription(card.at(0)), eager.rules().get(0).renderDescription(same.at(0)));
    }
}
