package io.gpuwatch.gateway.schedule;

import io.gpuwatch.rules.source.Diagnostic;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reading on-call files: the shipped example, and each mistake reported at its file:line:col. */
class RosterReaderTest {
    private static List<String> errors(String yaml) {
        RosterLoad load = Roster.parse("oncall.yaml", yaml);
        assertFalse(load.ok(), "expected errors");
        return load.errors().stream().map(Diagnostic::toString).toList();
    }

    @Test
    void theExampleLoadsAndAnswersWhoIsOnCall() {
        RosterLoad load = Roster.load(Path.of("../examples/oncall/oncall.yaml"));
        assertTrue(load.ok(), load.diagnostics().toString());
        assertEquals(List.of(), load.diagnostics());
        Roster roster = load.roster();
        assertEquals(List.of("gpu-platform", "gpu-follow-the-sun"), List.copyOf(roster.schedules().keySet()));
        Schedule s = roster.schedule("gpu-platform").orElseThrow();
        // the override: Ana covers Wei on Saturday 12 December 09:00-18:00 Berlin (08:00-17:00Z)
        Layer primary = s.layer("primary").orElseThrow();
        assertEquals(Optional.of("wei"), s.onCall(primary, Instant.parse("2026-12-12T07:59:00Z")));
        assertEquals(Optional.of("ana"), s.onCall(primary, Instant.parse("2026-12-12T08:00:00Z")));
        assertEquals(Optional.of("wei"), s.onCall(primary, Instant.parse("2026-12-12T17:00:00Z")));
        assertEquals(Optional.of("lin"), s.onCall(s.layer("secondary").orElseThrow(),
                Instant.parse("2026-12-12T08:00:00Z")), "last week's primary backs up");
        Schedule sun = roster.schedule("gpu-follow-the-sun").orElseThrow();
        assertEquals(Optional.of("mei"), sun.onCall(sun.layer("primary").orElseThrow(),
                Instant.parse("2026-12-02T03:00:00Z")), "11:00 in Shanghai");
        assertEquals(Optional.of("sam"), sun.onCall(sun.layer("primary").orElseThrow(),
                Instant.parse("2026-12-02T16:00:00Z")), "11:00 in New York");
        assertEquals(Optional.of("lead"), sun.onCall(sun.layer("lead").orElseThrow(),
                Instant.parse("2026-12-02T13:30:00Z")));
        assertEquals(Optional.of("U024BE7LH"), roster.person("wei").orElseThrow().contact("slack"));
        assertEquals(Optional.of("13800000001"), roster.person("wei").orElseThrow().contact("dingtalk"));
    }

    @Test
    void aMisspelledMemberIsNamedWithTheClosestPerson() {
        assertEquals(List.of("oncall.yaml:11:28: error: no person `lim` under `people:` (did you mean `lin`?)"),
                errors("""
                        people:
                          wei: {name: Wei}
                          lin: {name: Lin}
                        schedules:
                          gpu:
                            time_zone: Europe/Berlin
                            layers:
                              - name: primary
                                rotations:
                                  - type: daily
                                    members: [wei, lim]
                                    start: 2026-12-01T09:00
                        """));
    }

    @Test
    void everyMistakeIsReportedAtItsPlace() {
        List<String> errors = errors("""
                people:
                  wei:
                    name: Wei
                    contacts: {slak: U1}
                schedules:
                  gpu:
                    time_zone: Europe/Berln
                    layers:
                      - name: primary
                        rotations:
                          - type: dayly
                            members: [wei]
                            start: 2026-12-01 9am
                          - type: custom
                            members: [wei]
                            start: 2026-12-01T09:00
                            hours: 09:00-09:00
                    overrides:
                      - layer: primry
                        person: wei
                        start: 2026-12-12T18:00+01:00
                        end: 2026-12-12T09:00+01:00
                    owner: someone
                """);
        assertEquals(List.of(
                "oncall.yaml:4:16: error: unknown channel `slak` (did you mean `slack`?)",
                "oncall.yaml:7:16: error: unknown time zone `Europe/Berln` (did you mean `Europe/Berlin`?); use an "
                        + "IANA name such as Europe/Berlin or UTC",
                "oncall.yaml:11:19: error: unknown rotation type `dayly` (did you mean `daily`?); one of daily, "
                        + "weekly, custom",
                "oncall.yaml:13:20: error: `start` is a wall-clock date and time in the rotation's zone, like "
                        + "2026-11-30T09:00; got 2026-12-01 9am",
                "oncall.yaml:14:13: error: a custom rotation needs `length:` between hand-offs (e.g. 12h, 3d)",
                "oncall.yaml:17:20: error: `hours` that start where they end cover nothing; leave `hours` out for "
                        + "all day",
                "oncall.yaml:19:16: error: no layer `primry` in this schedule (did you mean `primary`?)",
                "oncall.yaml:22:14: error: an override must end after it starts",
                "oncall.yaml:23:5: error: unknown schedule key `owner` (name, time_zone, layers, overrides)"),
                errors);
    }

    @Test
    void badYamlAndAMissingZoneAreErrorsNotCrashes() {
        assertEquals(List.of("oncall.yaml:3:1: error: not valid YAML: expected ',' or ']', but got <stream end> (while parsing a flow sequence)"),
                errors("people:\n- [wei\n"));
        List<String> missing = errors("schedules:\n  gpu:\n    layers: []\n");
        assertEquals(List.of("oncall.yaml:3:5: error: schedule `gpu` needs `time_zone:` (e.g. Europe/Berlin, UTC)"),
                missing);
        assertEquals(List.of("oncall.yaml:2:3: error: an id is lower-case letters, digits, `-` and `_`, starting "
                + "with a letter or digit"), errors("people:\n  Wei Zhang: {}\n"));
    }

    @Test
    void aContactThatCouldBreakOutOfAMentionIsRefused() {
        assertEquals(List.of(
                "oncall.yaml:4:14: error: a slack contact is a member id such as U024BE7LH, got `<!channel>`",
                "oncall.yaml:5:17: error: a dingtalk contact is a mobile number such as 13800000000, got `138 all`",
                "oncall.yaml:6:14: error: a wecom contact is a userid such as zhangwei, got `lin><@all`"),
                errors("""
                        people:
                          lin:
                            contacts:
                              slack: "<!channel>"
                              dingtalk: 138 all
                              wecom: lin><@all
                              email: "Lin <lin@example.com>"
                        """));
    }
}
