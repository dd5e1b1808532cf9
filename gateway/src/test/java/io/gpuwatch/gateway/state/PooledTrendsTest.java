package io.gpuwatch.gateway.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The new window functions through the gateway's state: windows sized for them, node scope pooling cards. */
class PooledTrendsTest {
    private static final long S = 1_000;

    private static RuleSet rules(String when) {
        RuleLoad load = RuleSet.parse("p.yml", "group: g\nlayer: device\nseverity: ticket\nscope: node\nrules:\n"
                + "  - name: r\n    when: " + when + "\n");
        assertTrue(load.ok(), load.diagnostics()::toString);
        return load.ruleSet();
    }

    private static FleetState fleet(RuleSet set) {
        FleetState fleet = new FleetState();
        fleet.useSeries(set.series());
        fleet.hello(new Hello(1, "n1", "boot", "test", null, null, Map.of(), List.of(
                new CardInfo("GPU-1", 0, "a", null, null, null, null, null),
                new CardInfo("GPU-2", 1, "b", null, null, null, null, null))), 0);
        return fleet;
    }

    private static void sample(FleetState fleet, long at, double gpu1, double gpu2) {
        fleet.sample("n1", new Sample(at / S, at, List.of(
                new CardReading("GPU-1", MetricValues.builder().set(Metric.TEMP_C, gpu1).build(), List.of()),
                new CardReading("GPU-2", MetricValues.builder().set(Metric.TEMP_C, gpu2).build(), List.of()))),
                at, c -> { });
    }

    @Test
    void nodeQuantilePoolsEveryCardsSamplesAndDeltaSumsTheCards() {
        RuleSet set = rules("quantile(tempC, 0.5, 10m) > 55 && delta(tempC, 10m) > 0");
        FleetState fleet = fleet(set);
        for (int t = 0; t < 300; t++) {
            sample(fleet, t * S, 40 + t % 2, 70 + t % 3);
        }
        NodeState node = fleet.node("n1").at(299 * S);
        int id = set.seriesId("tempC");
        assertTrue(set.series().get(id).transitions(), "delta asks for transitions");
        assertTrue(node.cards().iterator().next().window(id).keepsTransitions());
        // 600 pooled samples, GPU-1's all at most 41 and GPU-2's all at least 70: ranks 299 and 300 are 41 and 70
        assertEquals(55.5, node.series(id).quantile(0.5, 600 * S));
        assertEquals(40, node.series(id).quantile(0, 600 * S));
        assertEquals(72, node.series(id).quantile(1, 600 * S));
        // GPU-1 ends at 40 + 299 % 2 = 41 from 40, GPU-2 at 70 + 299 % 3 = 72 from 70
        assertEquals(1 + 2, node.series(id).delta(600 * S));
        // GPU-1 drops from 41 to 40 at every even second after 0 (149 times), GPU-2 from 72 to 70 every third (99)
        assertEquals(149 + 99, node.series(id).resets(600 * S));
        assertTrue(set.rules().get(0).test(node));
        assertFalse(set.rules().get(0).test(node.at(1_000 * S)), "nothing left in the window");
    }

    @Test
    void aReloadThatNeedsTransitionsReplacesAWindowWithout() {
        RuleSet before = rules("avg(tempC, 10m) > 1");
        FleetState fleet = fleet(before);
        sample(fleet, 0, 40, 70);
        int id = before.seriesId("tempC");
        CardState card = fleet.node("n1").cards().iterator().next();
        assertFalse(card.window(id).keepsTransitions());
        RuleSet after = rules("changes(tempC, 10m) > 1");
        fleet.useSeries(after.series());
        assertTrue(card.window(after.seriesId("tempC")).keepsTransitions());
    }
}
