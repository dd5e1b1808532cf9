package io.gpuwatch.rules.dsl;

import io.gpuwatch.protocol.ClockEventReason;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.metric.SeriesSpec;
import io.gpuwatch.rules.scope.FakeScope;
import io.gpuwatch.rules.scope.ScopeKind;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What expressions evaluate to: literals, precedence, every function and builtin, NaN semantics. */
class ExpressionTest {
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

    private Object eval(String src) {
        Expression e = compile(src);
        return e.value(new FakeScope(catalog.specs(), Map.of("node", "n1", "uuid", "GPU-1")).at(0));
    }

    private double num(String src) {
        return (Double) eval(src);
    }

    @Test
    void durationLiteralsAreMilliseconds() {
        assertEquals(500, num("500ms"));
        assertEquals(30_000, num("30s"));
        assertEquals(300_000, num("5m"));
        assertEquals(3_600_000, num("1h"));
        assertEquals(7 * 86_400_000.0, num("7d"));
        assertEquals(5_400_000, num("1.5h"));
    }

    @Test
    void sizeLiteralsAreBytes() {
        assertEquals(512.0 * 1024 * 1024, num("512MiB"));
        assertEquals(2e9, num("2GB"));
        assertEquals(1024, num("1KiB"));
        assertEquals(1000, num("1kB"));
        assertEquals(1, num("1B"));
        assertEquals(3.0 * (1L << 40), num("3TiB"));
    }

    @Test
    void rateLiteralsAreBytesPerSecond() {
        assertEquals(50.0 * 1024 * 1024 / 60, num("50MiB/1m"), 1e-9);
        assertEquals(1e6, num("1MB/1s"));
        // a size divided by something other than a duration literal stays plain division
        assertEquals(512, num("1KiB / 2"));
        assertEquals(1536, num("1KiB / 2 * 3"));
    }

    @Test
    void precedenceFollowsTheUsualRules() {
        assertEquals(7, num("1 + 2 * 3"));
        assertEquals(9, num("(1 + 2) * 3"));
        assertEquals(3, num("10 - 4 - 3"));
        assertEquals(2, num("8 / 2 / 2"));
        assertEquals(-6, num("-2 * 3"));
        assertEquals(1, num("7 % 3"));
        assertEquals(4, num("- -4"));
        assertEquals(true, eval("true || false && false"));
        assertEquals(false, eval("!true && true"));
        assertEquals(true, eval("!(true && false)"));
        assertEquals(true, eval("1 < 2 == 3 > 2"));
        assertEquals(true, eval("1 + 1 >= 2 && 2 * 2 != 5"));
    }

    @Test
    void stringsCompareByValue() {
        assertEquals(true, eval("'a b' == \"a b\""));
        assertEquals(false, eval("'x' != 'x'"));
        assertEquals(true, eval("\"it's\" == \"it's\""));
        assertEquals(true, eval("'推理' == '推理'"));
    }

    @Test
    void windowFunctionsReadTheSeries() {
        Expression avg = compile("avg(gpuUtil, 1m)");
        Expression min = compile("min(gpuUtil, 1m)");
        Expression max = compile("max(gpuUtil, 1m)");
        Expression sum = compile("sum(gpuUtil, 1m)");
        Expression count = compile("count(gpuUtil, 1m)");
        Expression last = compile("last(gpuUtil, 1m)");
        Expression bare = compile("gpuUtil");
        Expression rate = compile("rate(energyJ, 1m)");
        Expression increase = compile("increase(energyJ, 1m)");
        Expression slope = compile("slope(memUsedBytes, 1m)");
        FakeScope card = new FakeScope(catalog.specs(), Map.of("node", "n1", "uuid", "GPU-1"));
        double[] util = {10, 20, 90, 40};
        for (int i = 0; i < util.length; i++) {
            card.sample(i * 1000L, Map.of(Metric.GPU_UTIL, util[i], Metric.ENERGY_J, 100.0 + 60 * i,
                    Metric.MEM_USED_BYTES, 1000.0 + 500 * i));
        }
        assertEquals(40.0, avg.value(card));
        assertEquals(10.0, min.value(card));
        assertEquals(90.0, max.value(card));
        assertEquals(160.0, sum.value(card));
        assertEquals(4.0, count.value(card));
        assertEquals(40.0, last.value(card));
        assertEquals(40.0, bare.value(card));
        assertEquals(180.0, increase.value(card));
        assertEquals(3.0, rate.value(card));
        assertEquals(500.0, (Double) slope.value(card), 1e-9);
        card.at(10 * 60_000L);
        assertTrue(Double.isNaN((Double) last.value(card)), "last() with a window ignores values older than it");
    }

    @Test
    void missingDataIsNaNAndComparisonsOnItAreFalse() {
        assertEquals(false, eval("avg(tempC, 5m) > 5"));
        assertEquals(false, eval("avg(tempC, 5m) <= 5"));
        assertEquals(true, eval("avg(tempC, 5m) != 5"));
        assertEquals(0.0, num("count(tempC, 5m)"));
    }

    @Test
    void fractionDerivesASeriesFromItsCondition() {
        Expression e = compile("fraction(throttled('HW_THERMAL_SLOWDOWN', 'HW_SLOWDOWN'), 1m)");
        SeriesSpec derived = catalog.specs().stream().filter(s -> s.derivation() != null).findFirst().orElseThrow();
        assertEquals("throttled('HW_THERMAL_SLOWDOWN', 'HW_SLOWDOWN')", derived.name());
        assertNull(derived.metric());
        assertEquals(60_000, derived.windowMs());
        FakeScope card = new FakeScope(catalog.specs(), Map.of("node", "n1", "uuid", "GPU-1"));
        long thermal = ClockEventReason.HW_THERMAL_SLOWDOWN.bit();
        long powerCap = ClockEventReason.SW_POWER_CAP.bit();
        double[] masks = {thermal, thermal | powerCap, powerCap, 0};
        for (int i = 0; i < masks.length; i++) {
            card.sample(i * 1000L, Map.of(Metric.CLOCK_EVENT_REASONS, masks[i]));
        }
        assertEquals(0.5, e.value(card));
        FakeScope unknown = new FakeScope(catalog.specs(), Map.of("node", "n1", "uuid", "GPU-2"));
        assertTrue(Double.isNaN(derived.derivation().derive(unknown.sample(0, Map.of(Metric.GPU_UTIL, 50.0)))),
                "a card without a mask derives NaN, not false");
    }

    @Test
    void throttledReadsTheLatestMask() {
        Expression e = compile("throttled('SW_POWER_CAP')");
        FakeScope card = new FakeScope(catalog.specs(), Map.of("node", "n1", "uuid", "GPU-1"));
        assertFalse(e.test(card.sample(0, Map.of())));
        assertTrue(e.test(card.sample(1000, Map.of(Metric.CLOCK_EVENT_REASONS,
                (double) (ClockEventReason.SW_POWER_CAP.bit() | ClockEventReason.GPU_IDLE.bit())))));
        assertFalse(e.test(card.sample(2000, Map.of(Metric.CLOCK_EVENT_REASONS,
                (double) ClockEventReason.HW_SLOWDOWN.bit()))));
    }

    @Test
    void eventsAreCountedAndListed() {
        Expression any = compile("count(events('xid'), 10m)");
        Expression code = compile("count(events('xid', 79), 10m)");
        Expression oom = compile("count(events('oom'), 1m)");
        Expression codes = compile("distinct(events('xid'), 10m)");
        FakeScope node = new FakeScope(catalog.specs(), Map.of("node", "n1"));
        node.event(1000, "xid", 79).event(2000, "xid", 13).event(3000, "xid", 79).event(4000, "oom", -1);
        node.at(5000);
        assertEquals(3.0, any.value(node));
        assertEquals(2.0, code.value(node));
        assertEquals(1.0, oom.value(node));
        assertEquals("13, 79", codes.value(node));
        node.at(64_000);
        assertEquals(0.0, oom.value(node), "the OOM fell out of the 1m window");
        assertEquals(10 * 60_000L, catalog.horizonMs());
    }

    @Test
    void labelsAndBuiltinsReadTheScope() {
        Expression owner = compile("owner == 'team-llm' && labels.cluster == 'bj-1' && labels['rack-id'] == 'r12'");
        Expression card = compile("card.name");
        Expression silent = compile("silentFor > 30s");
        Expression alloc = compile("allocated");
        FakeScope scope = new FakeScope(catalog.specs(), Map.of("node", "n1", "uuid", "GPU-1"));
        scope.label("owner", "team-llm").label("labels.cluster", "bj-1").label("labels.rack-id", "r12")
                .label("card.name", "H100");
        scope.heard(0).at(31_000).allocated(true);
        assertEquals(true, owner.value(scope));
        assertEquals("H100", card.value(scope));
        assertEquals(true, silent.value(scope));
        assertEquals(true, alloc.value(scope));
        assertEquals(false, silent.value(scope.at(30_000)));
        assertNull(compile("task").value(scope), "an absent label is null, rendered as n/a");
    }

    @Test
    void seriesSpecsCarryTheLongestWindow() {
        compile("avg(gpuUtil, 1m) > 1 && max(gpuUtil, 5m) > 1 && tempC > 1");
        List<SeriesSpec> specs = catalog.specs();
        assertEquals(2, specs.size());
        assertEquals(new SeriesSpec(0, "gpuUtil", Metric.GPU_UTIL, null, 300_000, false), specs.get(0));
        assertEquals(new SeriesSpec(1, "tempC", Metric.TEMP_C, null, 0, false), specs.get(1));
    }

    @Test
    void canonicalFormIsNormalised() {
        assertEquals("(avg(gpuUtil, 90s) > 80) && (fraction(gpuUtil > 5, 1m) > 0.5)",
                compile("avg( gpuUtil,90000ms )>80&&(fraction(gpuUtil>5,60s)>0.5)").canonical());
        assertEquals("slope(memUsedBytes, 2m) > 100MiB/1m", compile("slope(memUsedBytes,120s)>100MiB/1m").canonical());
        assertEquals("((last(0) > 80.0) && (fraction(1, 60000L) > 0.5))",
                compile("gpuUtil > 80 && fraction(gpuUtil > 5, 1m) > 0.5").mvel());
    }

    @Test
    void resultsStayTheSameOnceMvelCompilesItsAccessors() {
        Expression e = compile("avg(gpuUtil, 1m) > 50 && node == 'n1' && !(silentFor > 30s)");
        FakeScope card = new FakeScope(catalog.specs(), Map.of("node", "n1", "uuid", "GPU-1"));
        card.sample(0, Map.of(Metric.GPU_UTIL, 60.0));
        for (int i = 0; i < 1000; i++) {
            assertTrue(e.test(card.at(i)), "evaluation " + i);
        }
    }

    @Test
    void mvelThatBypassedTheCheckerStillCannotLoadClasses() {
        Expression x = Expression.compile("x", "new java.io.File('/tmp')", Node.bool(true), false, List.of(),
                List.of(), 0, Set.of(), null, null);
        FakeScope card = new FakeScope(catalog.specs(), Map.of("node", "n1", "uuid", "GPU-1"));
        // MVEL compiles on the first value asked, and refuses there
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> x.value(card.at(0)));
        assertTrue(e.getMessage().startsWith("internal error: MVEL rejected `new java.io.File('/tmp')`"),
                e.getMessage());
        assertThrows(IllegalStateException.class, () -> x.value(card.at(1)), "refused again, never cached");
    }

    @Test
    void templatesRenderNumbersForPeople() {
        assertEquals("3", Template.format(3.0));
        assertEquals("0.5", Template.format(0.5));
        assertEquals("1.23", Template.format(1.2345));
        assertEquals("-2.5", Template.format(-2.5));
        assertEquals("85899345920", Template.format(80.0 * (1L << 30)));
        assertEquals("n/a", Template.format(Double.NaN));
        assertEquals("n/a", Template.format(null));
        assertEquals("true", Template.format(true));
    }

    @Test
    void templatesEvaluateTheirParts() throws DslException {
        Template t = Template.compile("@{card.name} on @{node}: @{avg(gpuUtil, 1m)}% for @{30s / 1000} s, @{task}",
                compiler, warnings);
        FakeScope card = new FakeScope(catalog.specs(), Map.of("node", "n1", "uuid", "GPU-1"));
        card.label("card.name", "H100");
        card.sample(0, Map.of(Metric.GPU_UTIL, 97.0)).sample(1000, Map.of(Metric.GPU_UTIL, 96.5));
        assertEquals("H100 on n1: 96.75% for 30 s, n/a", t.render(card));
        assertEquals("plain text, an @ sign and {braces}",
                Template.compile("plain text, an @ sign and {braces}", compiler, warnings).render(card));
    }
}
