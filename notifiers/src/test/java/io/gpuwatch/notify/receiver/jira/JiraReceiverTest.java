package io.gpuwatch.notify.receiver.jira;

import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Notification.Status;
import io.gpuwatch.notify.receiver.chat.Alerts;
import io.gpuwatch.notify.receiver.chat.Hostile;
import io.gpuwatch.notify.receiver.webhook.HttpAuth;
import io.gpuwatch.notify.retry.RecordingPause;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(VertxExtension.class)
@Timeout(value = 10, timeUnit = TimeUnit.SECONDS)
class JiraReceiverTest {
    private static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-12-03T09:05:00Z"));
    private static final RandomGenerator NO_JITTER = () -> 0L;
    private static final Instant START = Instant.parse("2026-12-03T09:01:02Z");
    private static final String TOKEN = "ATATT3xFfGF0-api-token";
    private static final HttpAuth CLOUD = new HttpAuth.Basic("ops@example.com", TOKEN);
    private static final String CLOUD_HEADER = "Basic " + Base64.getEncoder()
            .encodeToString(("ops@example.com:" + TOKEN).getBytes(StandardCharsets.UTF_8));

    private static final Notification HOT = new Notification("7777777777777777", Status.FIRING,
            Map.of("alertname", "gpu-hot", "severity", "ticket", "node", "node-02", "uuid", "GPU-3333"),
            Map.of("summary", "GPU-3333 at 91 °C", "runbook", "https://runbooks/hot"),
            START, null, "http://gw:8080/api/v1/alerts/7777777777777777");
    private static final Notification HOT_RESOLVED = new Notification("7777777777777777", Status.RESOLVED,
            HOT.labels(), HOT.annotations(), START, Instant.parse("2026-12-03T09:40:00Z"), HOT.generatorUrl());

    private static JiraConfig config(String url, int version, HttpAuth auth, String issueType, String transition) {
        return new JiraConfig(url, version, "OPS", issueType, auth, JiraConfig.DEFAULT_SUMMARY,
                JiraConfig.DEFAULT_DESCRIPTION, JiraConfig.DEFAULT_COMMENT, JiraConfig.DEFAULT_RESOLVED_COMMENT,
                transition, List.of("gpu"), Map.of("ticket", "Medium"), 2000, 4, 4, 5000);
    }

    private static JiraReceiver receiver(Vertx vertx, JiraConfig config, RecordingPause pause) {
        return new JiraReceiver("jira-ops", config, WebClient.create(vertx), NO_JITTER, pause, CLOCK);
    }

    private static JiraReceiver cloud(Vertx vertx, FakeJira jira, RecordingPause pause) {
        return receiver(vertx, config(jira.url(), 3, CLOUD, "Task", "Done"), pause);
    }

    @Test
    void oneTicketPerFingerprintCreatedCommentedResolvedThenANewOneForANewIncident(Vertx vertx, VertxTestContext ctx) {
        FakeJira jira = new FakeJira(CLOUD_HEADER, 3);
        List<String> seen = new ArrayList<>();
        jira.start(vertx)
                .compose(j -> {
                    JiraReceiver r = cloud(vertx, jira, new RecordingPause());
                    return r.send(List.of(HOT))
                            .compose(v -> {
                                seen.add("created: " + jira.issues.keySet() + " " + jira.calls);
                                return r.send(List.of(HOT));
                            })
                            .compose(v -> {
                                seen.add("repeat: " + jira.issues.keySet() + " comments "
                                        + jira.issues.get("OPS-1").comments.size());
                                return r.send(List.of(HOT_RESOLVED));
                            })
                            .compose(v -> {
                                seen.add("resolved: " + jira.issues.get("OPS-1").status + " comments "
                                        + jira.issues.get("OPS-1").comments.size());
                                return r.send(List.of(HOT));
                            });
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(List.of(
                            "created: [OPS-1] [POST /rest/api/3/search/jql, POST /rest/api/3/issue]",
                            "repeat: [OPS-1] comments 1",
                            "resolved: Done comments 2"), seen);
                    assertEquals(2, jira.issues.size(), "a firing after resolve opens a new ticket");
                    assertEquals("To Do", jira.issues.get("OPS-2").status);
                    assertEquals("Done", jira.issues.get("OPS-1").status);
                    JsonObject fields = jira.issues.get("OPS-1").fields;
                    assertEquals("[gpuwatch] GPU-3333 at 91 °C", fields.getString("summary"));
                    assertEquals("Task", fields.getJsonObject("issuetype").getString("name"));
                    assertEquals("Medium", fields.getJsonObject("priority").getString("name"));
                    assertEquals(List.of("gpuwatch-7777777777777777", "gpu"), fields.getJsonArray("labels").getList());
                    JsonObject doc = fields.getJsonObject("description");
                    assertEquals("GPU-3333 at 91 °C", doc.getJsonArray("content").getJsonObject(0)
                            .getJsonArray("content").getJsonObject(0).getString("text"));
                    assertTrue(doc.encode().contains("Fingerprint: 7777777777777777"), doc.encode());
                    JsonObject repeat = (JsonObject) jira.issues.get("OPS-1").comments.get(0);
                    assertTrue(repeat.encode().contains("Still firing: GPU-3333 at 91 °C"), repeat.encode());
                    JsonObject resolvedComment = (JsonObject) jira.issues.get("OPS-1").comments.get(1);
                    assertTrue(resolvedComment.encode().contains("Resolved at 2026-12-03T09:40:00Z."),
                            resolvedComment.encode());
                    ctx.completeNow();
                })));
    }

    @Test
    void dataCenterV2UsesABearerTokenPlainTextAndTheV2Search(Vertx vertx, VertxTestContext ctx) {
        FakeJira jira = new FakeJira("Bearer dc-personal-access-token", 2);
        jira.start(vertx)
                .compose(j -> {
                    JiraReceiver r = receiver(vertx, config(jira.url(), 2, new HttpAuth.Bearer("dc-personal-access-token"),
                            "Bug", "Done"), new RecordingPause());
                    return r.send(List.of(HOT)).compose(v -> r.send(List.of(HOT)));
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(List.of("POST /rest/api/2/search", "POST /rest/api/2/issue", "POST /rest/api/2/search",
                            "POST /rest/api/2/issue/OPS-1/comment"), jira.calls);
                    String description = jira.issues.get("OPS-1").fields.getString("description");
                    assertTrue(description.startsWith("GPU\\-3333 at 91 °C\n\nLabels: alertname=gpu\\-hot"), description);
                    assertTrue(jira.issues.get("OPS-1").comments.get(0) instanceof String);
                    ctx.completeNow();
                })));
    }

    @Test
    void aResolveWithNoOpenTicketChangesNothing(Vertx vertx, VertxTestContext ctx) {
        FakeJira jira = new FakeJira(CLOUD_HEADER, 3);
        jira.start(vertx)
                .compose(j -> cloud(vertx, jira, new RecordingPause()).send(List.of(HOT_RESOLVED)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(List.of("POST /rest/api/3/search/jql"), jira.calls);
                    assertTrue(jira.issues.isEmpty());
                    ctx.completeNow();
                })));
    }

    @Test
    void longMultiLineSummaryIsFlattenedAndCutTo255(Vertx vertx, VertxTestContext ctx) {
        FakeJira jira = new FakeJira(CLOUD_HEADER, 3);
        Notification wordy = new Notification("w1", Status.FIRING, Map.of("alertname", "wordy"),
                Map.of("summary", "first line\n" + "x".repeat(400)), START, null, "");
        jira.start(vertx)
                .compose(j -> cloud(vertx, jira, new RecordingPause()).send(List.of(wordy)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    String summary = jira.issues.get("OPS-1").fields.getString("summary");
                    assertEquals(255, summary.length());
                    assertTrue(summary.startsWith("[gpuwatch] first line x"), summary);
                    assertTrue(summary.endsWith("…"));
                    ctx.completeNow();
                })));
    }

    @Test
    void fieldErrorsAreReportedAndNotRetried(Vertx vertx, VertxTestContext ctx) {
        FakeJira jira = new FakeJira(CLOUD_HEADER, 3);
        RecordingPause pause = new RecordingPause();
        jira.start(vertx)
                .compose(j -> receiver(vertx, config(jira.url(), 3, CLOUD, "Story", "Done"), pause).send(List.of(HOT)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertFalse(failure.retryable());
                    assertEquals(List.of(), pause.waits);
                    String message = failure.getMessage();
                    assertTrue(message.contains("Jira rejected creating a ticket (HTTP 400"), message);
                    assertTrue(message.contains("issuetype: Specify a valid issue type"), message);
                    assertTrue(jira.issues.isEmpty());
                    ctx.completeNow();
                })));
    }

    @Test
    void badCredentialsFailAtOnceWithoutShowingTheToken(Vertx vertx, VertxTestContext ctx) {
        FakeJira jira = new FakeJira(CLOUD_HEADER, 3);
        String wrong = "ATATT-wrong-token";
        jira.start(vertx)
                .compose(j -> receiver(vertx, config(jira.url(), 3, new HttpAuth.Basic("ops@example.com", wrong),
                        "Task", "Done"), new RecordingPause()).send(List.of(HOT)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertFalse(failure.retryable());
                    assertEquals(1, jira.calls.size());
                    assertTrue(failure.getMessage().contains("refused the credentials"), failure.getMessage());
                    assertFalse(failure.getMessage().contains(wrong), failure.getMessage());
                    ctx.completeNow();
                })));
    }

    @Test
    void aMissingTransitionNamesTheOnesThatExist(Vertx vertx, VertxTestContext ctx) {
        FakeJira jira = new FakeJira(CLOUD_HEADER, 3);
        jira.start(vertx)
                .compose(j -> {
                    JiraReceiver r = receiver(vertx, config(jira.url(), 3, CLOUD, "Task", "Close Issue"), new RecordingPause());
                    return r.send(List.of(HOT)).compose(v -> r.send(List.of(HOT_RESOLVED)));
                })
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertFalse(failure.retryable());
                    assertTrue(failure.getMessage().contains(
                            "ticket OPS-1 has no transition named 'Close Issue' from its current status "
                                    + "(available: 'In Progress', 'Done')"), failure.getMessage());
                    assertEquals("To Do", jira.issues.get("OPS-1").status);
                    ctx.completeNow();
                })));
    }

    @Test
    void aVanishedTicketIsReportedAsNotFound(Vertx vertx, VertxTestContext ctx) {
        FakeJira jira = new FakeJira(CLOUD_HEADER, 3)
                .then(req -> req.response().putHeader("Content-Type", "application/json")
                        .end("{\"issues\":[{\"id\":\"1\",\"key\":\"OPS-9\"}]}"));
        jira.start(vertx)
                .compose(j -> cloud(vertx, jira, new RecordingPause()).send(List.of(HOT)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertFalse(failure.retryable());
                    assertTrue(failure.getMessage().contains("Jira found nothing while commenting on OPS-9 (HTTP 404"),
                            failure.getMessage());
                    assertTrue(failure.getMessage().contains("Issue does not exist"), failure.getMessage());
                    ctx.completeNow();
                })));
    }

    @Test
    void throttledSearchIsRetriedAndTheTicketCreatedOnce(Vertx vertx, VertxTestContext ctx) {
        FakeJira jira = new FakeJira(CLOUD_HEADER, 3)
                .then(req -> req.response().setStatusCode(429).putHeader("Retry-After", "3").end());
        RecordingPause pause = new RecordingPause();
        jira.start(vertx)
                .compose(j -> cloud(vertx, jira, pause).send(List.of(HOT)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(List.of(3000L), pause.waits);
                    assertEquals(List.of("POST /rest/api/3/search/jql", "POST /rest/api/3/search/jql",
                            "POST /rest/api/3/issue"), jira.calls);
                    assertEquals(1, jira.issues.size());
                    ctx.completeNow();
                })));
    }

    @Test
    void aCreateWhoseAnswerWasLostIsNotDuplicatedByTheRetry(Vertx vertx, VertxTestContext ctx) {
        FakeJira jira = new FakeJira(CLOUD_HEADER, 3);
        jira.lostCreateAnswers = 1;
        RecordingPause pause = new RecordingPause();
        jira.start(vertx)
                .compose(j -> cloud(vertx, jira, pause).send(List.of(HOT)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(1, jira.issues.size());
                    assertEquals(List.of("POST /rest/api/3/search/jql", "POST /rest/api/3/issue",
                            "POST /rest/api/3/search/jql", "POST /rest/api/3/issue/OPS-1/comment"), jira.calls);
                    assertEquals(List.of(4L), pause.waits);
                    ctx.completeNow();
                })));
    }

    @Test
    void hostileTextIsEscapedAsWikiMarkupInV2AndKeptWithinTheFieldLimit(Vertx vertx, VertxTestContext ctx) {
        FakeJira jira = new FakeJira("Bearer dc-personal-access-token", 2);
        jira.start(vertx)
                .compose(j -> receiver(vertx, config(jira.url(), 2, new HttpAuth.Bearer("dc-personal-access-token"),
                        "Bug", "Done"), new RecordingPause()).send(List.of(Alerts.HOSTILE)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    JsonObject fields = jira.issues.get("OPS-1").fields;
                    String description = fields.getString("description");
                    assertTrue(description.length() <= JiraText.MAX_CHARS);
                    Hostile.assertNoneOf(description, "[~admin]", "{color:red}", "[click](https", "*bold*", "_it_");
                    assertTrue(description.contains("\\[\\~admin\\] \\{color:red\\}x\\{color\\}"), description);
                    assertTrue(description.contains(Alerts.HOSTILE_TAIL_TEXT.repeat(1_000)), "the text is kept");
                    // The summary is a plain field: shown as typed, cut to 255 characters.
                    assertTrue(fields.getString("summary").startsWith("[gpuwatch] <at id=all></at> <!channel>"));
                    ctx.completeNow();
                })));
    }
}
