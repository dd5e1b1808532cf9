package io.gpuwatch.offline.ruletest;

import io.gpuwatch.rules.source.Diagnostic;

import java.util.List;

/**
 * The outcome of one rule test file: problems with the file or its rule files (GCC-style diagnostics; an error
 * means no test ran) and the result of each test, in file order.
 */
public record RuleTestReport(String file, List<Diagnostic> diagnostics, List<TestResult> tests) {
    public RuleTestReport {
        diagnostics = List.copyOf(diagnostics);
        tests = List.copyOf(tests);
    }

    /** True when the file and its rules loaded without error and every test passed. */
    public boolean passed() {
        return diagnostics.stream().noneMatch(d -> d.level() == Diagnostic.Level.ERROR)
                && tests.stream().allMatch(TestResult::passed);
    }
}
