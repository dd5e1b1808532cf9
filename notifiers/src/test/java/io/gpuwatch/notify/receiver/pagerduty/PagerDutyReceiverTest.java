package io.gpuwatch.notify.receiver.pagerduty;

import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Notification.Status;
import io.gpuwatch.notify.secret.Secret;
import io.gpuwatch.notify.retry.RecordingPause;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(VertxExtension.class)
@Timeout(value = 10, timeUnit = TimeUnit.SECONDS)
class PagerDutyReceiverTest {
    private static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-12-03T09:05:00Z"));
    private static final RandomGenerator NO_JITTER = () -> 0L;
    private static final Instant START = Instant.parse("2026-12-03T09:01:02Z");

    private static final Notification XID = new Notification("a1b2c3d4e5f60718", Status.FIRING,
            Map.of("alertname", "xid-fallen-off-bus", "severity", "page", "node", "node-01", "uuid", "GPU-1111"),
            Map.of("summary", "GPU-1111 on node-01 fell off the bus (XID 79)", "runbook", "https://runbooks/xid79"),
            START, null, "http://gw:8080/api/v1/alerts/a1b2c3d4e5f60718");
    private static final Notification XID_RESOLVED = new Notification("a1b2c3d4e5f60718", Status.RESOLVED,
            XID.labels(), XID.annotations(), START, Instant.parse("2026-12-03T09:04:00Z"), XID.generatorUrl());
    private static final Notification HOT = new Notification("7777777777777777", Status.FIRING,
            Map.of("alertname", "gpu-hot", "severity", "ticket", "node", "node-02"), Map.of(), START, null, "");

    private static PagerDutyConfig config(String url, String key, int maxAttempts, String summary) {
        return new PagerDutyConfig(url, Secret.of(key, "env PD_KEY"), summary, PagerDutyConfig.DEFAULT_SOURCE,
                PagerDutyConfig.DEFAULT_SEVERITIES, 2000, maxAttempts, 4, 5000);
    }

    private static PagerDutyReceiver receiver(Vertx vertx, PagerDutyConfig config, RecordingPause pause) {
        return new PagerDutyReceiver("pd-oncall", config, WebClient.create(vertx), NO_JITTER, pause, CLOCK);
    }

    private static PagerDutyReceiver receiver(Vertx vertx, FakePagerDuty pd, RecordingPause pause) {
        return receiver(vertx, config(pd.url(), FakePagerDuty.ROUTING_KEY, 4, PagerDutyConfig.DEFAULT_SUMMARY), pause);
    }

    @Test
    void firingTriggersAndResolvedResolvesTheSameAlert(Vertx vertx, VertxTestContext ctx) {
        FakePagerDuty pd = new FakePagerDuty();
        pd.start(vertx)
                .compose(p -> {
                    PagerDutyReceiver r = receiver(vertx, pd, new RecordingPause());
                    return r.send(List.of(XID)).compose(v -> r.send(List.of(XID_RESOLVED)));
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(2, pd.events.size());
                    JsonObject trigger = pd.events.get(0);
                    assertEquals("trigger", trigger.getString("event_action"));
                    assertEquals("a1b2c3d4e5f60718", trigger.getString("dedup_key"));
                    assertEquals(FakePagerDuty.ROUTING_KEY, trigger.getString("routing_key"));
                    JsonObject payload = trigger.getJsonObject("payload");
                    assertEquals("GPU-1111 on node-01 fell off the bus (XID 79)", payload.getString("summary"));
                    assertEquals("node-01", payload.getString("source"));
                    assertEquals("critical", payload.getString("severity"), "severity page pages as critical");
                    assertEquals("2026-12-03T09:01:02Z", payload.getString("timestamp"));
                    assertEquals("xid-fallen-off-bus", payload.getString("class"));
                    assertEquals("GPU-1111", payload.getString("component"));
                    assertEquals("page", payload.getJsonObject("custom_details").getJsonObject("labels")
                            .getString("severity"));
                    assertEquals("http://gw:8080/api/v1/alerts/a1b2c3d4e5f60718", trigger.getString("client_url"));
                    assertEquals("https://runbooks/xid79", trigger.getJsonArray("links").getJsonObject(1).getString("href"));

                    JsonObject resolve = pd.events.get(1);
                    assertEquals(new JsonObject().put("routing_key", FakePagerDuty.ROUTING_KEY)
                            .put("event_action", "resolve").put("dedup_key", "a1b2c3d4e5f60718"), resolve);
                    assertEquals(1, pd.pages);
                    assertEquals("resolved", pd.alerts.get("a1b2c3d4e5f60718").state);
                    ctx.completeNow();
                })));
    }

    @Test
    void aRepeatedTriggerAttachesToTheOpenAlertInsteadOfPagingAgain(Vertx vertx, VertxTestContext ctx) {
        FakePagerDuty pd = new FakePagerDuty();
        pd.start(vertx)
                .compose(p -> {
                    PagerDutyReceiver r = receiver(vertx, pd, new RecordingPause());
                    return r.send(List.of(XID)).compose(v -> r.send(List.of(XID)));
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(2, pd.events.size());
                    assertEquals(1, pd.pages);
                    ctx.completeNow();
                })));
    }

    @Test
    void throttledThenAcceptedIsDeliveredOnce(Vertx vertx, VertxTestContext ctx) {
        FakePagerDuty pd = new FakePagerDuty()
                .then(req -> req.response().setStatusCode(429).putHeader("Retry-After", "2").end());
        RecordingPause pause = new RecordingPause();
        pd.start(vertx)
                .compose(p -> receiver(vertx, pd, pause).send(List.of(XID)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(2, pd.requests);
                    assertEquals(1, pd.pages);
                    assertEquals(List.of(2000L), pause.waits);
                    ctx.completeNow();
                })));
    }

    @Test
    void serverErrorsBackOffThenGiveUpAsRetryable(Vertx vertx, VertxTestContext ctx) {
        FakePagerDuty pd = new FakePagerDuty();
        for (int i = 0; i < 4; i++) {
            pd.then(req -> req.response().setStatusCode(502).end("bad gateway"));
        }
        RecordingPause pause = new RecordingPause();
        pd.start(vertx)
                .compose(p -> receiver(vertx, pd, pause).send(List.of(XID)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertTrue(failure.retryable());
                    assertEquals(4, failure.attempts());
                    assertEquals(List.of(4L, 8L, 16L), pause.waits);
                    assertTrue(failure.getMessage().contains("HTTP 502"), failure.getMessage());
                    ctx.completeNow();
                })));
    }

    @Test
    void invalidEventIsNotRetriedAndReportsPagerDutysErrorsWithoutTheKey(Vertx vertx, VertxTestContext ctx) {
        FakePagerDuty pd = new FakePagerDuty();
        String shortKey = "too-short-routing-key";
        RecordingPause pause = new RecordingPause();
        pd.start(vertx)
                .compose(p -> receiver(vertx, config(pd.url(), shortKey, 4, PagerDutyConfig.DEFAULT_SUMMARY), pause)
                        .send(List.of(XID)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertFalse(failure.retryable());
                    assertEquals(1, failure.attempts());
                    assertEquals(1, pd.requests);
                    assertEquals(List.of(), pause.waits);
                    String message = failure.getMessage();
                    assertTrue(message.contains("HTTP 400"), message);
                    assertTrue(message.contains("Length of 'routing_key' is incorrect"), message);
                    assertFalse(message.contains(shortKey), message);
                    ctx.completeNow();
                })));
    }

    @Test
    void longSummaryIsCutToPagerDutysLimitInsteadOfRejected(Vertx vertx, VertxTestContext ctx) {
        FakePagerDuty pd = new FakePagerDuty();
        Notification wordy = new Notification("b1", Status.FIRING, Map.of("alertname", "wordy", "severity", "warning"),
                Map.of("summary", "x".repeat(3000), "description", "line\n".repeat(200_000)), START, null, "");
        pd.start(vertx)
                .compose(p -> receiver(vertx, pd, new RecordingPause()).send(List.of(wordy)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    JsonObject payload = pd.events.get(0).getJsonObject("payload");
                    String summary = payload.getString("summary");
                    assertEquals(1024, summary.length());
                    assertTrue(summary.endsWith("…"));
                    assertEquals("warning", payload.getString("severity"));
                    assertTrue(payload.getJsonObject("custom_details").getString("note").contains("512 KB"));
                    assertNull(payload.getJsonObject("custom_details").getJsonObject("annotations"));
                    ctx.completeNow();
                })));
    }

    @Test
    void summaryTemplateAndSeverityFallbackApply(Vertx vertx, VertxTestContext ctx) {
        FakePagerDuty pd = new FakePagerDuty();
        Notification odd = new Notification("c1", Status.FIRING, Map.of("alertname", "odd", "severity", "weird"),
                Map.of(), START, null, "");
        pd.start(vertx)
                .compose(p -> receiver(vertx, config(pd.url(), FakePagerDuty.ROUTING_KEY, 1,
                        "[{{labels.severity}}] {{labels.alertname}} on {{labels.node|\"?\"}}"), new RecordingPause())
                        .send(List.of(odd)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    JsonObject payload = pd.events.get(0).getJsonObject("payload");
                    assertEquals("[weird] odd on ?", payload.getString("summary"));
                    assertEquals("error", payload.getString("severity"));
                    assertEquals("gpuwatch", payload.getString("source"));
                    ctx.completeNow();
                })));
    }

    @Test
    void acknowledgeUsesTheFingerprintAsDedupKey(Vertx vertx, VertxTestContext ctx) {
        FakePagerDuty pd = new FakePagerDuty();
        pd.start(vertx)
                .compose(p -> {
                    PagerDutyReceiver r = receiver(vertx, pd, new RecordingPause());
                    return r.send(List.of(XID)).compose(v -> r.acknowledge(XID.fingerprint()));
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals("acknowledge", pd.events.get(1).getString("event_action"));
                    assertEquals("acknowledged", pd.alerts.get(XID.fingerprint()).state);
                    ctx.completeNow();
                })));
    }

    @Test
    void oneRejectedAlertDoesNotStopTheRestOfTheBatch(Vertx vertx, VertxTestContext ctx) {
        FakePagerDuty pd = new FakePagerDuty().then(req -> req.response().setStatusCode(400)
                .end("{\"status\":\"invalid event\",\"message\":\"Event object is invalid\",\"errors\":[\"nope\"]}"));
        pd.start(vertx)
                .compose(p -> receiver(vertx, pd, new RecordingPause()).send(List.of(XID, HOT)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertFalse(failure.retryable());
                    assertTrue(failure.getMessage().contains("1 of 2 alerts not delivered"), failure.getMessage());
                    assertEquals(1, pd.pages);
                    assertTrue(pd.alerts.containsKey("7777777777777777"));
                    assertEquals("warning", pd.events.get(0).getJsonObject("payload").getString("severity"));
                    ctx.completeNow();
                })));
    }

    @Test
    void emptyBatchSendsNothing(Vertx vertx, VertxTestContext ctx) {
        FakePagerDuty pd = new FakePagerDuty();
        pd.start(vertx)
                .compose(p -> receiver(vertx, pd, new RecordingPause()).send(List.of()))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(0, pd.requests);
                    ctx.completeNow();
                })));
    }
}
