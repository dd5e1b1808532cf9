package io.gpuwatch.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RulesTestCommandTest extends InProcessCommandTest {

    @Test
    void theExamplePackPassesItsOwnTests() {
        assertEquals(0, run("rules", "test", "../examples/rules/tests"), out + "\n" + err);
        String text = out.toString();
        assertTrue(text.contains("../examples/rules/tests/node-silent.test.yml\n  PASS a 60 s gap pages 31 s after"),
                text);
        assertFalse(text.contains("FAIL"), text);
        assertTrue(text.strip().endsWith(" passed, 0 failed"), text);
    }

    @Test
    void aFailingTestPrintsFailAndTheDiffAndExitsOne(@TempDir Path dir) throws Exception {
        Path test = dir.resolve("silent.test.yml");
        Files.writeString(test, """
                rule_files: [%s]
                tests:
                  - name: silence is noticed at once
                    nodes:
                      - {name: n1, cards: [{uuid: GPU-1}]}
                    input_series:
                      - {card: GPU-1, metric: gpuUtil, values: "1x9"}
                    alert_rule_test:
                      - eval_time: 40s
                        alertname: node-silent
                        exp_alerts: []
                """.formatted(Path.of("../examples/rules/node-health.yml").toAbsolutePath()));
        assertEquals(1, run("rules", "test", test.toString()));
        assertEquals(test + "\n"
                + "  FAIL silence is noticed at once\n"
                + "    " + test + ":9:9: at 40s, firing alerts of node-silent differ (expected 0, got 1)\n"
                + "    + {alertname=\"node-silent\", layer=\"device\", node=\"n1\", severity=\"page\"}\n"
                + "    +     summary: n1 has sent nothing for 31 s\n"
                + "1 test, 0 passed, 1 failed\n", out.toString());
    }

    @Test
    void aBrokenTestFileGetsCompilerStyleErrors(@TempDir Path dir) throws Exception {
        Path test = dir.resolve("broken.test.yml");
        Files.writeString(test, """
                rule_files: [missing.yml]
                tests:
                  - name: t
                    nodes: [{name: n1, cards: [{uuid: GPU-1}]}]
                    input_series:
                      - {card: GPU-1, metric: gpuUtil, values: "1 2 three"}
                    alert_rule_test:
                      - {eval_time: 1s, alertname: x}
                """);
        assertEquals(1, run("rules", "test", test.toString()));
        assertEquals(test + ":6:53: error: expected a value (a number, `_` or `stale`), found `three`\n",
                err.toString());
        assertEquals("0 tests, 0 passed, 0 failed, 1 broken file\n", out.toString());
    }

    @Test
    void helpExplainsTheSubcommands() {
        assertEquals(0, run("rules", "test", "--help"));
        assertTrue(out.toString().startsWith("Usage: gpuwatch rules test"), out.toString());
        out.getBuffer().setLength(0);
        assertEquals(0, run("rules", "backtest", "--help"));
        assertTrue(out.toString().startsWith("Usage: gpuwatch rules backtest"), out.toString());
    }
}
