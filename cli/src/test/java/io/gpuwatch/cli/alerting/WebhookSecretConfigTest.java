package io.gpuwatch.cli.alerting;

import io.gpuwatch.gateway.ack.PagerHook;
import io.gpuwatch.notify.secret.SecretSource;
import io.gpuwatch.rules.source.Diagnostic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code webhookSecret:} of pagers: read like every other secret, refused where it has no meaning. */
class WebhookSecretConfigTest {
    private static final Map<String, String> ENV = Map.of("KEY", "0123456789abcdef0123456789abcdef",
            "PD_HOOK", "pd-signing-secret", "LARK_KEY", "lark-encrypt-key",
            "FEISHU", "https://open.feishu.cn/open-apis/bot/v2/hook/0a1b2c3d", "SLACK",
            "https://hooks.slack.com/services/T1/B1/X1");
    private static final SecretSource SECRETS = new SecretSource(ENV::get,
            p -> p.toString().equals("/run/secrets/opsgenie-hook") ? "og-shared-secret\n" : null);

    private static AlertingLoad parse(String text) {
        return AlertingFile.parse("a.yml", text, SECRETS, null);
    }

    @Test
    void aPagerWithAWebhookSecretTakesAcknowledgementsFromItsService() {
        AlertingLoad load = parse("""
                receivers:
                  - name: oncall
                    type: pagerduty
                    routingKey: {env: KEY}
                    webhookSecret: {env: PD_HOOK}
                  - name: team
                    type: opsgenie
                    apiKey: {env: KEY}
                    webhookSecret: {file: /run/secrets/opsgenie-hook}
                  - name: quiet
                    type: pagerduty
                    routingKey: {env: KEY}
                route:
                  receiver: oncall
                """);
        assertTrue(load.ok(), load.diagnostics().toString());
        List<PagerHook> hooks = load.pagerHooks();
        assertEquals(List.of("oncall", "team"), hooks.stream().map(PagerHook::receiver).toList(),
                "a pager without webhookSecret has no webhook");
        assertEquals(PagerHook.Service.PAGERDUTY, hooks.get(0).service());
        assertEquals("pd-signing-secret", hooks.get(0).secret().reveal());
        assertEquals(PagerHook.Service.OPSGENIE, hooks.get(1).service());
        assertEquals("og-shared-secret", hooks.get(1).secret().reveal());
        assertEquals("file /run/secrets/opsgenie-hook", hooks.get(1).secret().source());
        assertFalse(hooks.toString().contains("pd-signing-secret"), hooks.toString());
    }

    @Test
    void aFeishuReceiverWithACallbackKeyTakesItsAppsCardCallbacks() {
        AlertingLoad load = parse("""
                receivers:
                  - name: lark
                    type: feishu
                    url: {env: FEISHU}
                    webhookSecret: {env: KEY}
                    callbackKey: {env: LARK_KEY}
                  - name: chat
                    type: slack
                    url: {env: SLACK}
                    callbackKey: {env: LARK_KEY}
                route:
                  receiver: lark
                """);
        assertFalse(load.ok());
        assertEquals(List.of("a.yml:10:5: error: `callbackKey` is the Encrypt Key of a Feishu app whose card "
                + "callbacks the gateway takes, so it is for feishu receivers only, not slack"),
                load.errors().stream().map(Diagnostic::toString).toList());
        AlertingLoad ok = parse("""
                receivers:
                  - name: lark
                    type: feishu
                    url: {env: FEISHU}
                    webhookSecret: {env: KEY}
                    callbackKey: {env: LARK_KEY}
                route:
                  receiver: lark
                """);
        assertTrue(ok.ok(), ok.diagnostics().toString());
        List<PagerHook> hooks = ok.pagerHooks();
        assertEquals(List.of(PagerHook.Service.FEISHU, PagerHook.Service.FEISHU_APP),
                hooks.stream().map(PagerHook::service).toList(), "the signed link and the app's callbacks");
        assertEquals("lark-encrypt-key", hooks.get(1).secret().reveal());
    }

    @Test
    void anUnsetOrLiteralWebhookSecretIsAnErrorAtItsPlaceAndNeverEchoed() {
        AlertingLoad load = parse("""
                receivers:
                  - name: oncall
                    type: pagerduty
                    routingKey: {env: KEY}
                    webhookSecret: {env: PD_HOOK_UNSET}
                  - name: team
                    type: opsgenie
                    apiKey: {env: KEY}
                    webhookSecret: og-literal-secret
                route:
                  receiver: oncall
                """);
        assertFalse(load.ok());
        List<String> errors = load.errors().stream().map(Diagnostic::toString).toList();
        assertEquals(2, errors.size(), errors.toString());
        assertEquals("a.yml:5:20: error: receivers.oncall.webhookSecret: environment variable PD_HOOK_UNSET is "
                + "not set", errors.get(0));
        assertTrue(errors.get(1).startsWith("a.yml:9:5: error: receivers.team.webhookSecret: "), errors.get(1));
        assertFalse(errors.get(1).contains("og-literal-secret"), errors.get(1));
    }

    @Test
    void aWebhookSecretOnAReceiverWithoutAPagingServiceIsAnError() {
        AlertingLoad load = parse("""
                receivers:
                  - name: hook
                    type: webhook
                    url: https://hook.example.com/in
                    webhookSecret: {env: PD_HOOK}
                route:
                  receiver: hook
                """);
        assertFalse(load.ok());
        assertEquals(List.of("a.yml:5:5: error: `webhookSecret` is for receivers whose service reports "
                + "acknowledgements back (pagerduty, opsgenie, slack, feishu, dingtalk, wecom), not webhook"),
                load.errors().stream().map(Diagnostic::toString).toList());
    }

    @Test
    void withoutSecretsAnUnsetWebhookSecretIsOnlyAWarning(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("alerting.yml");
        Files.writeString(file, """
                receivers:
                  - name: oncall
                    type: pagerduty
                    routingKey: {env: KEY}
                    webhookSecret: {env: PD_HOOK_UNSET}
                route:
                  receiver: oncall
                """);
        AlertingLoad load = AlertingFile.loadWithoutSecrets(file, ENV::get, null);
        assertTrue(load.ok(), load.diagnostics().toString());
        assertEquals(1, load.diagnostics().size(), load.diagnostics().toString());
        assertTrue(load.diagnostics().get(0).toString().contains("environment variable PD_HOOK_UNSET is not set"),
                load.diagnostics().toString());
    }

    @Test
    void aSlackReceiverWithAWebhookSecretTakesButtonClicks() {
        AlertingLoad load = AlertingFile.parse("a.yml", """
                receivers:
                  - name: chat
                    type: slack
                    url: {env: SLACK}
                    webhookSecret: {env: SLACK_SIGNING}
                route:
                  receiver: chat
                """, SecretSource.ofEnv(Map.of("SLACK", "https://hooks.slack.com/services/T1/B1/X1",
                "SLACK_SIGNING", "8f742231b10e8888abcd99yyyzzz85a5")), null);
        assertTrue(load.ok(), load.diagnostics().toString());
        assertEquals(List.of(new PagerHook("chat", PagerHook.Service.SLACK, load.pagerHooks().get(0).secret())),
                load.pagerHooks());
        assertEquals("8f742231b10e8888abcd99yyyzzz85a5", load.pagerHooks().get(0).secret().reveal());
    }
}
