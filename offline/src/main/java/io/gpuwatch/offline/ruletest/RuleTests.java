package io.gpuwatch.offline.ruletest;

import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.source.Diagnostic;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Runs rule test files in the spirit of {@code promtool test rules}: input series in expanding notation,
 * events at times, and the alerts expected to fire at given evaluation times. See docs/rules-testing.md.
 */
public final class RuleTests {
    private RuleTests() {
    }

    /** Reads and runs one test file; rule files are resolved relative to its folder. */
    public static RuleTestReport run(Path testFile) {
        String name = testFile.toString();
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(Files.readAllBytes(testFile))).toString();
        } catch (CharacterCodingException e) {
            return failed(name, Diagnostic.error(name, 0, 0, "not UTF-8 text"));
        } catch (NoSuchFileException e) {
            return failed(name, Diagnostic.error(name, 0, 0, "cannot read: no such file"));
        } catch (IOException e) {
            return failed(name, Diagnostic.error(name, 0, 0, "cannot read: " + e.getMessage()));
        }
        Path dir = testFile.getParent() == null ? Path.of("") : testFile.getParent();
        return run(name, dir, text);
    }

    /** Runs a test file's text, named {@code file} in messages, its rule files relative to {@code dir}. */
    public static RuleTestReport run(String file, Path dir, String text) {
        List<Diagnostic> diagnostics = new ArrayList<>();
        TestFile tf = TestFileReader.read(file, dir, text, diagnostics);
        if (tf == null) {
            return new RuleTestReport(file, diagnostics, List.of());
        }
        RuleLoad load = RuleSet.load(tf.ruleFiles());
        diagnostics.addAll(load.diagnostics());
        if (!load.ok()) {
            return new RuleTestReport(file, diagnostics, List.of());
        }
        RuleSet rules = load.ruleSet();
        Set<String> names = new HashSet<>();
        for (Rule r : rules.rules()) {
            names.add(r.name());
        }
        boolean unknown = false;
        for (TestFile.Case c : tf.tests()) {
            for (TestFile.AlertCheck check : c.checks()) {
                if (!names.contains(check.alertname())) {
                    diagnostics.add(Diagnostic.error(file, check.place().line(), check.place().column(), "alertname `"
                            + check.alertname() + "` is no rule of the loaded rule files (" + String.join(", ",
                            rules.rules().stream().map(Rule::name).sorted().toList()) + ")"));
                    unknown = true;
                }
            }
        }
        if (unknown) {
            return new RuleTestReport(file, diagnostics, List.of());
        }
        List<TestResult> results = new ArrayList<>();
        for (TestFile.Case c : tf.tests()) {
            results.add(TestRun.run(tf, c, rules));
        }
        return new RuleTestReport(file, diagnostics, results);
    }

    private static RuleTestReport failed(String file, Diagnostic d) {
        return new RuleTestReport(file, List.of(d), List.of());
    }
}
