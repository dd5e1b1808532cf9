package io.gpuwatch.rules.sandbox;

import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.dsl.DslCompiler;
import io.gpuwatch.rules.dsl.DslException;
import io.gpuwatch.rules.dsl.EvalContext;
import io.gpuwatch.rules.dsl.SeriesCatalog;
import io.gpuwatch.rules.scope.ScopeKind;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What an accepted rule hands to MVEL cannot reach a class: its generated text is literals, operators and
 * calls of {@link EvalContext}'s methods, and those methods return only numbers, booleans and strings, so
 * there is no object to navigate from.
 */
class GeneratedMvelTest {
    private static final Set<Class<?>> VALUE_TYPES = Set.of(double.class, boolean.class, String.class);
    private static final Set<String> CONTEXT_METHODS = Arrays.stream(EvalContext.class.getDeclaredMethods())
            .filter(m -> Modifier.isPublic(m.getModifiers())).map(Method::getName).collect(Collectors.toSet());

    /** Every construct of the language at least once. */
    private static final List<String> EVERY_FEATURE = List.of(
            "avg(gpuUtil, 5m) > 80 && min(pcieLinkWidth, 1m) < 16 || max(tempC, 30s) >= 85.5",
            "sum(nvlinkLinksDown, 5m) > 0 && count(gpuUtil, 1m) < 30 && last(smClockMHz, 30s) <= 1000",
            "rate(eccCorrectedVolatile, 10m) > 0.1 || increase(eccUncorrectedVolatile, 1h) > 0",
            "slope(memUsedBytes, 2m) > 100MiB/1m && memUsedBytes / 1GiB > 70 && powerW * 2 - 1 > -5 % 3",
            "fraction(tempC > 85 && gpuUtil > 50, 5m) > 0.5",
            "throttled('HW_SLOWDOWN', 'HW_POWER_BRAKE_SLOWDOWN') && !allocated",
            "count(events('xid', 79), 10m) > 0 || count(events('oom'), 1h) > 2",
            "distinct(events('xid'), 1h) != '' && node == 'gpu-a17' && card.uuid != \"it's\"",
            "card.name == 'x' && card.index == '0' && task == 'train' && owner != 'bob' && business == 'ads'",
            "labels.cluster == 'bj-1' && labels['rack-id'] != 'r1' && silentFor > 30s && -gpuUtil < 0",
            "quantile(tempC, 0.99, 10m) > 88 && delta(memUsedBytes, 10m) > 1GiB && resets(pcieReplays, 1h) > 0",
            "changes(pstate, 10m) > 3 && predict(memUsedBytes, 15m, 1h) > 80GiB || absent(tempC, 5m)",
            "consecutive(tempC > 85 && !absent(gpuUtil, 1m), 5) || consecutive(gpuUtil < 5, 30)",
            "true != false");

    @Test
    void evaluationContextMethodsReturnOnlyValues() {
        for (Method m : EvalContext.class.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers())) {
                assertTrue(VALUE_TYPES.contains(m.getReturnType()), m + " returns an object MVEL could navigate");
            }
        }
        assertEquals(Object.class, EvalContext.class.getSuperclass());
        for (Field f : EvalContext.class.getDeclaredFields()) {
            assertTrue(f.isSynthetic() || Modifier.isPrivate(f.getModifiers()), f + " is reachable from MVEL");
        }
    }

    @Test
    void everyFeatureCompilesToCallsOnTheEvaluationContextOnly() throws DslException {
        DslCompiler compiler = new DslCompiler(ScopeKind.CARD, new SeriesCatalog());
        for (String source : EVERY_FEATURE) {
            String mvel = compiler.condition(source, new ArrayList<>()).mvel();
            assertOnlyContextCalls(source, mvel);
        }
    }

    @Test
    void everyRuleAndTemplateOfTheExamplePackCompilesToContextCallsOnly() throws DslException {
        RuleLoad load = RuleSet.load(List.of(Path.of("../examples/rules")));
        assertTrue(load.ok(), load.diagnostics()::toString);
        assertTrue(load.ruleSet().rules().size() >= 5);
        for (Rule r : load.ruleSet().rules()) {
            DslCompiler compiler = new DslCompiler(r.scope(), new SeriesCatalog());
            assertOnlyContextCalls(r.name(), compiler.condition(r.when(), new ArrayList<>()).mvel());
        }
    }

    @Test
    void theCheckRecognisesWhatWouldBeABreach() {
        for (String breach : List.of("Runtime.getRuntime()", "label('node').getClass()", "new java.io.File('x')",
                "avg(1, 2L); last(1)", "x = 1", "{1}", "last(1) > java.lang.Math.PI")) {
            try {
                assertOnlyContextCalls("breach", breach);
            } catch (AssertionError expected) {
                continue;
            }
            fail("the scan let `" + breach + "` through");
        }
    }

    /**
     * Scans MVEL text: strings, numbers ({@code 1.5}, {@code 300000L}), operators and parentheses, and names only
     * where they are {@code true}/{@code false} or a call of an {@link EvalContext} method.
     */
    private static void assertOnlyContextCalls(String what, String mvel) {
        int i = 0;
        while (i < mvel.length()) {
            char c = mvel.charAt(i);
            if (c == '\'' || c == '"') {
                int end = mvel.indexOf(c, i + 1);
                assertTrue(end > i, what + ": unterminated string in " + mvel);
                i = end + 1;
            } else if (Character.isDigit(c)) {
                int j = i;
                while (j < mvel.length() && (Character.isDigit(mvel.charAt(j)) || mvel.charAt(j) == '.')) {
                    j++;
                }
                assertTrue(mvel.substring(i, j).matches("\\d+(\\.\\d+)?"), what + ": odd number in " + mvel);
                i = j < mvel.length() && mvel.charAt(j) == 'L' ? j + 1 : j;
            } else if (Character.isLetter(c)) {
                int j = i;
                while (j < mvel.length() && Character.isLetterOrDigit(mvel.charAt(j))) {
                    j++;
                }
                String name = mvel.substring(i, j);
                boolean call = j < mvel.length() && mvel.charAt(j) == '(';
                assertTrue(name.equals("true") || name.equals("false") || call && CONTEXT_METHODS.contains(name),
                        what + ": `" + name + "` is neither a literal nor an evaluation-context call in " + mvel);
                i = j;
            } else {
                assertTrue(" ()!<>=&|+-*/%,".indexOf(c) >= 0, what + ": `" + c + "` in " + mvel);
                if (c == '=') {
                    char before = i > 0 ? mvel.charAt(i - 1) : ' ';
                    char after = i + 1 < mvel.length() ? mvel.charAt(i + 1) : ' ';
                    assertTrue("=!<>".indexOf(before) >= 0 || after == '=', what + ": assignment in " + mvel);
                }
                i++;
            }
        }
    }
}
