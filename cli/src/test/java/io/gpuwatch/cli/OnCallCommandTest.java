package io.gpuwatch.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code gpuwatch oncall check|who|calendar} on the shipped example and on a broken file. */
class OnCallCommandTest extends InProcessCommandTest {
    private static final String EXAMPLE = "../examples/oncall/oncall.yaml";

    @Test
    void theExampleChecksAndSaysWhoCoversSaturday() {
        assertEquals(0, run("oncall", "check", EXAMPLE), err.toString());
        assertTrue(out.toString().endsWith("6 people, 2 schedules, 5 rotations OK\n"), out.toString());
        out.getBuffer().setLength(0);
        assertEquals(0, run("oncall", "who", "--file", EXAMPLE, "--at", "2026-12-12T10:00+01:00"), err.toString());
        assertEquals("""
                gpu-platform (GPU platform) at 2026-12-12 10:00 CET
                  primary    Ana Souza (ana)  since 2026-12-12 09:00 CET  until 2026-12-12 18:00 CET  override
                  secondary  Lin Chen (lin)  since 2026-12-07 09:00 CET  until 2026-12-14 09:00 CET
                gpu-follow-the-sun (GPU follow-the-sun) at 2026-12-12 09:00 UTC
                  primary  Lin Chen (lin)  since 2026-12-12 01:00 UTC  until 2026-12-12 13:00 UTC
                  lead     Jo Park (team lead) (lead)  since before 2026-11-11 09:00 UTC  until after 2027-03-14 09:00 UTC
                """, out.toString());
    }

    @Test
    void aWallClockTimeIsReadInEachSchedulesZone() {
        assertEquals(0, run("oncall", "who", "--file", EXAMPLE, "--schedule", "gpu-follow-the-sun", "--at",
                "2026-12-12T13:30"), err.toString());
        assertTrue(out.toString().contains("  primary  nobody\n"), "between Shanghai and New York: " + out);
        assertEquals(2, run("oncall", "who", "--file", EXAMPLE, "--schedule", "nope"));
        assertTrue(err.toString().contains("no schedule `nope`"), err.toString());
    }

    @Test
    void theCalendarIsICalendar() {
        assertEquals(0, run("oncall", "calendar", "--file", EXAMPLE, "--schedule", "gpu-platform", "--from",
                "2026-12-07T00:00", "--days", "7"), err.toString());
        assertTrue(out.toString().startsWith("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"), out.toString());
        assertTrue(out.toString().contains("DTSTART:20261212T080000Z\r\nDTEND:20261212T170000Z\r\n"),
                "Ana's override: " + out);
    }

    @Test
    void problemsArePrintedCompilerStyleAndExitOne(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("oncall.yaml");
        Files.writeString(file, """
                people:
                  wei: {name: Wei}
                schedules:
                  gpu:
                    time_zone: Europe/Berlin
                    layers:
                      - name: primary
                        rotations:
                          - type: weekly
                            start: 2026-11-30T09:00
                            members: [we]
                """);
        assertEquals(1, run("oncall", "check", file.toString()));
        assertEquals(file + ":11:23: error: no person `we` under `people:` (did you mean `wei`?)\n1 error\n",
                err.toString());
    }

    @Test
    void configCheckFindsAMentionOfAScheduleTheOnCallFileLacks(@TempDir Path dir) throws Exception {
        Path alerting = dir.resolve("alerting.yml");
        Files.writeString(alerting, """
                receivers:
                  - name: chat
                    type: slack
                    url: {env: GPUWATCH_TEST_UNSET_SLACK_URL}
                    mention: [gpu-platform/primary, gpu-plaform]
                route:
                  receiver: chat
                """);
        assertEquals(1, run("config", "check", alerting.toString(), "--no-secrets", "--oncall", EXAMPLE));
        assertTrue(err.toString().endsWith(alerting + ":5:37: error: no schedule `gpu-plaform` in the on-call file "
                + "(did you mean `gpu-platform`?)\n1 error\n"), err.toString());
        err.getBuffer().setLength(0);
        Files.writeString(alerting, Files.readString(alerting).replace("gpu-plaform", "gpu-follow-the-sun"));
        assertEquals(0, run("config", "check", alerting.toString(), "--no-secrets", "--oncall", EXAMPLE),
                err.toString());
    }

    @Test
    void configCheckFindsAnEscalationStepsPersonOrLayerTheOnCallFileLacksAndTheGatewayRefusesThem(@TempDir Path dir)
            throws Exception {
        Path alerting = dir.resolve("alerting.yml");
        Files.writeString(alerting, """
                receivers:
                  - name: chat
                    type: webhook
                    url: http://127.0.0.1:1/hook
                escalation_policies:
                  - name: page
                    steps:
                      - {schedules: [gpu-platform/primry], via: [chat], timeout: 5m}
                      - {people: [leed], via: [chat], timeout: 5m}
                route:
                  receiver: chat
                  escalation: page
                """);
        assertEquals(1, run("config", "check", alerting.toString(), "--oncall", EXAMPLE));
        assertTrue(err.toString().endsWith(alerting + ":8:22: error: schedule `gpu-platform` has no layer `primry` "
                + "(did you mean `primary`?) (primary, secondary)\n" + alerting + ":9:19: error: no person `leed` in "
                + "the on-call file (did you mean `lead`?)\n2 errors\n"), err.toString());
        err.getBuffer().setLength(0);
        Path tokens = dir.resolve("tokens");
        assertEquals(0, run("token", "new", "--node", "gpu-*", "--file", tokens.toString()));
        assertEquals(2, run("gateway", "--tokens", tokens.toString(), "--rules", "../examples/rules", "--listen",
                "127.0.0.1:0", "--alerting", alerting.toString(), "--oncall", EXAMPLE));
        assertTrue(err.toString().contains(alerting + ":9:19: error: no person `leed`"), err.toString());
        err.getBuffer().setLength(0);
        Files.writeString(alerting, Files.readString(alerting).replace("primry", "primary").replace("leed", "lead"));
        assertEquals(0, run("config", "check", alerting.toString(), "--oncall", EXAMPLE), err.toString());
        assertTrue(out.toString().contains("escalation page: 2 steps"), out.toString());
    }

    @Test
    void aGatewayWithABrokenOnCallFileRefusesToStartAndSaysWhere(@TempDir Path dir) throws Exception {
        Path tokens = dir.resolve("tokens");
        assertEquals(0, run("token", "new", "--node", "gpu-*", "--file", tokens.toString()));
        Path oncall = dir.resolve("oncall.yaml");
        Files.writeString(oncall, "schedules:\n  gpu:\n    time_zone: Mars/Olympus\n    layers: []\n");
        assertEquals(1, run("gateway", "--tokens", tokens.toString(), "--rules", "../examples/rules", "--listen",
                "127.0.0.1:0", "--oncall", oncall.toString()));
        assertTrue(err.toString().contains(oncall + ":3:16: error: unknown time zone `Mars/Olympus`"), err.toString());
    }
}
