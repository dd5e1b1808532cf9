package io.gpuwatch.gateway.baseline;

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

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fleet learns baselines from its cards' samples, per business, and rules read them: a week of synthetic
 * power readings with a daily peak at 14:00, replayed on the gateway's schedule over a virtual clock.
 */
class BaselineLearningTest {
    /** Monday 2026-01-05 00:00 UTC. */
    private static final long MONDAY = 1_767_571_200_000L;
    private static final long MIN = 60_000;
    private static final long HOUR = 3_600_000;
    private static final long DAY = 24 * HOUR;
    private static final RuleSet RULES = rules("""
            group: power-baseline
            layer: business
            severity: inspect
            rules:
              - name: power-above-baseline
                when: powerW > baseline(powerW).upper(3)
              - name: power-z
                scope: node
                when: baseline(powerW).zscore > 3
            """);

    private static RuleSet rules(String yaml) {
        RuleLoad load = RuleSet.parse("b.yml", yaml);
        assertTrue(load.ok(), load.diagnostics()::toString);
        return load.ruleSet();
    }

    private final Replay replay = new Replay(RULES, MIN, s -> { });
    private long seq;

    BaselineLearningTest() {
        List<CardInfo> cards = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            cards.add(new CardInfo("GPU-" + i, i, null, null, null, null, null, null));
        }
        replay.feed("n1", new Hello(1, "n1", "b1", "test", null, null, Map.of(), cards), MONDAY);
    }

    /** 300 W, 500 W from 14:00 to 15:00 every day, with a few watts of noise. */
    private static double normal(long t) {
        long minute = (t - MONDAY) / MIN;
        double noise = 8 * Math.sin(minute * 1.7);
        return ((t - MONDAY) % DAY) / HOUR == 14 ? 500 + noise : 300 + noise;
    }

    /** Both cards work for ads and read {@code power0} and the normal value, one sample a minute. */
    private void minute(long t, double power0) {
        List<CardReading> readings = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            double p = i == 0 ? power0 : normal(t);
            readings.add(new CardReading("GPU-" + i, MetricValues.builder().set(Metric.POWER_W, p)
                    .set(Metric.GPU_UTIL, 90).build(), List.of(new ProcessInfo(100 + i, null, "chat", "ana", "ads"))));
        }
        replay.feed("n1", new Sample(++seq, t, readings), t);
    }

    private long firings(String rule, long from, long to) {
        return replay.sent().stream().filter(s -> s.firing() && s.rule().equals(rule) && s.at() >= from
                && s.at() < to).count();
    }

    @Test
    void aWeekOfHistoryMakesTheDailyPeakNormalAndASpikeStillFires() {
        long end = MONDAY + 7 * DAY + 17 * HOUR;
        long spike = MONDAY + 7 * DAY + 16 * HOUR + 30 * MIN;
        for (long t = MONDAY; t < end; t += MIN) {
            boolean spiking = t >= spike && t < spike + 5 * MIN;
            minute(t, spiking ? 420 : normal(t));
        }
        assertTrue(firings("power-above-baseline", MONDAY + 14 * HOUR, MONDAY + 15 * HOUR) > 0,
                "before a week of history the first peak is unusual");
        assertEquals(0, firings("power-above-baseline", MONDAY + 7 * DAY, spike),
                "with a week of history Monday's 14:00 peak is normal for that hour");
        assertEquals(1, firings("power-above-baseline", spike, end), "the spike at 16:30 fires");
        Replay.Sent fired = replay.sent().stream().filter(s -> s.firing() && s.at() >= spike).findFirst().orElseThrow();
        assertEquals("GPU-0", fired.scope().get("uuid"));
        assertEquals(spike, fired.at());

        Baseline peak = replay.fleet().baselines().get("ads", "powerW", MONDAY + 7 * DAY + 14 * HOUR + 5 * MIN);
        assertTrue(peak.hourly());
        assertEquals(500, peak.mean(), 3);
        Baseline evening = replay.fleet().baselines().get("ads", "powerW", MONDAY + 7 * DAY + 16 * HOUR + 5 * MIN);
        assertEquals(300, evening.mean(), 3);
        assertTrue(evening.upper(3) < 420, "upper(3) = " + evening.upper(3));
    }

    @Test
    void nodeScopeReadsTheBaselineOfItsCardsBusiness() {
        for (long t = MONDAY; t < MONDAY + 6 * HOUR; t += MIN) {
            minute(t, normal(t));
        }
        assertEquals(0, firings("power-z", MONDAY, MONDAY + 6 * HOUR));
        // the node's latest power is the highest of its cards'; node rules run on the tick
        minute(MONDAY + 6 * HOUR, 900);
        replay.advanceTo(MONDAY + 6 * HOUR + MIN);
        assertEquals(1, firings("power-z", MONDAY + 6 * HOUR, MONDAY + 7 * HOUR));
    }

    @Test
    void onlyBaselinedMetricsOfAttributedCardsAreLearned() {
        long t = MONDAY;
        replay.feed("n1", new Sample(++seq, t, List.of(new CardReading("GPU-0",
                MetricValues.builder().set(Metric.POWER_W, 300).build(), List.of()))), t);
        replay.advanceTo(t + 2 * MIN);
        assertEquals(0, replay.fleet().baselines().size(), "a card without a business teaches nothing");
        long warm = BaselineBook.WARM_UP_MINUTES;
        for (long m = 2; m < 2 + warm; m++) {
            minute(t + m * MIN, 300);
        }
        replay.advanceTo(t + (3 + warm) * MIN);
        assertEquals(1, replay.fleet().baselines().size(), "gpuUtil is read by no baseline(), so only powerW");
        assertSame(Baseline.UNKNOWN, replay.fleet().baselines().get("ads", "gpuUtil", t + (3 + warm) * MIN));
        assertFalse(Double.isNaN(replay.fleet().baselines().get("ads", "powerW", t + (3 + warm) * MIN).mean()));
    }
}
