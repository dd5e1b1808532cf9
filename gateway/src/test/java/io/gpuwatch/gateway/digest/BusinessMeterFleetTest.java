package io.gpuwatch.gateway.digest;

import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.replay.Replay;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The meter over a real fleet: an hour of one idle and one busy H100, both held by the business ads. */
class BusinessMeterFleetTest {
    private static final long T0 = 1_764_700_000_000L;
    private static final long MIN = 60_000;

    @Test
    void anHourOfOneIdleAndOneBusyCardIsOneIdleCardHourOfTwo() {
        RuleLoad load = RuleSet.parse("idle.yml", """
                group: idle
                layer: scheduling
                scope: card
                rules:
                  - name: idle-but-allocated
                    severity: inspect
                    when: allocated && avg(gpuUtil, 5m) < 5
                """);
        assertTrue(load.ok(), load.diagnostics().toString());
        Replay replay = new Replay(load.ruleSet(), MIN, s -> { });
        replay.feed("n1", new Hello(1, "n1", "b1", "test", null, null, Map.of(), List.of(
                new CardInfo("GPU-0", 0, "NVIDIA H100 80GB HBM3", null, null, null, null, null),
                new CardInfo("GPU-1", 1, "NVIDIA H100 80GB HBM3", null, null, null, null, null))), T0);
        Pricing pricing = new Pricing("USD", 2.0, List.of(new Pricing.ModelPrice("H100", 3.5)), Map.of());
        BusinessMeter meter = new BusinessMeter(replay.fleet(), load::ruleSet, pricing);
        meter.sample(T0);
        for (int i = 1; i <= 60; i++) {
            long t = T0 + i * MIN;
            replay.feed("n1", new Sample(i, t, List.of(reading("GPU-0", 2), reading("GPU-1", 90))), t);
            meter.sample(t);
        }
        List<BusinessMeter.Figures> figures = BusinessMeter.figures(meter.samples(T0, T0 + 60 * MIN));
        assertEquals(1, figures.size());
        BusinessMeter.Figures ads = figures.get(0);
        assertEquals("ads", ads.business());
        assertEquals(1.0, ads.idleCardHours(), 1e-9);
        assertEquals(2.0, ads.cardHours(), 1e-9);
        assertEquals(7.0, ads.cost(), 1e-9);
        assertEquals(0, meter.samples(T0 + 60 * MIN, T0 + 120 * MIN).size());
    }

    private static CardReading reading(String uuid, double util) {
        return new CardReading(uuid, MetricValues.builder().set(Metric.GPU_UTIL, util).build(),
                List.of(new ProcessInfo(7, null, "train", "ann", "ads")));
    }
}
