package io.gpuwatch.offline.ruletest;

import java.util.List;

/** The outcome of one test of a rule test file; each failure is a message of one or more lines. */
public record TestResult(String name, boolean passed, List<String> failures) {
    public TestResult {
        failures = List.copyOf(failures);
    }
}
