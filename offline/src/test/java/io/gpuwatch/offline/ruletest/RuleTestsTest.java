package io.gpuwatch.offline.ruletest;

import io.gpuwatch.rules.source.Diagnostic;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RuleTestsTest {
    private static final String RULES = """
            group: t
            layer: device
            severity: page
            rules:
              - name: hot
                when: max(tempC, 10s) > 90
                for: 5s
                summary: "@{card.name} on @{node} at @{max(tempC, 10s)} °C"
            """;

    private static final String SETUP = """
            rule_files: [rules/hot.yml]
            tests:
              - name: %s
                nodes:
                  - name: n1
                    cards:
                      - {uuid: GPU-1}
                      - {uuid: GPU-2}
                input_series:
                  - {card: GPU-1, metric: tempC, values: "80x9 95x20 70x30"}
                  - {card: GPU-2, metric: tempC, values: "60x60"}
                alert_rule_test:
            """;

    @TempDir
    Path dir;

    @BeforeEach
    void rules() throws Exception {
        Files.createDirectories(dir.resolve("rules"));
        Files.writeString(dir.resolve("rules/hot.yml"), RULES);
    }

    private RuleTestReport run(String text) throws Exception {
        Path file = dir.resolve("hot.test.yml");
        Files.writeString(file, text);
        return RuleTests.run(file);
    }

    @Test
    void aTestThatMatchesPasses() throws Exception {
        RuleTestReport r = run(SETUP.formatted("hot card") + """
                      - eval_time: 14s
                        alertname: hot
                        exp_alerts: []
                      - eval_time: 15s
                        alertname: hot
                        exp_alerts:
                          - exp_labels: {alertname: hot, severity: page, node: n1, uuid: GPU-1}
                            exp_summary: GPU-1 on n1 at 95 °C
                      - eval_time: 39s
                        alertname: hot
                        exp_alerts:
                          - exp_labels: {uuid: GPU-1}
                      - eval_time: 40s
                        alertname: hot
                        exp_alerts: []
                        exp_notifications: {firing: 1, resolved: 1}
                """);
        assertEquals(List.of(), r.diagnostics());
        assertEquals(List.of(new TestResult("hot card", true, List.of())), r.tests());
        assertTrue(r.passed());
    }

    @Test
    void aTestThatDoesNotMatchFailsWithADiff() throws Exception {
        RuleTestReport r = run(SETUP.formatted("wrong expectations") + """
                      - eval_time: 15s
                        alertname: hot
                        exp_alerts:
                          - exp_labels: {node: n1, uuid: GPU-2}
                      - eval_time: 20s
                        alertname: hot
                        exp_alerts:
                          - exp_labels: {uuid: GPU-1}
                            exp_summary: GPU-1 on n1 at 99 °C
                      - eval_time: 40s
                        alertname: hot
                        exp_alerts:
                          - exp_labels: {uuid: GPU-1}
                        exp_notifications: {firing: 2}
                """);
        assertFalse(r.passed());
        TestResult t = r.tests().get(0);
        assertEquals("wrong expectations", t.name());
        assertFalse(t.passed());
        String file = dir.resolve("hot.test.yml").toString();
        assertEquals(List.of(
                file + ":13:9: at 15s, firing alerts of hot differ (expected 1, got 1)\n"
                        + "- {node=\"n1\", uuid=\"GPU-2\"}\n"
                        + "+ {alertname=\"hot\", layer=\"device\", node=\"n1\", severity=\"page\", uuid=\"GPU-1\"}\n"
                        + "+     summary: GPU-1 on n1 at 95 °C",
                file + ":17:9: at 20s, firing alerts of hot differ (expected 1, got 1)\n"
                        + "  {uuid=\"GPU-1\"}\n"
                        + "-     summary: GPU-1 on n1 at 99 °C\n"
                        + "+     summary: GPU-1 on n1 at 95 °C",
                file + ":22:9: at 40s, firing alerts of hot differ (expected 1, got 0)\n"
                        + "- {uuid=\"GPU-1\"}",
                file + ":22:9: at 40s, notifications of hot sent so far differ\n"
                        + "- firing: 2\n"
                        + "+ firing: 1"), t.failures());
    }

    @Test
    void brokenSeriesAreReportedWhereTheyWereWritten() throws Exception {
        RuleTestReport r = run("""
                rule_files: [rules/hot.yml]
                tests:
                  - name: t
                    nodes:
                      - name: n1
                        cards: [{uuid: GPU-1}]
                    input_series:
                      - {card: GPU-1, metric: tempC, values: "80x9 95+x3"}
                      - card: GPU-1
                        metric: gpuUtil
                        values: >-
                          10 20
                          30 4O
                      - {card: GPU-7, metric: tempc, values: "1"}
                    alert_rule_test:
                      - {eval_time: 1m, alertname: hot}
                """);
        assertEquals(List.of(
                "hot.test.yml:8:55: error: expected a step after `95+` (a number, `_` or `stale`), found `x3`",
                "hot.test.yml:13:15: error: unknown unit `O` (B, kB, KB, MB, GB, TB, KiB, MiB, GiB, TiB)",
                "hot.test.yml:14:16: error: card `GPU-7` is not declared under `nodes`",
                "hot.test.yml:14:31: error: unknown metric `tempc` (did you mean `tempC`?)"),
                r.diagnostics().stream().map(d -> d.toString().substring(dir.toString().length() + 1)).toList());
        assertEquals(List.of(), r.tests(), "a broken file runs no test");
        assertFalse(r.passed());
    }

    @Test
    void unknownKeysRulesAndDurationsAreErrorsWithPositions() throws Exception {
        RuleTestReport r = run("""
                rule_files: [rules/hot.yml]
                evaluation_interval: 0s
                tests:
                  - name: t
                    nodes:
                      - name: n1
                        cards: [{uuid: GPU-1}]
                    input_events:
                      - {at: 10, card: GPU-1, kind: xid}
                    alert_rule_test:
                      - eval_time: 1m
                        alertname: hott
                        exp_alert: []
                """);
        assertEquals(List.of(
                "hot.test.yml:2:22: error: the interval must be longer than 0",
                "hot.test.yml:9:14: error: a duration needs a unit (ms s m h d), e.g. 10s",
                "hot.test.yml:9:37: error: an xid event needs its code: `xid: 79`",
                "hot.test.yml:13:9: error: unknown alert rule test key `exp_alert` (did you mean `exp_alerts`?)"),
                r.diagnostics().stream().map(d -> d.toString().substring(dir.toString().length() + 1)).toList());
    }

    @Test
    void scheduledTasksWithMistakesAreErrorsWithPositions() throws Exception {
        RuleTestReport r = run("""
                rule_files: [rules/hot.yml]
                tests:
                  - name: t
                    nodes: [{name: n1, cards: [{uuid: GPU-1}]}]
                    scheduled_tasks:
                      - {queue: gpu, task: a, outcome: crashed, requested_mem: lots}
                      - {queue: gpu, task: b, model: {workload: training}}
                      - {queue: gpu, task: c, model: {params: 7e9, precision: bf32}}
                      - {task: d}
                    alert_rule_test:
                      - eval_time: 1m
                        alertname: hot
                        exp_alerts: []
                """);
        assertEquals(List.of(
                "hot.test.yml:6:64: error: `requested_mem` must be a size such as 320GiB",
                "hot.test.yml:6:40: error: `outcome` must be one of cancelled, failed, preempted, succeeded, got "
                        + "`crashed`",
                "hot.test.yml:7:38: error: a model needs `params`, its parameter count, above 0",
                "hot.test.yml:8:63: error: `precision` must be one of fp64, fp32, tf32, bf16, fp16, fp8, int8, fp4, "
                        + "got `bf32`",
                "hot.test.yml:9:9: error: a scheduled task needs `queue:` and `task:`"),
                r.diagnostics().stream().map(d -> d.toString().substring(dir.toString().length() + 1)).toList());
    }

    @Test
    void aStaleCardCannotHaveAValueInAnotherSeriesAtTheSameStep() throws Exception {
        RuleTestReport r = run("""
                rule_files: [rules/hot.yml]
                tests:
                  - name: t
                    nodes: [{name: n1, cards: [{uuid: GPU-1}]}]
                    input_series:
                      - {card: GPU-1, metric: tempC, values: "1 stale 1"}
                      - {card: GPU-1, metric: gpuUtil, values: "1 1 1"}
                    alert_rule_test:
                      - {eval_time: 1s, alertname: hot}
                """);
        assertEquals(List.of("hot.test.yml:7:48: error: card `GPU-1` is `stale` in tempC at value 2 but gpuUtil has "
                        + "a value there; a stale card reports no readings at all"),
                r.diagnostics().stream().map(d -> d.toString().substring(dir.toString().length() + 1)).toList());
    }

    @Test
    void anAlertnameThatIsNoRuleIsAnErrorNotAVacuousPass() throws Exception {
        RuleTestReport r = run(SETUP.formatted("typo") + """
                      - eval_time: 15s
                        alertname: hott
                        exp_alerts: []
                """);
        assertEquals(1, r.diagnostics().size());
        Diagnostic d = r.diagnostics().get(0);
        assertEquals(13, d.line());
        assertEquals("alertname `hott` is no rule of the loaded rule files (hot)", d.message());
        assertFalse(r.passed());
    }

    @Test
    void brokenRuleFilesFailTheTestFileWithTheirOwnPositions() throws Exception {
        Files.writeString(dir.resolve("rules/hot.yml"), RULES.replace("max(tempC, 10s) > 90", "max(tempc, 10s) > 90"));
        RuleTestReport r = run(SETUP.formatted("t") + "      - {eval_time: 1s, alertname: hot}\n");
        assertEquals(1, r.diagnostics().size());
        assertTrue(r.diagnostics().get(0).toString().startsWith(dir.resolve("rules/hot.yml") + ":6:15: error: "
                + "unknown metric `tempc`"), r.diagnostics().toString());
        assertFalse(r.passed());
    }

    @Test
    void aMissingTestFileIsAnErrorWithoutPosition() {
        RuleTestReport r = RuleTests.run(dir.resolve("nope.yml"));
        assertEquals(List.of(dir.resolve("nope.yml") + ": error: cannot read: no such file"),
                r.diagnostics().stream().map(Diagnostic::toString).toList());
    }

    @Test
    void eventsAttributionAndStaleReachTheRules() throws Exception {
        Files.writeString(dir.resolve("rules/hot.yml"), """
                group: t
                layer: device
                severity: page
                rules:
                  - name: oom-on-task
                    when: count(events('oom'), 1m) > 0 && task == 'train'
                    summary: "@{task} of @{owner} on @{node}/@{card.index} (@{labels.cluster})"
                  - name: no-readings
                    when: "allocated && count(gpuUtil, 3s) == 0"
                """);
        RuleTestReport r = run("""
                rule_files: [rules/hot.yml]
                tests:
                  - name: t
                    nodes:
                      - name: n1
                        labels: {cluster: bj-1}
                        cards:
                          - uuid: GPU-1
                            index: 3
                            processes: [{task: train, owner: ann, business: ads, from: 5s}]
                    input_series:
                      - {card: GPU-1, metric: gpuUtil, values: "50x9 stale stale stale stale 50"}
                    input_events:
                      - {at: 4s, card: GPU-1, kind: oom}
                    alert_rule_test:
                      # the OOM comes before the task does: the 5 s sample brings the process
                      - eval_time: 4s
                        alertname: oom-on-task
                        exp_alerts: []
                      - eval_time: 5s
                        alertname: oom-on-task
                        exp_alerts:
                          - exp_labels: {node: n1, uuid: GPU-1, task: train, owner: ann, business: ads}
                            exp_summary: train of ann on n1/3 (bj-1)
                      # stale readings from 10 s keep the process but bring no gpuUtil: none in (9 s, 12 s]
                      - eval_time: 11s
                        alertname: no-readings
                        exp_alerts: []
                      - eval_time: 13s
                        alertname: no-readings
                        exp_alerts: [{exp_labels: {uuid: GPU-1}}]
                      - eval_time: 14s
                        alertname: no-readings
                        exp_alerts: []
                """);
        assertEquals(List.of(), r.diagnostics());
        assertEquals(List.of(new TestResult("t", true, List.of())), r.tests());
    }
}
