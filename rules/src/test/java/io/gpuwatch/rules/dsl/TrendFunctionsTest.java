package io.gpuwatch.rules.dsl;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.metric.SeriesSpec;
import io.gpuwatch.rules.scope.FakeScope;
import io.gpuwatch.rules.scope.ScopeKind;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** quantile, delta, resets, changes, predict and absent: what they compute, their edge cases and their checks. */
class TrendFunctionsTest {
    private final SeriesCatalog catalog = new SeriesCatalog();
    private final DslCompiler compiler = new DslCompiler(ScopeKind.CARD, catalog);
    private final List<DslProblem> warnings = new ArrayList<>();

    private Expression compile(String src) {
        try {
            return compiler.value(src, warnings);
        } catch (DslException e) {
            throw new AssertionError(src + ": " + e.getMessage() + " at " + e.offset(), e);
        }
    }

    private DslException rejected(String src) {
        return assertThrows(DslException.class, () -> compiler.condition(src, warnings), src);
    }

    /** A card whose {@code metric} took {@code values} one second apart, evaluated at the last of them. */
    private FakeScope card(Metric metric, double... values) {
        FakeScope card = new FakeScope(catalog.specs(), Map.of("node", "n1", "uuid", "GPU-1"));
        for (int i = 0; i < values.length; i++) {
            card.sample(i * 1000L, Map.of(metric, values[i]));
        }
        return card;
    }

    private static double num(Expression e, FakeScope s) {
        return (Double) e.value(s);
    }

    @Test
    void quantileInterpolatesBetweenRanksLikePrometheus() {
        Expression p50 = compile("quantile(tempC, 0.5, 1m)");
        Expression p90 = compile("quantile(tempC, 0.9, 1m)");
        Expression p0 = compile("quantile(tempC, 0, 1m)");
        Expression p100 = compile("quantile(tempC, 1, 1m)");
        FakeScope card = card(Metric.TEMP_C, 40, 10, 30, 20);
        // sorted 10 20 30 40: rank 0.5 * 3 = 1.5 lies halfway between 20 and 30
        assertEquals(25, num(p50, card), 1e-12);
        // rank 2.7: 30 + 0.7 * (40 - 30)
        assertEquals(37, num(p90, card), 1e-12);
        assertEquals(10, num(p0, card));
        assertEquals(40, num(p100, card));
        assertEquals("quantile(tempC, 0.9, 1m)", p90.canonical());
    }

    @Test
    void quantileOfNothingIsNaNAndComparesFalse() {
        Expression e = compile("quantile(tempC, 0.99, 1m) > 0");
        FakeScope card = card(Metric.TEMP_C, 50);
        assertEquals(true, e.value(card));
        assertEquals(false, e.value(card.at(61_000)), "the only sample left the window");
        assertTrue(Double.isNaN(num(compile("quantile(tempC, 0.99, 1m)"), card)));
    }

    @Test
    void quantileNeedsALiteralFromZeroToOne() {
        for (String bad : new String[] {"quantile(tempC, 1.5, 5m) > 1", "quantile(tempC, 99, 5m) > 1",
            "quantile(tempC, -0.1, 5m) > 1", "quantile(tempC, 5m, 5m) > 1", "quantile(tempC, tempC, 5m) > 1"}) {
            DslException e = rejected(bad);
            assertEquals(bad.indexOf(", ") + 2, e.offset(), bad);
            assertTrue(e.getMessage().contains("from 0 to 1"), e.getMessage());
        }
        DslException arity = rejected("quantile(tempC, 5m) > 1");
        assertTrue(arity.getMessage().contains("takes 3 arguments"), arity.getMessage());
    }

    @Test
    void deltaIsNewestMinusOldestWithoutExtrapolation() {
        Expression e = compile("delta(memUsedBytes, 1m)");
        assertEquals(-30, num(e, card(Metric.MEM_USED_BYTES, 100, 170, 90, 70)));
        assertTrue(Double.isNaN(num(e, card(Metric.MEM_USED_BYTES, 100))), "one sample has no delta");
        assertTrue(Double.isNaN(num(e, card(Metric.MEM_USED_BYTES))), "no sample, no delta");
    }

    @Test
    void resetsCountDropsAndChangesCountAnyDifference() {
        Expression resets = compile("resets(eccCorrectedVolatile, 1m)");
        Expression changes = compile("changes(eccCorrectedVolatile, 1m)");
        FakeScope card = card(Metric.ECC_CORRECTED_VOLATILE, 5, 5, 7, 1, 1, 3, 0);
        assertEquals(2, num(resets, card));
        assertEquals(4, num(changes, card));
        FakeScope single = card(Metric.ECC_CORRECTED_VOLATILE, 5);
        assertEquals(0, num(resets, single), "one sample: nothing followed it");
        assertEquals(0, num(changes, single));
        assertTrue(Double.isNaN(num(changes, single.at(120_000))), "no sample in the window");
    }

    @Test
    void transitionFunctionsAskTheirSeriesToKeepTransitions() {
        compile("avg(gpuUtil, 5m) + delta(tempC, 5m) + changes(pstate, 1h)");
        Map<String, Boolean> transitions = new java.util.HashMap<>();
        for (SeriesSpec s : catalog.specs()) {
            transitions.put(s.name(), s.transitions());
        }
        assertEquals(Map.of("gpuUtil", false, "tempC", true, "pstate", true), transitions);
    }

    @Test
    void counterAndGaugeMisuseIsAWarning() {
        compile("delta(eccCorrectedVolatile, 5m) + resets(tempC, 5m)");
        assertEquals(2, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).message().contains("use increase()"), warnings.get(0).message());
        assertEquals(6, warnings.get(0).offset());
        assertTrue(warnings.get(1).message().contains("use changes()"), warnings.get(1).message());
    }

    @Test
    void predictExtrapolatesTheLeastSquaresLine() {
        Expression in10s = compile("predict(memUsedBytes, 1m, 10s)");
        // 100 + 10 per second; the last sample is at 4 s, so 10 s later the line reads 100 + 10 * 14
        FakeScope card = card(Metric.MEM_USED_BYTES, 100, 110, 120, 130, 140);
        assertEquals(240, num(in10s, card), 1e-9);
        Expression full = compile("predict(memUsedBytes, 1m, 1h) > 80GiB");
        FakeScope noisy = card(Metric.MEM_USED_BYTES, 0, 2, 0, 2);
        // slope 0.4 per second through the mean (1 at 1.5 s): at 3 s + 3600 s the line reads 1 + 0.4 * 3601.5
        assertEquals(1 + 0.4 * 3601.5, num(compile("predict(memUsedBytes, 1m, 1h)"), noisy), 1e-9);
        assertEquals(false, full.value(noisy));
        assertTrue(Double.isNaN(num(in10s, card(Metric.MEM_USED_BYTES, 100))), "one sample draws no line");
        assertEquals("predict(memUsedBytes, 1m, 1h) > 80GiB", full.canonical());
    }

    @Test
    void predictNeedsADurationHorizon() {
        DslException e = rejected("predict(memUsedBytes, 15m, 4) > 1");
        assertEquals(27, e.offset());
        assertTrue(e.getMessage().contains("horizon"), e.getMessage());
        assertTrue(rejected("predict(memUsedBytes, 15m) > 1").getMessage().contains("takes 3 arguments"));
        assertTrue(rejected("predict(memUsedBytes, 2d, 1h) > 1").getMessage().contains("longer than the 24h"));
    }

    @Test
    void absentHoldsWhenTheWindowHasNoSample() throws DslException {
        Expression e = compiler.condition("absent(nvlinkErrors, 1m)", warnings);
        FakeScope card = new FakeScope(catalog.specs(), Map.of("node", "n1", "uuid", "GPU-1"));
        assertTrue(e.test(card.at(0)), "a card that never sent the metric");
        card.sample(1000, Map.of(Metric.NVLINK_ERRORS, 0.0));
        assertFalse(e.test(card), "a zero is a sample");
        card.sample(30_000, Map.of(Metric.GPU_UTIL, 50.0));
        assertFalse(e.test(card));
        card.sample(62_000, Map.of(Metric.GPU_UTIL, 50.0));
        assertTrue(e.test(card), "silent for a minute while other metrics arrive");
    }

    @Test
    void unknownFunctionsSuggestTheClosestOrOurNameForAPromQlOne() {
        assertTrue(rejected("quantil(tempC, 0.5, 5m) > 1").getMessage().endsWith("(did you mean `quantile`?)"));
        assertTrue(rejected("predict_linear(tempC, 5m, 1h) > 1").getMessage().endsWith("(did you mean `predict`?)"));
        assertTrue(rejected("absent_over_time(tempC, 5m)").getMessage().endsWith("(did you mean `absent`?)"));
        assertTrue(rejected("frobnicate(tempC) > 1").getMessage().contains("(functions: avg, min"));
    }
}
