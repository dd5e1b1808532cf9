package io.gpuwatch.notify.receiver.opsgenie;

import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Notification.Status;
import io.gpuwatch.notify.secret.Secret;
import io.gpuwatch.notify.retry.RecordingPause;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
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
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(VertxExtension.class)
@Timeout(value = 10, timeUnit = TimeUnit.SECONDS)
class OpsgenieReceiverTest {
    private static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-12-03T09:05:00Z"));
    private static final RandomGenerator NO_JITTER = () -> 0L;
    private static final Instant START = Instant.parse("2026-12-03T09:01:02Z");

    private static final Notification XID = new Notification("a1b2c3d4e5f60718", Status.FIRING,
            Map.of("alertname", "xid-fallen-off-bus", "severity", "page", "node", "node-01", "uuid", "GPU-1111"),
            Map.of("summary", "GPU-1111 on node-01 fell off the bus (XID 79)", "runbook", "https://runbooks/xid79"),
            START, null, "http://gw:8080/api/v1/alerts/a1b2c3d4e5f60718");
    private static final Notification XID_RESOLVED = new Notification("a1b2c3d4e5f60718", Status.RESOLVED,
            XID.labels(), XID.annotations(), START, Instant.parse("2026-12-03T09:04:00Z"), XID.generatorUrl());

    private static OpsgenieConfig config(String url, String key) {
        return new OpsgenieConfig(url, Secret.of(key, "env OG_KEY"), OpsgenieConfig.DEFAULT_MESSAGE,
                OpsgenieConfig.DEFAULT_DESCRIPTION, List.of(new OpsgenieConfig.Responder("team", "gpu-oncall"),
                new OpsgenieConfig.Responder("user", "ana@example.com")), List.of("gpuwatch"),
                OpsgenieConfig.DEFAULT_PRIORITIES, 2000, 4, 4, 5000);
    }

    private static OpsgenieReceiver receiver(Vertx vertx, OpsgenieConfig config, RecordingPause pause) {
        return new OpsgenieReceiver("og-oncall", config, WebClient.create(vertx), NO_JITTER, pause, CLOCK);
    }

    private static OpsgenieReceiver receiver(Vertx vertx, FakeOpsgenie og, RecordingPause pause) {
        return receiver(vertx, config(og.url(), FakeOpsgenie.API_KEY), pause);
    }

    @Test
    void firingCreatesResolvedClosesByAliasAndALaterFiringOpensANewAlert(Vertx vertx, VertxTestContext ctx) {
        FakeOpsgenie og = new FakeOpsgenie();
        og.start(vertx)
                .compose(o -> {
                    OpsgenieReceiver r = receiver(vertx, og, new RecordingPause());
                    return r.send(List.of(XID)).compose(v -> r.send(List.of(XID_RESOLVED)))
                            .compose(v -> r.send(List.of(XID)));
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(List.of("/v2/alerts", "/v2/alerts/a1b2c3d4e5f60718/close?identifierType=alias",
                            "/v2/alerts"), og.uris);
                    assertEquals(2, og.alerts.size());
                    FakeOpsgenie.Alert first = og.alerts.get(0);
                    assertFalse(first.open);
                    assertEquals("Resolved in gpuwatch at 2026-12-03T09:04:00Z", first.closeNote);
                    assertTrue(og.alerts.get(1).open);
                    JsonObject created = first.created;
                    assertEquals("GPU-1111 on node-01 fell off the bus (XID 79)", created.getString("message"));
                    assertEquals("a1b2c3d4e5f60718", created.getString("alias"));
                    assertEquals("P1", created.getString("priority"));
                    assertEquals("GPU-1111", created.getString("entity"));
                    assertEquals("gpuwatch", created.getString("source"));
                    assertEquals(new JsonArray().add("gpuwatch").add("xid-fallen-off-bus").add("page"),
                            created.getJsonArray("tags"));
                    assertEquals(new JsonArray()
                            .add(new JsonObject().put("type", "team").put("name", "gpu-oncall"))
                            .add(new JsonObject().put("type", "user").put("username", "ana@example.com")),
                            created.getJsonArray("responders"));
                    assertEquals("node-01", created.getJsonObject("details").getString("node"));
                    String description = created.getString("description");
                    assertTrue(description.startsWith("GPU-1111 on node-01 fell off the bus (XID 79)\n\nLabels: "
                            + "alertname=xid-fallen-off-bus, node=node-01, severity=page, uuid=GPU-1111"), description);
                    assertTrue(description.contains("Runbook: https://runbooks/xid79"), description);
                    ctx.completeNow();
                })));
    }

    @Test
    void aRepeatedFiringOnlyBumpsTheOpenAlertsCount(Vertx vertx, VertxTestContext ctx) {
        FakeOpsgenie og = new FakeOpsgenie();
        og.start(vertx)
                .compose(o -> {
                    OpsgenieReceiver r = receiver(vertx, og, new RecordingPause());
                    return r.send(List.of(XID)).compose(v -> r.send(List.of(XID)));
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(1, og.alerts.size());
                    assertEquals(2, og.alerts.get(0).count);
                    ctx.completeNow();
                })));
    }

    @Test
    void longTextIsFittedToOpsgeniesLimits(Vertx vertx, VertxTestContext ctx) {
        FakeOpsgenie og = new FakeOpsgenie();
        Notification wordy = new Notification("b1", Status.FIRING, Map.of("alertname", "wordy", "severity", "notice"),
                Map.of("summary", "s".repeat(500), "description", "a line of detail\n".repeat(5000)), START, null, "");
        og.start(vertx)
                .compose(o -> receiver(vertx, og, new RecordingPause()).send(List.of(wordy)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    JsonObject created = og.alerts.get(0).created;
                    assertEquals(130, created.getString("message").length());
                    assertTrue(created.getString("message").endsWith("…"));
                    String description = created.getString("description");
                    assertTrue(description.length() <= 15_000);
                    assertTrue(description.matches("(?s).*\n\\+\\d+ more"), description.substring(14_900));
                    assertEquals("P5", created.getString("priority"));
                    ctx.completeNow();
                })));
    }

    @Test
    void unprocessableRequestIsNotRetriedAndSaysWhy(Vertx vertx, VertxTestContext ctx) {
        FakeOpsgenie og = new FakeOpsgenie().then(req -> req.response().setStatusCode(422)
                .end("{\"message\":\"Request body is not processable. Please check the errors.\","
                        + "\"errors\":{\"responders\":\"Team [gpu-oncall] does not exist\"},\"took\":0.0,\"requestId\":\"r1\"}"));
        RecordingPause pause = new RecordingPause();
        og.start(vertx)
                .compose(o -> receiver(vertx, og, pause).send(List.of(XID)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertFalse(failure.retryable());
                    assertEquals(1, og.requests);
                    assertEquals(List.of(), pause.waits);
                    assertTrue(failure.getMessage().contains("HTTP 422"), failure.getMessage());
                    assertTrue(failure.getMessage().contains("responders: Team [gpu-oncall] does not exist"),
                            failure.getMessage());
                    ctx.completeNow();
                })));
    }

    @Test
    void wrongKeyFailsAtOnceWithoutShowingTheKey(Vertx vertx, VertxTestContext ctx) {
        FakeOpsgenie og = new FakeOpsgenie();
        String wrong = "00000000-wrong-key-0000";
        og.start(vertx)
                .compose(o -> receiver(vertx, config(og.url(), wrong), new RecordingPause()).send(List.of(XID)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertFalse(failure.retryable());
                    assertTrue(failure.getMessage().contains("refused the API key (HTTP 401"), failure.getMessage());
                    assertFalse(failure.getMessage().contains(wrong), failure.getMessage());
                    assertEquals(0, og.alerts.size());
                    ctx.completeNow();
                })));
    }

    @Test
    void throttledThenAcceptedIsCreatedOnce(Vertx vertx, VertxTestContext ctx) {
        FakeOpsgenie og = new FakeOpsgenie().then(req -> req.response().setStatusCode(429)
                .putHeader("Retry-After", "1").end("{\"message\":\"Rate limit exceeded\"}"));
        RecordingPause pause = new RecordingPause();
        og.start(vertx)
                .compose(o -> receiver(vertx, og, pause).send(List.of(XID)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(2, og.requests);
                    assertEquals(1, og.alerts.size());
                    assertEquals(List.of(1000L), pause.waits);
                    ctx.completeNow();
                })));
    }

    @Test
    void closingAnAliasOpsgenieDoesNotKnowIsDone(Vertx vertx, VertxTestContext ctx) {
        FakeOpsgenie og = new FakeOpsgenie().then(req -> req.response().setStatusCode(404)
                .end("{\"message\":\"Alert with id [a1b2c3d4e5f60718] does not exist\"}"));
        og.start(vertx)
                .compose(o -> receiver(vertx, og, new RecordingPause()).send(List.of(XID_RESOLVED)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(1, og.requests);
                    ctx.completeNow();
                })));
    }

    @Test
    void serverErrorsAreRetriedUntilAccepted(Vertx vertx, VertxTestContext ctx) {
        FakeOpsgenie og = new FakeOpsgenie()
                .then(req -> req.response().setStatusCode(503).end())
                .then(req -> req.response().setStatusCode(500).end());
        RecordingPause pause = new RecordingPause();
        og.start(vertx)
                .compose(o -> receiver(vertx, og, pause).send(List.of(XID)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(3, og.requests);
                    assertEquals(List.of(4L, 8L), pause.waits);
                    assertEquals(1, og.alerts.size());
                    ctx.completeNow();
                })));
    }
}
