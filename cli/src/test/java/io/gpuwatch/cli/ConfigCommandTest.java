package io.gpuwatch.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigCommandTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cl = new CommandLine(new ConfigCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    @Test
    void theShippedRoutesPassAndPrintTheTree() {
        assertEquals(0, run("check", "../examples/alerting/routes.yml", "--receivers", "paging,chat,ticketing,digest",
                "--test", "{severity=\"page\", node=\"n1\"}"), err.toString());
        assertEquals("", err.toString());
        assertEquals("""
                {} -> chat  group_by [alertname, node] wait 30s interval 5m repeat 4h
                  {severity="page"} -> paging (continue)  group_by [alertname, node] wait 10s interval 1m repeat 4h
                  {severity="page"} -> chat  group_by [alertname, node] wait 10s interval 1m repeat 4h
                  {severity="ticket"} -> ticketing  group_by [alertname, node, task] wait 2m interval 5m repeat 1d
                  {severity=~"notice|inspect"} -> digest  group_by [] wait 15m interval 1d repeat 1d
                test {severity="page", node="n1"} -> paging (route.routes[0]), chat (route.routes[1])
                5 routes, 0 owners, 0 time intervals, 2 inhibit rules OK
                """, out.toString());
    }

    @Test
    void theOfficeHoursExamplePasses() {
        assertEquals(0, run("check", "../examples/alerting/office-hours.yml", "--receivers",
                "paging,chat,ticketing,digest,ml-chat,db-chat"), err.toString());
        assertTrue(out.toString().contains("{severity=\"ticket\"} -> ticketing  group_by [alertname, node] wait 30s "
                + "interval 5m repeat 1d muted [christmas] active [office-hours]"), out.toString());
        assertTrue(out.toString().contains("owner ml-team -> ml-chat\n"), out.toString());
    }

    @Test
    void problemsArePrintedCompilerStyleAndExitOne(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("routes.yml");
        Files.writeString(file, """
                route:
                  receiver: chat
                  group_wait: 30
                  routes:
                    - matchers: ['severity=~"page|(ticket"']
                      receiver: pagng
                      mute_time_intervals: [weekends]
                """);
        assertEquals(1, run("check", file.toString(), "--receivers", "paging,chat"));
        assertEquals(file + ":3:15: error: `group_wait`: a duration needs a unit (ms s m h d), e.g. 30s\n"
                + file + ":5:42: error: bad regular expression for `severity`: Unclosed group\n"
                + file + ":6:17: error: unknown receiver `pagng` (did you mean `paging`?) (receivers: chat, paging)\n"
                + file + ":7:29: error: unknown time interval `weekends` (`time_intervals:` defines none)\n"
                + "4 errors\n", err.toString());
        assertEquals("", out.toString());
    }

    @Test
    void aMissingFileIsAnErrorNotACrash(@TempDir Path dir) {
        Path file = dir.resolve("nope.yml");
        assertEquals(1, run("check", file.toString()));
        assertEquals(file + ": error: cannot read: no such file\n1 error\n", err.toString());
    }

    @Test
    void theCompleteAlertingFilePassesWithoutItsSecretsAndListsItsReceivers() {
        assertEquals(0, run("check", "../examples/alerting/gpuwatch.yml", "--no-secrets"), err.toString());
        assertTrue(out.toString().startsWith("receiver paging (pagerduty)\nreceiver chat (slack)\n"
                + "receiver ticketing (jira)\nreceiver digest (slack)\nreceiver console (console)\n"), out.toString());
        assertTrue(out.toString().contains("5 receivers, 6 routes"), out.toString());
        if (System.getenv("PAGERDUTY_ROUTING_KEY") == null) {
            assertTrue(err.toString().contains("gpuwatch.yml:12:5: warning: receivers.paging: environment variable "
                    + "PAGERDUTY_ROUTING_KEY is not set (not required with --no-secrets"), err.toString());
        }
    }

    @Test
    void receiverProblemsArePlacedAtTheirFieldsAndRoutesMustNameAReceiverOfTheFile(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("alerting.yml");
        Files.writeString(file, """
                receivers:
                  - name: chat
                    type: slak
                    url: {env: GPUWATCH_TEST_UNSET_VARIABLE}
                  - name: pager
                    type: pagerduty
                    routingKey: {env: GPUWATCH_TEST_UNSET_VARIABLE}
                    timeoutMs: soon
                  - name: chat
                    type: console
                route:
                  receiver: pagre
                """);
        assertEquals(1, run("check", file.toString()));
        assertEquals(file + ":3:11: error: unknown receiver type `slak` (did you mean `slack`?) (types: slack, "
                + "teams, feishu, dingtalk, wecom, pagerduty, opsgenie, jira, alertmanager, webhook, console)\n"
                + file + ":7:17: error: receivers.pager.routingKey: environment variable GPUWATCH_TEST_UNSET_VARIABLE "
                + "is not set\n"
                + file + ":8:5: error: receivers.pager.timeoutMs: expected a whole number, got text\n"
                + file + ":9:11: error: receiver `chat` is defined twice (first at line 2)\n"
                + file + ":12:13: error: unknown receiver `pagre` (did you mean `pager`?) (receivers: chat, pager)\n"
                + "5 errors\n", err.toString());
    }
}
