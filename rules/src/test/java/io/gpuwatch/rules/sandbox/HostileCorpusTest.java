package io.gpuwatch.rules.sandbox;

import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.scope.FakeScope;
import io.gpuwatch.rules.source.Diagnostic;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.mvel2.MVEL;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every expression of {@code hostile-expressions.txt} (MVEL injection payloads from published advisories, the
 * forms {@code vertx-mvel.md} showed to run, and our own) is refused at load time, as a {@code when} and as a
 * summary's {@code @{…}}, with an error at its file:line:column. Payloads with side effects aim at canary files
 * under a temporary folder; none may appear, neither after loading nor after evaluating whatever did load.
 */
class HostileCorpusTest {
    private static final Pattern REPEAT = Pattern.compile("\\{\\{repeat (\\d+):(.*?)}}");
    private static final String HEAD = "group: hostile\nlayer: device\nseverity: page\nrules:\n  - name: payload\n";

    @TempDir
    static Path canaries;

    /** One hostile expression, numbered in file order, with the advisory or idea it comes from. */
    record Payload(int n, String source, String text) {
        @Override
        public String toString() {
            return "#" + n + " " + source;
        }
    }

    static List<Payload> corpus() throws IOException {
        List<Payload> out = new ArrayList<>();
        try (InputStream in = HostileCorpusTest.class.getResourceAsStream("hostile-expressions.txt")) {
            assertTrue(in != null, "hostile-expressions.txt is missing");
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                int tab = line.lastIndexOf("\t# ");
                assertTrue(tab > 0, "no `<tab># source` on line: " + line);
                int n = out.size() + 1;
                String text = expand(line.substring(0, tab)).replace("{{canary}}", canary(n));
                out.add(new Payload(n, line.substring(tab + 3), text));
            }
        }
        return out;
    }

    private static String expand(String s) {
        Matcher m = REPEAT.matcher(s);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(b, Matcher.quoteReplacement(m.group(2).repeat(Integer.parseInt(m.group(1)))));
        }
        return m.appendTail(b).toString();
    }

    /** Forward slashes, so the path means the same to MVEL's string literals on every OS. */
    private static String canary(int n) {
        return canaries.resolve("canary-" + n).toString().replace('\\', '/');
    }

    private static List<Path> canariesPresent() throws IOException {
        try (Stream<Path> files = Files.list(canaries)) {
            return files.toList();
        }
    }

    @Test
    void theCorpusIsLargeAndCoversTheAdvisories() throws IOException {
        List<Payload> corpus = corpus();
        assertTrue(corpus.size() >= 30, "only " + corpus.size() + " payloads");
        for (String advisory : List.of("CVE-2014-3120", "CVE-2013-6468", "CVE-2020-13942", "CVE-2023-50571",
                "vertx-mvel.md")) {
            assertTrue(corpus.stream().anyMatch(p -> p.source().contains(advisory)), advisory + " has no payload");
        }
        assertTrue(corpus.stream().filter(p -> p.text().contains(canaries.toString().replace('\\', '/'))).count() >= 10,
                "too few payloads aim at a canary");
        assertTrue(corpus.stream().anyMatch(p -> p.text().length() >= 100_000), "no 100 KB expression");
    }

    @TestFactory
    Stream<DynamicTest> everyPayloadIsRefusedAsACondition() throws IOException {
        return corpus().stream().map(p -> DynamicTest.dynamicTest(p.toString(),
                () -> refused(p, HEAD + "    when: |-\n      " + p.text() + "\n", 7, 7, 7 + length(p))));
    }

    @TestFactory
    Stream<DynamicTest> everyPayloadIsRefusedInsideATemplate() throws IOException {
        return corpus().stream().map(p -> DynamicTest.dynamicTest(p.toString(),
                () -> refused(p, HEAD + "    when: allocated\n    summary: |-\n      @{" + p.text() + "}\n", 8, 7,
                        9 + length(p))));
    }

    private static int length(Payload p) {
        return p.text().codePointCount(0, p.text().length());
    }

    /** The load fails with an error inside the payload's span, from our checker, and no canary appeared. */
    private static void refused(Payload p, String yaml, int line, int fromColumn, int toColumn) throws IOException {
        RuleLoad load = RuleSet.parse("hostile.yml", yaml);
        if (load.ok()) {
            evaluateEverything(load.ruleSet());
        }
        assertEquals(List.of(), canariesPresent(), "a payload ran");
        assertFalse(load.ok(), p + " was accepted");
        assertNull(load.ruleSet());
        List<Diagnostic> errors = load.diagnostics().stream().filter(d -> d.level() == Diagnostic.Level.ERROR).toList();
        assertFalse(errors.isEmpty(), load.diagnostics()::toString);
        Diagnostic first = errors.get(0);
        assertEquals("hostile.yml", first.file());
        assertEquals(line, first.line(), first::toString);
        assertTrue(first.column() >= fromColumn && first.column() <= toColumn,
                () -> first + " is outside columns " + fromColumn + ".." + toColumn);
        assertFalse(first.message().startsWith("internal error"), () -> "our checker let it through to MVEL: " + first);
    }

    private static void evaluateEverything(RuleSet set) {
        FakeScope card = FakeScope.card(set, "n1", "GPU-1").allocated(true).at(0);
        for (Rule r : set.rules()) {
            try {
                r.test(card);
                r.renderSummary(card);
                r.renderDescription(card);
            } catch (RuntimeException e) {
                // a failure is fine here; only a canary would be a breach
            }
        }
    }

    /**
     * Without our checker the canaries would appear: handed to MVEL directly, the file-writing payloads do
     * write their file. This is what makes the absence of canaries above mean something.
     */
    @Test
    void theCanaryPayloadsWriteTheirFileWhenMvelRunsThemDirectly(@TempDir Path control) throws IOException {
        List<String> writers = List.of("new java.io.File('{{canary}}').createNewFile()",
                "java.nio.file.Files.write(java.nio.file.Paths.get('{{canary}}'), 'x'.getBytes())");
        for (int i = 0; i < writers.size(); i++) {
            Path target = control.resolve("control-" + i);
            MVEL.eval(writers.get(i).replace("{{canary}}", target.toString().replace('\\', '/')), new HashMap<>());
            assertTrue(Files.exists(target), writers.get(i) + " did not run, so the canary would prove nothing");
        }
    }

    /** Payloads inside string literals are data: the rule loads, evaluates, and nothing runs. */
    @Test
    void codeInsideAStringLiteralStaysText() throws IOException {
        String yaml = HEAD + "    when: |-\n      node == \"'); new java.io.File('" + canary(0) + "').createNewFile(); ('\""
                + " || node == \"@{new java.io.File('" + canary(0) + "').createNewFile()}\"\n"
                + "    summary: |-\n      @{node == \"@{Runtime.getRuntime().exec('touch " + canary(0) + "')}\"} on @{node}\n";
        RuleLoad load = RuleSet.parse("data.yml", yaml);
        if (!load.ok()) {
            fail(load.diagnostics().toString());
        }
        Rule rule = load.ruleSet().rules().get(0);
        FakeScope card = FakeScope.card(load.ruleSet(), "n1", "GPU-1").at(0);
        assertFalse(rule.test(card));
        assertEquals("false on n1", rule.renderSummary(card));
        assertEquals(List.of(), canariesPresent());
    }
}
