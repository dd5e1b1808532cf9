package io.gpuwatch.rules.dsl;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.scope.FakeScope;
import io.gpuwatch.rules.scope.ScopeKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code baseline(m)} and its accessors: what each reads, NaN without a business or history, load-time errors. */
class BaselineExpressionTest {
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

    /** A card of business ads whose powerW normally is 300 ± 20 and reads 380 now. */
    private Object eval(String src, boolean withBusiness, boolean withHistory) {
        Expression e = compile(src);
        FakeScope card = new FakeScope(catalog.specs(), Map.of("node", "n1", "uuid", "GPU-1"));
        if (withBusiness) {
            card.label("business", "ads");
        }
        if (withHistory) {
            card.baseline("ads", Metric.POWER_W, 300, 20);
        }
        return e.value(card.sample(1_000, Map.of(Metric.POWER_W, 380.0)));
    }

    private double num(String src) {
        return (Double) eval(src, true, true);
    }

    @Test
    void eachAccessorReadsItsFigure() {
        assertEquals(300, num("baseline(powerW).mean"));
        assertEquals(20, num("baseline(powerW).std"));
        assertEquals(360, num("baseline(powerW).upper(3)"));
        assertEquals(250, num("baseline(powerW).lower(2.5)"));
        assertEquals(4, num("baseline(powerW).zscore"));
        assertEquals(true, eval("powerW > baseline(powerW).upper(3)", true, true));
        assertEquals(false, eval("powerW > baseline(powerW).upper(5)", true, true));
    }

    @Test
    void withoutHistoryOrBusinessEveryFigureIsNaNAndNothingFires() {
        for (boolean business : new boolean[] {true, false}) {
            assertTrue(((Double) eval("baseline(powerW).mean", business, false)).isNaN());
            assertTrue(((Double) eval("baseline(powerW).zscore", business, false)).isNaN());
            assertEquals(false, eval("powerW > baseline(powerW).upper(3)", business, false));
            assertEquals(false, eval("powerW < baseline(powerW).lower(3)", business, false));
            assertEquals(false, eval("baseline(powerW).zscore > 2", business, false));
        }
        assertTrue(((Double) eval("baseline(powerW).std", false, true)).isNaN(), "no business, no baseline");
    }

    @Test
    void theCanonicalFormAndMvelCallOnlyTheContext() {
        Expression e = compile("powerW>baseline( powerW ).upper(4)&&gpuUtil<50");
        assertEquals("(powerW > baseline(powerW).upper(4)) && (gpuUtil < 50)", e.canonical());
        assertEquals("((last(0) > baseline(0, 2, 4.0)) && (last(1) < 50.0))", e.mvel());
    }

    @Test
    void theRuleSetSaysWhichMetricsAreBaselined() {
        RuleLoad load = RuleSet.parse("b.yml", "group: g\nlayer: business\nseverity: inspect\nrules:\n"
                + "  - name: r\n    when: powerW > baseline(powerW).upper(4) && gpuUtil < 50\n"
                + "    summary: \"@{baseline(memUsedBytes).mean}\"\n");
        assertTrue(load.ok(), load.diagnostics()::toString);
        assertEquals(Set.of("powerW", "memUsedBytes"), load.ruleSet().baselined());
        RuleLoad none = RuleSet.parse("n.yml", "group: g\nlayer: device\nseverity: page\nrules:\n"
                + "  - name: r\n    when: avg(powerW, 5m) > 400\n");
        assertEquals(Set.of(), none.ruleSet().baselined());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "baseline(powerW) > 1 | 6:11 | baseline(m) needs .mean, .std, .upper(k), .lower(k) or .zscore, "
            + "e.g. baseline(powerW).upper(3)",
        "baseline(powerW).upr(3) > 1 | 6:28 | unknown baseline accessor `.upr`; baseline(m) needs .mean, .std, "
            + ".upper(k), .lower(k) or .zscore",
        "baseline(powerW).uper(3) > 1 | 6:28 | unknown baseline accessor `.uper` (did you mean `upper`?)",
        "baseline(powerW).zscor > 1 | 6:28 | unknown baseline accessor `.zscor` (did you mean `zscore`?)",
        "baseline(powerW).upper > 1 | 6:28 | `.upper` takes one argument k, the number of standard deviations, "
            + "e.g. baseline(powerW).upper(3)",
        "baseline(powerW).lower(1, 2) > 1 | 6:28 | `.lower` takes one argument k, the number of standard "
            + "deviations, e.g. baseline(powerW).lower(3)",
        "baseline(powerW).upper(gpuUtil) > 1 | 6:34 | k of `.upper(k)` must be a plain number literal, e.g. 3",
        "baseline(powerW).upper(5m) > 1 | 6:34 | k of `.upper(k)` must be a plain number literal, e.g. 3",
        "baseline(powerW).mean() > 1 | 6:28 | `.mean` takes no arguments: baseline(powerW).mean",
        "baseline(powerw).mean > 1 | 6:20 | unknown metric `powerw` (did you mean `powerW`?)",
        "baseline(powerW, 5m).mean > 1 | 6:11 | `baseline` takes 1 argument (metric), got 2",
        "baseline(powerW).mean.std > 1 | 6:32 | `.` is not allowed here: rule expressions cannot call methods or "
            + "read fields",
        "baseline(powerW).mean | 6:11 | a condition must be true/false, but this is a number",
        "baseline > 1 | 6:11 | `baseline` is a function: baseline(metric) with .mean, .std, .upper(k), .lower(k) "
            + "or .zscore",
        "avg(powerW, 5m).mean > 1 | 6:26 | `.` is not allowed here: rule expressions cannot call methods or read "
            + "fields",
    })
    void mistakesAreErrorsAtTheirPosition(String when, String at, String message) {
        assertEquals("r.yml:" + at + ": error: " + message, RejectionTest.error(when));
    }
}
