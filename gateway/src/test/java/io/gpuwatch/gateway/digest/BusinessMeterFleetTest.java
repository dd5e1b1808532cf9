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
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.protocol.SchedTask;
import io.gpuwatch.notify.render.Report;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
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
        BusinessMeter meter = new BusinessMeter(replay.fleet(), pricing);
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

    @Test
    void anHourOfAModelledTaskGivesItsEffectiveComputeRequestsAndOutcomesPerBusinessAndOwner() {
        RuleLoad load = RuleSet.parse("none.yml", """
                group: none
                layer: device
                scope: card
                rules:
                  - name: hot
                    severity: ticket
                    when: tempC > 90
                """);
        assertTrue(load.ok(), load.diagnostics().toString());
        Replay replay = new Replay(load.ruleSet(), MIN, s -> { });
        List<CardInfo> cards = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            cards.add(new CardInfo("GPU-" + i, i, "NVIDIA H100 80GB HBM3", null, null, null, null, null));
        }
        replay.feed("n1", new Hello(1, "n1", "b1", "test", null, null, Map.of(), cards), T0);
        BusinessMeter meter = new BusinessMeter(replay.fleet(), Pricing.NONE);
        meter.sample(T0);
        SchedTask pretrain = new SchedTask("train", "ann", "ads", List.of(), "running", 4, null, null,
                new SchedTask.Model(8.03e9, "training", "bf16", null));
        long seq = 1;
        for (int i = 1; i <= 60; i++) {
            long t = T0 + i * MIN;
            replay.feed("n1", new Sample(seq++, t, List.of(reading("GPU-0", 90), reading("GPU-1", 2))), t);
            List<SchedTask> listed = new ArrayList<>(List.of(pretrain));
            if (i >= 30) {
                listed.add(new SchedTask("eval-1", "bo", "ads", List.of(), "completed", 1));
            }
            if (i >= 40) {
                listed.add(new SchedTask("eval-2", "bo", "ads", List.of(), "failed", 1));
            }
            replay.feed("slurmctl", new Sched(0, t, "gpu", MetricValues.empty(), listed), t);
            replay.feed("n1", new App(seq++, t, "train", "ads", "job",
                    MetricValues.builder().set(Metric.TOKENS_PER_SEC, 20_000).build()), t);
            meter.sample(t);
        }
        List<BusinessMeter.Sample> samples = meter.samples(T0, T0 + 60 * MIN);
        BusinessMeter.Figures ads = BusinessMeter.figures(samples).get(0);
        // 20,000 tokens/s × 6 × 8.03e9 = 9.636e14 FLOP/s on 2 H100 (2 × 989.4e12)
        assertEquals(9.636e14 / 1.9788e15, ads.effectiveComputeRatio(), 1e-9);
        // train asked for 4 cards and keeps 1 busy; the evals are listed only once they have ended, which asks
        // for nothing
        assertEquals(4.0, ads.requestedCardHours(), 1e-9);
        assertEquals(1.0, ads.usedRequestedCardHours(), 1e-9);
        assertEquals(2, ads.ended());
        assertEquals(0.5, ads.taskSuccessRate(), 1e-12, "eval-1 completed, eval-2 failed, each counted once");
        List<BusinessMeter.Figures> owners = BusinessMeter.ownerFigures(samples);
        assertEquals(List.of("ann", "bo"), owners.stream().map(BusinessMeter.Figures::business).toList());
        assertEquals(0.25, owners.get(0).requestedVsUsed(), 1e-9);
        assertEquals(2, owners.get(1).ended());

        Report r = DigestText.render(DigestCollector.collect(List.of(), List.of(), Instant.ofEpochMilli(T0),
                Instant.ofEpochMilli(T0 + 60 * MIN), ZoneOffset.UTC, 4, BusinessMeter.figures(samples), owners, false),
                null, "");
        Report.Section business = r.sections().stream().filter(s -> s.heading().equals("Businesses")).findFirst()
                .orElseThrow();
        assertEquals(List.of("ads: 1.00 idle of 2.00 card-hours, 1.00 of 4.00 requested card-hours computed (0.25), "
                + "effective compute 0.487 (within the 0.38–0.55 of published large-scale training), "
                + "1 of 2 ended tasks succeeded"), business.lines());
        Report.Section byOwner = r.sections().stream().filter(s -> s.heading().equals("Owners")).findFirst()
                .orElseThrow();
        assertEquals("ann: 1.00 idle of 2.00 card-hours, 1.00 of 4.00 requested card-hours computed (0.25), "
                + "effective compute 0.487 (within the 0.38–0.55 of published large-scale training)",
                byOwner.lines().get(0));
    }
}
