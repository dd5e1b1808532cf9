package io.gpuwatch.offline.ruletest;

import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Keeps the example pack honest: every rule in examples/rules has tests, and every test passes. */
class ExamplePackTest {
    private static final Path PACK = Path.of("../examples/rules");

    @Test
    void everyTestFileOfThePackPasses() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Path file : testFiles()) {
            RuleTestReport report = RuleTests.run(file);
            report.diagnostics().forEach(d -> problems.add(d.toString()));
            for (TestResult t : report.tests()) {
                if (!t.passed()) {
                    problems.add("FAIL " + file + ": " + t.name() + "\n" + String.join("\n", t.failures()));
                }
            }
            assertFalse(report.tests().isEmpty(), file + " ran no test");
        }
        assertEquals(List.of(), problems, String.join("\n", problems));
    }

    @Test
    void everyRuleOfThePackIsCheckedBySomeTest() throws IOException {
        RuleLoad load = RuleSet.load(List.of(PACK));
        assertTrue(load.ok(), load.diagnostics().toString());
        Set<String> rules = new TreeSet<>();
        for (Rule r : load.ruleSet().rules()) {
            rules.add(r.name());
        }
        Set<String> tested = new TreeSet<>();
        for (Path file : testFiles()) {
            for (String line : Files.readAllLines(file)) {
                String t = line.strip();
                if (t.startsWith("alertname:")) {
                    tested.add(t.substring("alertname:".length()).strip());
                }
            }
        }
        assertEquals(rules, tested);
    }

    @Test
    void everyRuleOfThePackHasARunbookEntryAndItsLinkLeadsThere() throws IOException {
        RuleLoad load = RuleSet.load(List.of(PACK));
        assertTrue(load.ok(), load.diagnostics().toString());
        Set<String> entries = new TreeSet<>();
        for (String line : Files.readAllLines(Path.of("../docs/runbooks.md"))) {
            if (line.startsWith("## ")) {
                entries.add(line.substring(3).strip());
            }
        }
        List<String> missing = new ArrayList<>();
        for (Rule r : load.ruleSet().rules()) {
            if (!entries.contains(r.name())) {
                missing.add(r.name() + " has no entry in docs/runbooks.md");
            }
            String runbook = r.runbook();
            if (runbook != null && runbook.startsWith("docs/runbooks.md#")
                    && !entries.contains(runbook.substring("docs/runbooks.md#".length()))) {
                missing.add(r.name() + " links to " + runbook + ", which has no entry");
            }
        }
        assertEquals(List.of(), missing);
    }

    private static List<Path> testFiles() throws IOException {
        try (Stream<Path> s = Files.list(PACK.resolve("tests"))) {
            List<Path> files = s.filter(p -> p.toString().endsWith(".yml")).sorted().toList();
            assertFalse(files.isEmpty(), "no test files in " + PACK.resolve("tests"));
            return files;
        }
    }
}
