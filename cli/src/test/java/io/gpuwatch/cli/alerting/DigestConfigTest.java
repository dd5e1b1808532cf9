package io.gpuwatch.cli.alerting;

import io.gpuwatch.gateway.digest.DigestChannel;
import io.gpuwatch.gateway.digest.DigestSchedule;
import io.gpuwatch.notify.receiver.feishu.FeishuReportTarget;
import io.gpuwatch.notify.receiver.slack.SlackReportTarget;
import io.gpuwatch.notify.secret.SecretSource;
import io.gpuwatch.rules.source.Diagnostic;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@code digest:} of a chat receiver: schedules read, and every mistake reported where it is written. */
class DigestConfigTest {
    private static final SecretSource SECRETS = SecretSource.ofEnv(Map.of(
            "HOOK", "https://hooks.example.com/T0/B0/x", "KEY", "0123456789abcdef0123456789abcdef"));

    private static AlertingLoad load(String receivers) {
        return AlertingFile.parse("a.yml", "receivers:\n" + receivers + "route:\n  receiver: ops\n", SECRETS, null);
    }

    private static List<String> errors(AlertingLoad load) {
        return load.errors().stream().map(Diagnostic::toString).toList();
    }

    @Test
    void hourlyAndDailySchedulesAreReadAndShareTheChannelsTarget() throws Exception {
        AlertingLoad load = load("""
                  - name: ops
                    type: slack
                    url: {env: HOOK}
                    digest:
                      - {every: 1h}
                      - {at: "09:00", time_zone: Asia/Shanghai}
                  - name: cn
                    type: feishu
                    url: {env: HOOK}
                    digest: {at: "18:30", time_zone: Asia/Shanghai}
                  - name: pager
                    type: pagerduty
                    routingKey: {env: KEY}
                """);
        assertTrue(load.ok(), load.diagnostics().toString());
        assertEquals(List.of(new DigestSchedule.Every(Duration.ofHours(1), ZoneOffset.UTC),
                new DigestSchedule.Daily(LocalTime.of(9, 0), ZoneId.of("Asia/Shanghai"))),
                load.receivers().get(0).digests());
        assertEquals(List.of(), load.receivers().get(2).digests());
        Vertx vertx = Vertx.vertx();
        try {
            List<DigestChannel> channels = load.digests(new Wiring(vertx, WebClient.create(vertx), "http://gw",
                    new PrintStream(new ByteArrayOutputStream(), true)));
            assertEquals(List.of("ops", "ops", "cn"), channels.stream().map(DigestChannel::receiver).toList());
            assertInstanceOf(SlackReportTarget.class, channels.get(0).target());
            assertSame(channels.get(0).target(), channels.get(1).target());
            assertInstanceOf(FeishuReportTarget.class, channels.get(2).target());
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void mistakesAreReportedAtTheirPlace() {
        AlertingLoad load = load("""
                  - name: ops
                    type: slack
                    url: {env: HOOK}
                    digest:
                      - {evry: 1h}
                      - {every: 30s}
                      - {every: 1h, at: "09:00"}
                      - {at: "25:00"}
                      - {at: "09:00", time_zone: Asia/Shangai}
                      - {}
                """);
        assertFalse(load.ok());
        assertEquals(List.of(
                "a.yml:6:9: error: a digest schedule needs `every: DURATION` (e.g. 1h) or `at: \"HH:MM\"` (daily)",
                "a.yml:6:10: error: unknown digest key `evry` (did you mean `every`?) (keys: every, at, time_zone)",
                "a.yml:7:17: error: `every` must be at least 1m, got `30s`",
                "a.yml:8:21: error: a digest schedule has `every` or `at`, not both; write two schedules in a list",
                "a.yml:9:14: error: `at` is a time of day as \"HH:MM\" from 00:00 to 23:59, got `25:00`",
                "a.yml:10:34: error: unknown time zone `Asia/Shangai` (did you mean `Asia/Shanghai`?) (an IANA name"
                        + " such as Europe/Berlin or Asia/Shanghai)",
                "a.yml:11:9: error: a digest schedule needs `every: DURATION` (e.g. 1h) or `at: \"HH:MM\"` (daily)"),
                errors(load));
    }

    @Test
    void aPagerTakesNoDigest() {
        AlertingLoad load = load("""
                  - name: ops
                    type: pagerduty
                    routingKey: {env: KEY}
                    digest: {every: 1h}
                """);
        assertEquals(List.of("a.yml:5:5: error: `digest` is for chat receivers (slack, teams, feishu, dingtalk, "
                + "wecom, console), not pagerduty: digests are read by people, pages and tickets are not summarised"),
                errors(load));
    }

    @Test
    void theExampleFileHasDigests() {
        AlertingLoad load = AlertingFile.loadWithoutSecrets(Path.of("../examples/alerting/gpuwatch.yml"),
                name -> null, Set.of());
        assertTrue(load.ok(), load.diagnostics().toString());
        assertTrue(load.receivers().stream().anyMatch(r -> !r.digests().isEmpty()),
                "examples/alerting/gpuwatch.yml shows no digest");
    }
}
