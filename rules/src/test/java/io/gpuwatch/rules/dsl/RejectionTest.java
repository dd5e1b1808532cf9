package io.gpuwatch.rules.dsl;

import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.source.Diagnostic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Everything outside the allow-list is an error at the exact file:line:column of the offending token.
 * The expression sits on line 6 of the file, starting at column 11.
 */
class RejectionTest {
    private static final String HEAD = "group: g\nlayer: device\nseverity: page\nrules:\n  - name: r\n    when: ";

    static List<Diagnostic> errors(String when) {
        RuleLoad load = RuleSet.parse("r.yml", HEAD + when + "\n");
        assertFalse(load.ok(), when + " was accepted");
        assertNull(load.ruleSet());
        return load.diagnostics().stream().filter(d -> d.level() == Diagnostic.Level.ERROR).toList();
    }

    static String error(String when) {
        List<Diagnostic> errors = errors(when);
        assertEquals(1, errors.size(), errors.toString());
        return errors.get(0).toString();
    }

    @Test
    void hostileMvelPayloadsAreRejectedWhereTheyStart() {
        assertEquals("r.yml:6:11: error: `Runtime` is not allowed: rule expressions cannot reach Java classes or "
                + "reflection", error("Runtime.getRuntime().exec('touch /tmp/x')"));
        assertEquals("r.yml:6:14: error: `.` is not allowed here: rule expressions cannot call methods or read fields",
                error("\"''.getClass().forName('java.lang.Runtime')\""));
        assertEquals("r.yml:6:11: error: `new` is not allowed: rule expressions cannot create objects",
                error("new java.io.File('/')"));
        assertEquals("r.yml:6:11: error: `def` is not allowed: a rule expression is one condition, without "
                + "statements or loops", error("def f(){}"));
        assertEquals("r.yml:6:13: error: `=` assigns, which rule expressions cannot do; compare with `==`",
                error("x = 1"));
        assertEquals("r.yml:6:11: error: `while` is not allowed: a rule expression is one condition, without "
                + "statements or loops", error("while(true){}"));
        assertEquals("r.yml:6:11: error: `System` is not allowed: rule expressions cannot reach Java classes or "
                + "reflection", error("System.getenv()"));
        assertEquals("r.yml:6:11: error: `import` is not allowed: rule expressions cannot load classes",
                error("import java.lang.Runtime"));
        assertEquals("r.yml:6:11: error: `org` is not allowed: rule expressions cannot reach Java classes or "
                + "reflection", error("org.mvel2.MVEL.eval('1')"));
        assertEquals("r.yml:6:18: error: `getClass` is not allowed: rule expressions cannot reach Java classes or "
                + "reflection", error("labels.getClass().forName('x')"));
        assertEquals("r.yml:6:18: error: `.` is not allowed here: rule expressions cannot call methods or read fields",
                error("gpuUtil.toString() == '1'"));
        assertEquals("r.yml:6:22: error: `;` is not allowed: a rule expression is one condition, not statements",
                error("gpuUtil > 5; System.exit(0)"));
        assertEquals("r.yml:6:21: error: `@` is not allowed in expressions (`@{…}` belongs in summary and description)",
                error("gpuUtil > @{gpuUtil}"));
        assertEquals("r.yml:6:23: error: comments are not allowed in expressions", error("gpuUtil > 5 // x"));
        assertEquals("r.yml:6:26: error: `{` is not allowed: rule expressions have no blocks",
                error("gpuUtil > 5 && {1}"));
        assertEquals("r.yml:6:26: error: non-ASCII character `é` is only allowed inside strings",
                error("gpuUtil > 5 && é"));
        assertEquals("r.yml:6:11: error: `this` is not allowed: missing data reads as NaN, which makes comparisons "
                + "false", error("this.avg(0, 1L) > 0"));
        assertEquals("r.yml:6:11: error: `foreach` is not allowed: a rule expression is one condition, without "
                + "statements or loops", error("foreach (x in labels) {}"));
        assertEquals("r.yml:6:26: error: `contains` is not allowed: it is an MVEL operator, not part of the rule "
                + "language", error("labels.cluster contains 'x'"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "avg(gpuutil, 5m) > 1 | 6:15 | unknown metric `gpuutil` (did you mean `gpuUtil`?)",
        "gpuutil > 1 | 6:11 | unknown name `gpuutil` (not a metric, label or builtin) (did you mean `gpuUtil`?)",
        "foo > 1 | 6:11 | unknown name `foo` (not a metric, label or builtin)",
        "foo(gpuUtil) > 1 | 6:11 | unknown function `foo` (functions: avg, min, max, sum, count, last, rate, "
            + "increase, slope, delta, resets, changes, quantile, predict, absent, fraction, consecutive, throttled, "
            + "events, distinct, baseline, peers, taskSuccessRate, tasksEnded)",
        "avg(gpuUtil) > 1 | 6:11 | `avg` takes 2 arguments (metric, window), got 1",
        "slope(memUsedBytes, 1m, 2m) > 1 | 6:11 | `slope` takes 2 arguments (metric, window), got 3",
        "avg(gpuUtil, 5) > 1 | 6:24 | the window must be a duration literal such as 30s, 5m or 1h",
        "avg(gpuUtil, 1m + 1m) > 1 | 6:24 | the window must be a duration literal such as 30s, 5m or 1h",
        "avg(node, 5m) > 1 | 6:15 | the first argument of `avg` must be a metric name, e.g. avg(gpuUtil, 5m)",
        "avg(gpuUtil * 2, 5m) > 1 | 6:15 | the first argument of `avg` must be a metric name, e.g. avg(gpuUtil, 5m)",
        "avg(gpuUtil, 2d) > 1 | 6:24 | window 2d is longer than the 24h the gateway keeps",
        "avg(gpuUtil, 0s) > 1 | 6:24 | the window must be longer than 0",
        "avg(gpuUtil, 1m) | 6:11 | a condition must be true/false, but this is a number",
        "gpuUtil > 1 && node | 6:26 | `&&` needs true/false on both sides, but its right side is a string",
        "node > 5 | 6:11 | `>` needs a number on both sides, but its left side is a string",
        "node == 5 | 6:16 | `==` compares values of one type, but this compares a string with a number",
        "oomTotal > 0 | 6:11 | `oomTotal` is an application metric, read in task, replica or business scope, not card",
        "waitP50s > 0 | 6:11 | `waitP50s` is a scheduling metric, read in queue scope, not card",
        "clockEventReasons > 0 | 6:11 | `clockEventReasons` is a set of bits; test it with throttled('REASON', …)",
        "throttled('HOT') | 6:21 | unknown clock-event reason `HOT` (GPU_IDLE, APPLICATIONS_CLOCKS_SETTING, "
            + "SW_POWER_CAP, HW_SLOWDOWN, SYNC_BOOST, SW_THERMAL_SLOWDOWN, HW_THERMAL_SLOWDOWN, "
            + "HW_POWER_BRAKE_SLOWDOWN, DISPLAY_CLOCK_SETTING)",
        "throttled(HW_SLOWDOWN) | 6:21 | `throttled` takes reason names in quotes, e.g. throttled('HW_SLOWDOWN')",
        "throttled() | 6:11 | `throttled` needs at least one reason, e.g. throttled('HW_SLOWDOWN')",
        "events('xid') > 0 | 6:11 | `events(…)` can only be the first argument of count() or distinct()",
        "count(events('oom', 3), 5m) > 0 | 6:31 | only `xid` events carry a code",
        "count(events('xid', 7.5), 5m) > 0 | 6:31 | the event code must be a whole number, e.g. 79",
        "count(events('Xid'), 5m) > 0 | 6:24 | event kinds are lower_snake_case names, e.g. 'xid' or 'oom'",
        "distinct(gpuUtil, 5m) == '' | 6:20 | the first argument of `distinct` must be events(kind[, code])",
        "fraction(gpuUtil, 1m) > 0 | 6:20 | the first argument of `fraction` must be a condition (true/false), "
            + "e.g. fraction(gpuUtil > 90, 5m), but this is a number",
        "card.serial == 'x' | 6:16 | unknown card label `card.serial` (card.uuid, card.name, card.index)",
        "card == 'x' | 6:11 | `card` needs a label: card.uuid, card.name or card.index",
        "avg > 1 | 6:11 | `avg` is a function: avg(metric, window)",
        "gpuUtil(1m) > 1 | 6:11 | `gpuUtil` is not a function",
        "gpuUtil > 5mb | 6:22 | unknown unit `mb` (durations: ms s m h d; sizes: B kB KB MB GB TB KiB MiB GiB TiB)",
        "gpuUtil > 1h30m | 6:21 | malformed number `1h30m` (one unit per literal, e.g. 90m or 512MiB)",
        "node == 'x | 6:19 | unterminated string",
        "(gpuUtil > 1 | 6:23 | expected `)`, found the end of the expression",
        "gpuUtil > | 6:20 | expected a value, found the end of the expression",
        "gpuUtil > 1 1 | 6:23 | expected an operator or the end of the expression, found `1`",
        "avg(gpuUtil 1m) > 1 | 6:23 | expected `,` or `)`, found `1m`",
        "(gpuUtil)(1) > 1 | 6:20 | only functions can be called, and this is not a function name",
        "gpuUtil > 1 & tempC > 1 | 6:23 | `&` is not an operator here; use `&&` for and",
    })
    void mistakesAreErrorsAtTheirPosition(String when, String at, String message) {
        assertEquals("r.yml:" + at + ": error: " + message, error(when));
    }

    @Test
    void negationNeedsACondition() {
        assertEquals("r.yml:6:13: error: `!` needs true/false, but this is a number", error("\"!gpuUtil\""));
    }

    @Test
    void nodeScopeHasNoCardLabels() {
        RuleLoad load = RuleSet.parse("n.yml", "group: g\nlayer: device\nseverity: page\nscope: node\nrules:\n"
                + "  - name: r\n    when: card.name == 'x'\n");
        assertEquals("n.yml:7:11: error: `card.name` is not available in node scope",
                load.diagnostics().get(0).toString());
    }

    @Test
    void deepNestingAndHugeExpressionsAreRefused() {
        assertEquals("r.yml:6:75: error: expression is nested more than 64 levels deep",
                error("(".repeat(70) + "1 > 0" + ")".repeat(70)));
        String huge = "gpuUtil > 1" + " || gpuUtil > 1".repeat(300);
        assertEquals("r.yml:6:4107: error: expression is longer than 4096 characters", error(huge));
    }
}
