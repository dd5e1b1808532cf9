package io.gpuwatch.rules;

import io.gpuwatch.rules.source.Diagnostic;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What `rules check` reports beyond syntax: conditions that can never hold, misplaced functions, typos. */
class LintTest {
    private static List<String> check(String when) {
        RuleLoad load = RuleSet.parse("l.yml", "group: g\nlayer: device\nseverity: ticket\nrules:\n"
                + "  - name: r\n    when: " + when + "\n");
        return load.diagnostics().stream().map(Diagnostic::toString).toList();
    }

    /** A single warning, and the load still succeeds. */
    private static String warning(String when) {
        RuleLoad load = RuleSet.parse("l.yml", "group: g\nlayer: device\nseverity: ticket\nrules:\n"
                + "  - name: r\n    when: " + when + "\n");
        assertTrue(load.ok(), load.diagnostics()::toString);
        assertEquals(1, load.diagnostics().size(), load.diagnostics()::toString);
        return load.diagnostics().get(0).toString();
    }

    @Test
    void aComparisonOutsideTheMetricsRangeIsNeverTrue() {
        assertEquals("l.yml:6:19: warning: `gpuUtil > 100` is never true: `gpuUtil` lies in 0..100",
                warning("gpuUtil > 100"));
        assertEquals("l.yml:6:19: warning: `gpuUtil < 0` is never true: `gpuUtil` lies in 0..100",
                warning("gpuUtil < 0"));
        assertEquals("l.yml:6:29: warning: `avg(smActive, 5m) >= 1.5` is never true: `avg(smActive, 5m)` lies in 0..1",
                warning("avg(smActive, 5m) >= 1.5"));
        assertEquals("l.yml:6:33: warning: `rate(pcieReplays, 5m) < 0` is never true: `rate(pcieReplays, 5m)` is "
                + "never negative", warning("rate(pcieReplays, 5m) < 0"));
        assertEquals("l.yml:6:25: warning: `(gpuUtil / 100) > 2` is never true: `gpuUtil / 100` lies in 0..1",
                warning("gpuUtil / 100 > 2"));
    }

    @Test
    void contradictoryBoundsOnOneSeriesAreNeverTrue() {
        assertEquals("l.yml:6:22: warning: `(tempC > 90) && (tempC < 50)` is never true: `tempC` cannot be > 90 "
                + "and < 50 at once", warning("tempC > 90 && tempC < 50"));
        assertEquals("l.yml:6:37: warning: `((tempC > 50) && (gpuUtil > 5)) && (50 >= tempC)` is never true: "
                + "`tempC` cannot be > 50 and <= 50 at once", warning("tempC > 50 && gpuUtil > 5 && 50 >= tempC"));
    }

    @Test
    void literalsFoldAndAConstantFalseConditionIsReported() {
        assertEquals("l.yml:6:13: warning: `1 > 2` is always false", warning("1 > 2"));
        assertEquals("l.yml:6:11: warning: `false` is always false, so this rule never fires", warning("false"));
        assertEquals("l.yml:6:12: warning: `!true || false` is always false, so this rule never fires",
                warning("'!true || false'"));
    }

    @Test
    void conditionsThatCanHoldAreNotReported() {
        for (String fine : new String[] {"gpuUtil >= 100", "gpuUtil > 99.5", "tempC < 0", "tempC > 50 && tempC < 60",
            "tempC >= 50 && tempC <= 50", "tempC > 90 || tempC < 50", "delta(gpuUtil, 5m) < -50", "silentFor > 30s",
            "avg(tempC, 5m) > 90 && tempC < 50", "gpuUtil != 200", "true", "count(events('xid'), 5m) > 0 || true"}) {
            assertEquals(List.of(), check(fine), fine);
        }
    }

    @Test
    void consecutiveBelongsInWhenOnly() {
        RuleLoad load = RuleSet.parse("l.yml", """
                group: g
                layer: device
                severity: ticket
                rules:
                  - name: r
                    when: fraction(consecutive(tempC > 80, 3), 5m) > 0.5
                  - name: s
                    when: consecutive(consecutive(tempC > 80, 3), 2)
                  - name: t
                    when: consecutive(tempC > 80, 0)
                  - name: u
                    when: consecutive(tempC > 80, 3)
                    summary: "hot @{consecutive(tempC > 80, 3)}"
                """);
        assertEquals(List.of(
                "l.yml:6:20: error: `consecutive` cannot be used inside `fraction`, which evaluates its condition "
                        + "per sample, not per evaluation",
                "l.yml:8:23: error: `consecutive` cannot be nested: combine the conditions inside one consecutive()",
                "l.yml:10:35: error: the second argument of `consecutive` is how many evaluations in a row, a whole "
                        + "number from 1 to 1000000, e.g. 5",
                "l.yml:13:21: error: `consecutive` counts evaluations of a rule, so it can only be used in `when`"),
                load.diagnostics().stream().map(Diagnostic::toString).toList());
    }

    @Test
    void existingChecksStillNameTheirPlace() {
        assertEquals(List.of("l.yml:6:15: error: unknown metric `gpuutil` (did you mean `gpuUtil`?)"),
                check("avg(gpuutil, 5m) > 1"));
        assertEquals(List.of("l.yml:6:11: error: `avg` takes 2 arguments (metric, window), got 3"),
                check("avg(gpuUtil, 5m, 1m) > 1"));
        assertEquals(List.of("l.yml:6:32: error: window 2d is longer than the 24h the gateway keeps"),
                check("quantile(tempC, 0.9, 2d) > 1"));
        assertEquals(List.of("l.yml:6:11: error: unknown function `slop` (did you mean `slope`?)"),
                check("slop(tempC, 5m) > 1"));
    }

    @Test
    void forOnAPageRuleOfConsecutiveEventCountsStillWarns() {
        RuleLoad load = RuleSet.parse("l.yml", """
                group: g
                layer: device
                severity: page
                rules:
                  - name: r
                    when: consecutive(count(events('xid', 79), 10m) > 0, 2)
                    for: 1m
                """);
        assertTrue(load.ok());
        assertEquals(List.of("l.yml:7:10: warning: `for` delays a hard-fault page: `when` only counts events, which "
                + "are facts the moment they arrive"), load.diagnostics().stream().map(Diagnostic::toString).toList());
    }
}
