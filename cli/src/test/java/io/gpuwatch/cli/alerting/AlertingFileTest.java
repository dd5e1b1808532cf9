package io.gpuwatch.cli.alerting;

import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.receiver.webhook.WebhookReceiver;
import io.gpuwatch.notify.secret.SecretSource;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reading the receivers of an alerting file: every type, and a secret written where only a reference goes. */
class AlertingFileTest {
    private static final SecretSource SECRETS = SecretSource.ofEnv(Map.of(
            "HOOK", "https://hooks.example.com/T0/B0/x", "KEY", "0123456789abcdef0123456789abcdef",
            "SIGN", "SEC0123456789", "TOKEN", "tok",
            "DING", "https://oapi.dingtalk.com/robot/send?access_token=abc",
            "WECOM", "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=abc"));

    @Test
    void everyReceiverTypeIsReadAndMadeUnderItsName() throws Exception {
        AlertingLoad load = AlertingFile.parse("all.yml", """
                receivers:
                  - {name: s, type: slack, url: {env: HOOK}}
                  - {name: t, type: teams, url: {env: HOOK}}
                  - {name: f, type: feishu, url: {env: HOOK}, secret: {env: SIGN}}
                  - {name: d, type: dingtalk, url: {env: DING}, secret: {env: SIGN}}
                  - {name: w, type: wecom, url: {env: WECOM}}
                  - {name: p, type: pagerduty, routingKey: {env: KEY}}
                  - {name: o, type: opsgenie, apiKey: {env: KEY}}
                  - {name: j, type: jira, url: "https://x.atlassian.net", project: OPS, email: a@b.c,
                     apiToken: {env: TOKEN}}
                  - {name: a, type: alertmanager, url: "https://am.example.com"}
                  - {name: h, type: webhook, url: "https://hook.example.com/in", bearerToken: {env: TOKEN}}
                  - {name: c, type: Console, color: true}
                route:
                  receiver: s
                """, SECRETS, null);
        assertTrue(load.ok(), load.diagnostics().toString());
        assertEquals(List.of("slack", "teams", "feishu", "dingtalk", "wecom", "pagerduty", "opsgenie", "jira",
                "alertmanager", "webhook", "console"), load.receivers().stream().map(ReceiverSpec::type).toList());
        Vertx vertx = Vertx.vertx();
        try {
            List<Receiver> made = load.create(new Wiring(vertx, WebClient.create(vertx), "http://gw",
                    new PrintStream(new ByteArrayOutputStream(), true)));
            assertEquals(List.of("s", "t", "f", "d", "w", "p", "o", "j", "a", "h", "c"),
                    made.stream().map(Receiver::name).toList());
            assertInstanceOf(WebhookReceiver.class, made.get(9));
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aLiteralSecretIsRefusedAtItsFieldAndNeverEchoed() {
        AlertingLoad load = AlertingFile.parse("a.yml", """
                receivers:
                  - name: hook
                    type: webhook
                    url: https://hook.example.com/in
                    bearerToken: s3cret-value
                route:
                  receiver: hook
                """, SECRETS, null);
        assertFalse(load.ok());
        assertEquals(1, load.errors().size(), load.diagnostics().toString());
        String text = load.errors().get(0).toString();
        assertTrue(text.startsWith("a.yml:5:5: error: receivers.hook.bearerToken: "), text);
        assertFalse(text.contains("s3cret-value"), text);
    }
}
