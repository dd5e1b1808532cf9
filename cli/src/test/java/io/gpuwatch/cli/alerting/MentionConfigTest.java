package io.gpuwatch.cli.alerting;

import io.gpuwatch.gateway.schedule.Roster;
import io.gpuwatch.gateway.schedule.RosterLoad;
import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.notify.secret.SecretSource;
import io.gpuwatch.rules.source.Diagnostic;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code mention:} of chat receivers: read with its places, resolved against the on-call file at each send. */
class MentionConfigTest {
    private static final SecretSource SECRETS = SecretSource.ofEnv(Map.of(
            "SLACK", "https://hooks.slack.com/services/T1/B1/X1", "KEY", "0123456789abcdef0123456789abcdef"));

    private static Roster roster() {
        RosterLoad load = Roster.load(Path.of("../examples/oncall/oncall.yaml"));
        assertTrue(load.ok(), load.diagnostics().toString());
        return load.roster();
    }

    private static AlertingLoad parse(String text) {
        return AlertingFile.parse("a.yml", text, SECRETS, null);
    }

    @Test
    void theExampleChecksAgainstTheExampleRoster() {
        AlertingLoad load = AlertingFile.load(Path.of("../examples/oncall/alerting.yml"), SecretSource.ofEnv(Map.of(
                "FEISHU_WEBHOOK_URL", "https://open.feishu.cn/open-apis/bot/v2/hook/t", "FEISHU_SIGNING_SECRET", "s",
                "DINGTALK_WEBHOOK_URL", "https://oapi.dingtalk.com/robot/send?access_token=t",
                "DINGTALK_SECRET", "SECabc", "SLACK_WEBHOOK_URL", "https://hooks.slack.com/services/T1/B1/X1",
                "SLACK_SIGNING_SECRET", "8f742231b10e8888abcd99yyyzzz85a5", "GPUWATCH_LINK_SECRET", "l1nk")), null);
        assertTrue(load.ok(), load.diagnostics().toString());
        assertEquals(List.of(), load.diagnostics());
        assertEquals(List.of("gpu-feishu/FEISHU", "gpu-slack/SLACK"), load.pagerHooks().stream()
                .map(h -> h.receiver() + "/" + h.service()).toList());
        List<MentionRef> refs = load.receivers().stream().flatMap(r -> r.mentions().stream()).toList();
        assertEquals(List.of("gpu-platform/primary", "gpu-platform/primary", "gpu-platform/secondary",
                "gpu-follow-the-sun"), refs.stream().map(MentionRef::toString).toList());
        assertEquals(List.of(), refs.stream().flatMap(r -> OnCallMentions.problems(roster(), List.of(r)).stream())
                .toList());
    }

    @Test
    void aMentionResolvesToWhoeverIsOnCallWhenTheMessageIsSent() {
        AlertingLoad load = parse("""
                receivers:
                  - name: chat
                    type: slack
                    url: {env: SLACK}
                    mention: [gpu-platform/primary, gpu-platform/secondary, gpu-follow-the-sun]
                route:
                  receiver: chat
                """);
        assertTrue(load.ok(), load.diagnostics().toString());
        Instant[] now = {Instant.parse("2026-12-12T07:00:00Z")};
        OnCall onCall = OnCallMentions.of(roster(), load.receivers().get(0).mentions(), "slack", () -> now[0]);
        // Saturday 08:00 Berlin: wei primary, lin secondary, lin on Shanghai's day in the follow-the-sun layer
        assertEquals(List.of("U024BE7LH", "U0G9QF9C6"), onCall.addresses(), "lin once, though named twice");
        now[0] = Instant.parse("2026-12-12T09:00:00Z");
        assertEquals(List.of("U0ANA0001", "U0G9QF9C6"), onCall.addresses(), "Ana covers Wei by override");
        now[0] = Instant.parse("2026-12-14T08:00:00Z");
        assertEquals(List.of("U0ANA0001", "U024BE7LH", "U0MEI0003"), onCall.addresses(), "Monday's hand-offs");
        assertSame(OnCall.NOBODY, OnCallMentions.of(roster(), List.of(), "slack", () -> now[0]));
    }

    @Test
    void someoneWithoutAContactOnTheChannelIsNotMentionedThere() {
        MentionRef ref = new MentionRef("gpu-platform", "primary", "a.yml", 1, 1);
        OnCall dingtalk = OnCallMentions.of(roster(), List.of(ref), "dingtalk",
                () -> Instant.parse("2026-12-12T09:00:00Z"));
        assertEquals(List.of(), dingtalk.addresses(), "Ana has no DingTalk number");
        OnCall teams = OnCallMentions.of(roster(), List.of(ref), "teams", () -> Instant.parse("2026-12-12T09:00:00Z"));
        assertEquals(List.of(new OnCall.Named("ana@example.com", "Ana Souza")), teams.named(),
                "Teams mentions Ana by her UPN, shown with her name");
        assertEquals(List.of(), OnCallMentions.of(roster(), List.of(ref), "teams",
                () -> Instant.parse("2026-12-12T07:00:00Z")).named(), "Wei has no Teams contact");
    }

    @Test
    void unknownSchedulesAndLayersAreErrorsAtTheirPlace() {
        AlertingLoad load = parse("""
                receivers:
                  - name: chat
                    type: slack
                    url: {env: SLACK}
                    mention: [gpu-platfrom/primary, gpu-platform/secnodary]
                route:
                  receiver: chat
                """);
        assertTrue(load.ok(), load.diagnostics().toString());
        List<MentionRef> refs = load.receivers().get(0).mentions();
        assertEquals(List.of(
                "a.yml:5:15: error: no schedule `gpu-platfrom` in the on-call file (did you mean `gpu-platform`?)",
                "a.yml:5:37: error: schedule `gpu-platform` has no layer `secnodary` (did you mean `secondary`?) "
                        + "(primary, secondary)"), OnCallMentions.problems(roster(), refs));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> OnCallMentions.of(Roster.EMPTY, refs, "slack", Instant::now));
        assertTrue(e.getMessage().startsWith("a.yml:5:15: error: `mention: gpu-platfrom/primary` needs the on-call "
                + "file that defines it (--oncall FILE)"), e.getMessage());
    }

    @Test
    void mentionIsForChatReceiversAndTakesScheduleLayers() {
        AlertingLoad load = parse("""
                receivers:
                  - name: pager
                    type: pagerduty
                    routingKey: {env: KEY}
                    mention: [gpu-platform]
                  - name: chat
                    type: slack
                    url: {env: SLACK}
                    mention: ["a/b/c"]
                route:
                  receiver: chat
                """);
        assertFalse(load.ok());
        assertEquals(List.of("a.yml:5:5: error: `mention` is for chat receivers that can mention people (slack, "
                        + "teams, feishu, dingtalk, wecom), not pagerduty",
                "a.yml:9:15: error: `mention` takes schedule layers such as `gpu-platform/primary` (or "
                        + "`gpu-platform` for its first layer)"),
                load.errors().stream().map(Diagnostic::toString).toList());
    }

    @Test
    void aChatBotWithAWebhookSecretSignsAcknowledgeLinks() {
        AlertingLoad load = AlertingFile.parse("a.yml", """
                receivers:
                  - name: gpu-feishu
                    type: feishu
                    url: {env: FEISHU}
                    webhookSecret: {env: LINK_SECRET}
                route:
                  receiver: gpu-feishu
                """, SecretSource.ofEnv(Map.of("FEISHU", "https://open.feishu.cn/open-apis/bot/v2/hook/t",
                "LINK_SECRET", "link-signing-secret")), null);
        assertTrue(load.ok(), load.diagnostics().toString());
        assertEquals(1, load.pagerHooks().size());
        assertEquals(io.gpuwatch.gateway.ack.PagerHook.Service.FEISHU, load.pagerHooks().get(0).service());
        assertEquals("ack-link", load.pagerHooks().get(0).service().path());
    }
}
