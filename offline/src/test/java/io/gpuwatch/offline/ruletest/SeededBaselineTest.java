package io.gpuwatch.offline.ruletest;

import io.gpuwatch.rules.source.Diagnostic;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A rule test seeds baselines with {@code baselines:}; without a seed a business has no history and nothing fires. */
class SeededBaselineTest {
    private static final Path PACK_TESTS = Path.of("../examples/rules/tests");

    private static String test(String baselines) {
        return """
                rule_files: [../business-baselines.yml]
                tests:
                  - name: t
                    interval: 10s
                """ + baselines + """
                    nodes:
                      - name: n1
                        cards:
                          - uuid: GPU-1
                            processes: [{pid: 1, task: t1, owner: o, business: ads}]
                    input_series:
                      - {card: GPU-1, metric: powerW, values: "450x60"}
                      - {card: GPU-1, metric: gpuUtil, values: "30x60"}
                    alert_rule_test:
                      - eval_time: 5m
                        alertname: power-above-business-baseline
                        exp_alerts: [{exp_labels: {uuid: GPU-1}}]
                """;
    }

    @Test
    void theExampleTestPasses() {
        RuleTestReport r = RuleTests.run(PACK_TESTS.resolve("power-above-business-baseline.test.yml"));
        assertEquals(List.of(), r.diagnostics());
        assertFalse(r.tests().isEmpty());
        assertTrue(r.passed(), r.tests()::toString);
    }

    @Test
    void aSeededBaselineMakesTheRuleFireAndNoSeedMeansNoHistory() {
        RuleTestReport seeded = RuleTests.run("t.test.yml", PACK_TESTS,
                test("    baselines: [{business: ads, metric: powerW, mean: 300, std: 20}]\n"));
        assertEquals(List.of(), seeded.diagnostics());
        assertTrue(seeded.passed(), seeded.tests()::toString);
        RuleTestReport unseeded = RuleTests.run("t.test.yml", PACK_TESTS, test(""));
        assertEquals(List.of(), unseeded.diagnostics());
        assertFalse(unseeded.passed(), "learned from its own 450 W alone, 450 W is normal for ads");
    }

    @Test
    void badSeedsAreErrorsAtTheirPlace() {
        RuleTestReport r = RuleTests.run("t.test.yml", PACK_TESTS,
                test("    baselines: [{business: ads, metric: powr, mean: 300, std: -1}]\n"));
        List<String> errors = r.diagnostics().stream().map(Diagnostic::toString).toList();
        assertEquals(List.of("t.test.yml:5:41: error: unknown metric `powr` (did you mean `powerW`?)",
                "t.test.yml:5:63: error: `std` must be a non-negative number, got `-1`"), errors);
    }
}
