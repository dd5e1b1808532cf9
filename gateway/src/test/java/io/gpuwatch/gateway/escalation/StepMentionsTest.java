package io.gpuwatch.gateway.escalation;

import io.gpuwatch.gateway.route.EscalationTarget;
import io.gpuwatch.gateway.schedule.Roster;
import io.gpuwatch.gateway.schedule.RosterLoad;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Whom a step's page mentions, from the example on-call file, and the steps' names that file lacks. */
class StepMentionsTest {
    private static final Roster ROSTER = roster();
    private static final String WEI = "ou_7d8a6e6df7621556ce0d21922b676706";
    private static final String LIN = "ou_1f2c3d4e5f60718293a4b5c6d7e8f901";

    private static Roster roster() {
        RosterLoad load = Roster.load(Path.of("../examples/oncall/oncall.yaml"));
        assertTrue(load.ok(), load.diagnostics().toString());
        return load.roster();
    }

    private Instant now;

    private List<String> mentions(String channel, EscalationTarget... targets) {
        return new StepMentions(() -> ROSTER, List.of(targets), channel, () -> now).addresses();
    }

    private static EscalationTarget layer(String schedule, String layer) {
        return EscalationTarget.layer(schedule, layer, "alerting.yml", 3, 7);
    }

    @Test
    void aStepMentionsWhoeverIsOnCallAtTheMomentOfThePage() {
        // lin has the first week's primary, wei the second's: the hand-off is Monday 7 December 09:00 in Berlin
        now = Instant.parse("2026-12-07T07:59:00Z");
        assertEquals(List.of(LIN), mentions("feishu", layer("gpu-platform", "primary")));
        now = Instant.parse("2026-12-07T08:00:00Z");
        assertEquals(List.of(WEI), mentions("feishu", layer("gpu-platform", "primary")));
        // a schedule alone is its first layer
        assertEquals(List.of(WEI), mentions("feishu", layer("gpu-platform", null)));
    }

    @Test
    void peopleAreMentionedByTheirContactOnTheChannelAndSomeoneWithoutOneIsLeftOut() {
        now = Instant.parse("2026-12-07T08:00:00Z");
        EscalationTarget lead = EscalationTarget.person("lead", "alerting.yml", 9, 9);
        assertEquals(List.of("U0LEAD004"), mentions("slack", lead));
        assertEquals(List.of(), mentions("feishu", lead), "the lead has no Feishu id");
        assertEquals(List.of(WEI), mentions("feishu", layer("gpu-platform", "primary"), lead,
                EscalationTarget.person("wei", "alerting.yml", 9, 15)), "each contact once");
    }

    @Test
    void namesTheOnCallFileLacksAreRefusedAtTheirPlaceWithTheClosestName() {
        assertEquals(List.of(
                "alerting.yml:3:7: error: no schedule `gpu-platfrom` in the on-call file (did you mean `gpu-platform`?)",
                "alerting.yml:3:7: error: schedule `gpu-platform` has no layer `secondry` (did you mean `secondary`?) "
                        + "(primary, secondary)",
                "alerting.yml:9:9: error: no person `leed` in the on-call file (did you mean `lead`?)"),
                StepMentions.problems(ROSTER, List.of(layer("gpu-platfrom", "primary"),
                        layer("gpu-platform", "secondry"), EscalationTarget.person("leed", "alerting.yml", 9, 9),
                        layer("gpu-platform", "secondary"))));
        assertEquals(List.of("alerting.yml:9:9: error: the escalation step's `lead` needs the on-call file that "
                        + "defines it (--oncall FILE)"),
                StepMentions.problems(Roster.EMPTY, List.of(EscalationTarget.person("lead", "alerting.yml", 9, 9))));
    }
}
