package io.gpuwatch.rules;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.scope.FakeScope;
import io.gpuwatch.rules.scope.ScopeKind;
import io.gpuwatch.rules.source.Diagnostic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Rule files: their shape, defaults, and every mistake reported at its file:line:column. */
class RuleFileTest {
    private static List<String> messages(RuleLoad load) {
        return load.diagnostics().stream().map(Diagnostic::toString).toList();
    }

    private static RuleSet ok(String yaml) {
        RuleLoad load = RuleSet.parse("ok.yml", yaml);
        assertTrue(load.ok(), () -> String.join("\n", messages(load)));
        return load.ruleSet();
    }

    @Test
    void aFullRuleFileLoadsWithDefaultsAndOverrides() {
        RuleSet set = ok("""
                group: device-trends
                layer: device
                scope: card
                severity: ticket
                labels:
                  team: gpu-infra
                  tier: "1"
                rules:
                  - name: hot-card
                    when: max(tempC, 5m) > 85
                    for: 2m
                    keep_firing_for: 30s
                    labels:
                      tier: "2"
                    summary: "@{card.name} on @{node} reached @{max(tempC, 5m)} °C"
                    description: check the fans
                    runbook: https://wiki.example/hot
                  - name: idle
                    layer: business
                    scope: node
                    severity: inspect
                    when: "!allocated"
                """);
        Rule hot = set.rules().get(0);
        assertEquals("hot-card", hot.name());
        assertEquals("device-trends", hot.group());
        assertEquals(Layer.DEVICE, hot.layer());
        assertEquals(ScopeKind.CARD, hot.scope());
        assertEquals(Severity.TICKET, hot.severity());
        assertEquals(120_000, hot.forMs());
        assertEquals(30_000, hot.keepFiringForMs());
        assertEquals(Map.of("team", "gpu-infra", "tier", "2"), hot.labels());
        assertEquals("https://wiki.example/hot", hot.runbook());
        assertEquals("ok.yml", hot.file());
        assertEquals(9, hot.line());
        Rule idle = set.rules().get(1);
        assertEquals(Layer.BUSINESS, idle.layer());
        assertEquals(ScopeKind.NODE, idle.scope());
        assertEquals(Severity.INSPECT, idle.severity());
        assertEquals(0, idle.forMs());
        assertEquals("", idle.runbook());
        assertEquals(List.of(hot), set.rules(ScopeKind.CARD));
        assertEquals(List.of(idle), set.rules(ScopeKind.NODE));
        assertEquals(0, set.seriesId("tempC"));
        assertEquals(-1, set.seriesId("gpuUtil"));
        assertEquals(300_000, set.horizonMs());

        FakeScope card = FakeScope.card(set, "n1", "GPU-1").label("card.name", "H100");
        card.sample(0, Map.of(Metric.TEMP_C, 86.5));
        assertTrue(hot.test(card));
        assertEquals("H100 on n1 reached 86.5 °C", hot.renderSummary(card));
        assertEquals("check the fans", hot.renderDescription(card));
        FakeScope node = FakeScope.node(set, "n1");
        assertEquals("", idle.renderDescription(node));
        assertEquals("idle on n1", idle.renderSummary(node), "without a summary: the rule and the scope");
    }

    @Test
    void notYamlIsAnErrorAtTheParsersPosition() {
        RuleLoad load = RuleSet.parse("bad.yml", "group: g\nrules: [\n  - name: x\n");
        assertFalse(load.ok());
        assertNull(load.ruleSet());
        assertTrue(messages(load).get(0).startsWith("bad.yml:3:3: error: not valid YAML: "), messages(load)::toString);
        RuleLoad tabs = RuleSet.parse("tabs.yml", "group: g\nrules:\n\t- name: x\n");
        assertTrue(messages(tabs).get(0).startsWith("tabs.yml:3:1: error: not valid YAML: found character '\\t(TAB)'"),
                messages(tabs)::toString);
    }

    @Test
    void structuralMistakesNameTheirPlace() {
        RuleLoad load = RuleSet.parse("f.yml", """
                group: Bad_Group
                layer: device
                colour: red
                rules:
                  - name: a
                    severity: urgent
                    when: gpuUtil > 1
                    whn: gpuUtil > 2
                  - name: b
                    severity: page
                    scope: cluster
                    when: gpuUtil > 1
                  - name: c
                    severity: page
                    when: gpuUtil > 1
                    when: gpuUtil > 2
                    for: 30
                    keep_firing_for: soon
                  - severity: page
                    when: gpuUtil > 1
                  - name: e
                    severity: page
                    labels:
                      severity: low
                      ok_label: [1, 2]
                    when: gpuUtil > 1
                  - name: f
                    severity: page
                  - just a string
                """);
        assertEquals(List.of(
                "f.yml:3:1: error: unknown top-level key `colour` (group, layer, scope, severity, labels, rules)",
                "f.yml:1:8: error: group name `Bad_Group` must be lower-case letters, digits and `-`",
                "f.yml:8:5: error: unknown rule key `whn` (did you mean `when`?)",
                "f.yml:6:15: error: unknown severity `urgent` (page, ticket, notice, inspect)",
                "f.yml:11:12: error: unknown scope `cluster` (card, node, task, replica, business, queue)",
                "f.yml:16:5: error: `when` is given twice",
                "f.yml:17:10: error: `for`: a duration needs a unit (ms s m h d), e.g. 30s",
                "f.yml:18:22: error: `keep_firing_for`: expected a duration such as 30s or 5m, found `soon`",
                "f.yml:19:5: error: a rule needs `name:`",
                "f.yml:24:7: error: label `severity` is set by gpuwatch and cannot be given here",
                "f.yml:25:17: error: label `ok_label` must be a single value, not a list",
                "f.yml:27:5: error: rule `f` needs `when:`, the condition it alerts on",
                "f.yml:29:5: error: a rule must be a mapping with `name:` and `when:`"), messages(load));
    }

    @Test
    void missingPiecesAreNamed() {
        RuleLoad load = RuleSet.parse("m.yml", "rules:\n  - name: r\n    when: gpuUtil > 1\n");
        assertEquals(List.of("m.yml:1:1: error: missing `group:`, the name of this file's group of rules",
                "m.yml:2:5: error: rule `r` has no layer: set `layer:` on it or at the top of the file "
                        + "(device, scheduling, application, business)",
                "m.yml:2:5: error: rule `r` has no severity: set `severity:` on it or at the top of the file "
                        + "(page, ticket, notice, inspect)"), messages(load));
        assertEquals(List.of("l.yml:1:1: error: a rule file is a mapping with `group:` and `rules:`"),
                messages(RuleSet.parse("l.yml", "- a\n- b\n")));
        assertEquals(List.of("e.yml: warning: empty file, no rules"), messages(RuleSet.parse("e.yml", "# nothing\n")));
        assertTrue(RuleSet.parse("e.yml", "").ok(), "an empty file is a warning, not an error");
    }

    @Test
    void aYamlTagInsteadOfAnExpressionIsExplained() {
        RuleLoad load = RuleSet.parse("t.yml", "group: g\nlayer: device\nseverity: page\nrules:\n"
                + "  - name: r\n    when: !allocated\n");
        assertEquals(List.of("t.yml:6:11: error: YAML reads `!allocated` as a tag: quote `when` when it starts "
                + "with `!`"), messages(load));
    }

    @Test
    void positionsInsideQuotedAndBlockScalarsPointAtTheToken() {
        String head = "group: g\nlayer: device\nseverity: page\nrules:\n  - name: r\n";
        assertEquals(List.of("s.yml:6:29: error: unknown name `bogus` (not a metric, label or builtin)"),
                messages(RuleSet.parse("s.yml", head + "    when: 'node == ''x'' && bogus'\n")));
        assertEquals(List.of("d.yml:6:27: error: unknown name `bogus` (not a metric, label or builtin)"),
                messages(RuleSet.parse("d.yml", head + "    when: \"node == 'x' && bogus\"\n")));
        assertEquals(List.of("b.yml:8:12: error: unknown name `bogus` (not a metric, label or builtin)"),
                messages(RuleSet.parse("b.yml", head + "    when: |  # a comment with bogus in it\n"
                        + "      avg(gpuUtil, 1m) > 80\n"
                        + "        && bogus > 1\n")));
        assertEquals(List.of("f.yml:8:10: error: unknown name `bogus` (not a metric, label or builtin)"),
                messages(RuleSet.parse("f.yml", head + "    when: >-\n"
                        + "      avg(gpuUtil, 1m) > 80\n"
                        + "      && bogus > 1\n")));
        assertEquals(List.of("p.yml:7:10: error: unknown name `bogus` (not a metric, label or builtin)"),
                messages(RuleSet.parse("p.yml", head + "    when: avg(gpuUtil, 1m) > 80\n"
                        + "      && bogus > 1\n")));
    }

    @Test
    void templateErrorsPointIntoTheTemplate() {
        String head = "group: g\nlayer: device\nseverity: page\nrules:\n  - name: r\n    when: gpuUtil > 1\n";
        assertEquals(List.of("t.yml:7:33: error: unknown name `nodes` (not a metric, label or builtin) (did "
                        + "you mean `node`?)"),
                messages(RuleSet.parse("t.yml", head + "    summary: \"@{card.name} on @{nodes}\"\n")));
        assertEquals(List.of("t.yml:7:24: error: `@{` is not closed with `}`"),
                messages(RuleSet.parse("t.yml", head + "    summary: \"hot card @{card.name\"\n")));
        assertEquals(List.of("t.yml:7:29: error: `Runtime` is not allowed: rule expressions cannot reach Java "
                        + "classes or reflection"),
                messages(RuleSet.parse("t.yml", head + "    description: \"@{node} @{Runtime.getRuntime()}\"\n")));
    }

    @Test
    void lintWarnsButLoads() {
        RuleLoad load = RuleSet.parse("w.yml", """
                group: g
                layer: device
                severity: page
                rules:
                  - name: xid-delayed
                    when: count(events('xid', 79), 10m) > 0
                    for: 1m
                  - name: energy
                    severity: ticket
                    when: rate(gpuUtil, 5m) > 1 || count(events('fan_stall'), 1m) > 0
                """);
        assertTrue(load.ok());
        assertEquals(List.of(
                "w.yml:7:10: warning: `for` delays a hard-fault page: `when` only counts events, which are facts "
                        + "the moment they arrive",
                "w.yml:10:16: warning: `rate` is meant for counters, and `gpuUtil` is a gauge; use slope() for "
                        + "trends",
                "w.yml:10:49: warning: `fan_stall` is not an event kind the gateway knows (clock_change, "
                        + "ecc_corrected, ecc_uncorrected, gpu_lost, oom, power_source, probe_degraded, process_exit, "
                        + "process_start, xid); it only matches if a producer sends it"), messages(load));
    }

    @Test
    void duplicateRuleNamesAcrossFilesRejectTheLoad(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("a.yml"), "group: a\nlayer: device\nseverity: page\nrules:\n"
                + "  - name: same\n    when: gpuUtil > 1\n");
        Files.writeString(dir.resolve("b.yaml"), "group: b\nlayer: device\nseverity: page\nrules:\n"
                + "  - name: other\n    when: tempC > 1\n  - name: same\n    when: tempC > 2\n");
        RuleLoad load = RuleSet.load(List.of(dir));
        assertNull(load.ruleSet());
        assertEquals(List.of(dir.resolve("b.yaml") + ":7:11: error: duplicate rule name `same` (first defined at "
                + dir.resolve("a.yml") + ":5)"), messages(load));
    }

    @Test
    void directoriesLoadSortedAndSkipTestsAndOtherFiles(@TempDir Path dir) throws IOException {
        String rule = "group: %s\nlayer: device\nseverity: page\nrules:\n  - name: %s\n    when: gpuUtil > 1\n";
        Files.writeString(dir.resolve("b.yml"), rule.formatted("b", "from-b"));
        Files.writeString(dir.resolve("a.yaml"), rule.formatted("a", "from-a"));
        Files.createDirectories(dir.resolve("more"));
        Files.writeString(dir.resolve("more/c.yml"), rule.formatted("c", "from-c"));
        Files.createDirectories(dir.resolve("tests"));
        Files.writeString(dir.resolve("tests/a-test.yml"), "this: is not a rule file\n");
        Files.writeString(dir.resolve("README.md"), "# not yaml: [\n");
        Files.writeString(dir.resolve(".draft.yml"), "broken: [\n");
        RuleLoad load = RuleSet.load(List.of(dir));
        assertTrue(load.ok(), () -> String.join("\n", messages(load)));
        assertEquals(List.of("from-a", "from-b", "from-c"),
                load.ruleSet().rules().stream().map(Rule::name).toList());
    }

    @Test
    void unreadableFilesAreErrors(@TempDir Path dir) throws IOException {
        Path missing = dir.resolve("missing.yml");
        assertEquals(List.of(missing + ": error: cannot read: no such file"),
                messages(RuleSet.load(List.of(missing))));
        Path latin1 = dir.resolve("latin1.yml");
        Files.write(latin1, new byte[] {'g', ':', ' ', (byte) 0xE9, '\n'});
        assertEquals(List.of(latin1 + ": error: not UTF-8 text"), messages(RuleSet.load(List.of(latin1))));
    }

    @Test
    void anEmptyRuleSetHasNothing() {
        assertTrue(RuleSet.empty().rules().isEmpty());
        assertTrue(RuleSet.empty().series().isEmpty());
        assertEquals(0, RuleSet.empty().horizonMs());
    }
}
