package io.gpuwatch.notify.receiver.alertmanager;

import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Notification.Status;
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

import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
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
class AlertmanagerReceiverTest {
    private static final Instant NOW = Instant.parse("2026-12-03T09:05:00Z");
    private static final InstantSource CLOCK = InstantSource.fixed(NOW);
    private static final RandomGenerator NO_JITTER = () -> 0L;
    private static final Instant START = Instant.parse("2026-12-03T09:01:02Z");

    private static final Notification XID = new Notification("a1b2c3d4e5f60718", Status.FIRING,
            Map.of("alertname", "xid-fallen-off-bus", "severity", "page", "node", "node-01", "uuid", "GPU-1111"),
            Map.of("summary", "GPU-1111 on node-01 fell off the bus (XID 79)"),
            START, null, "http://gw:8080/api/v1/alerts/a1b2c3d4e5f60718");
    private static final Notification XID_RESOLVED = new Notification("a1b2c3d4e5f60718", Status.RESOLVED,
            XID.labels(), XID.annotations(), START, Instant.parse("2026-12-03T09:04:00Z"), XID.generatorUrl());
    private static final JsonObject XID_LABELS = new JsonObject().put("alertname", "xid-fallen-off-bus")
            .put("node", "node-01").put("severity", "page").put("uuid", "GPU-1111");

    private static AlertmanagerConfig config(String url, HttpAuth auth, int maxAttempts) {
        return new AlertmanagerConfig(url, auth, 900_000, 2000, maxAttempts, 4, 5000);
    }

    private static AlertmanagerReceiver receiver(Vertx vertx, AlertmanagerConfig config, RecordingPause pause) {
        return new AlertmanagerReceiver("team-am", config, WebClient.create(vertx), NO_JITTER, pause, CLOCK);
    }

    @Test
    void firingThenResolvedArePostableAlertsAlertmanagerAccepts(Vertx vertx, VertxTestContext ctx) {
        FakeAlertmanager am = new FakeAlertmanager();
        List<Boolean> activeAfterFiring = new ArrayList<>();
        am.start(vertx)
                .compose(a -> {
                    AlertmanagerReceiver r = receiver(vertx, config(am.url("/am/"), HttpAuth.NONE, 1), new RecordingPause());
                    return r.send(List.of(XID)).compose(v -> {
                        activeAfterFiring.add(am.active(XID_LABELS, NOW));
                        return r.send(List.of(XID_RESOLVED));
                    });
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(List.of(true), activeAfterFiring);
                    assertEquals(new JsonObject("""
                            {"labels": {"alertname": "xid-fallen-off-bus", "node": "node-01", "severity": "page",
                                        "uuid": "GPU-1111"},
                             "annotations": {"summary": "GPU-1111 on node-01 fell off the bus (XID 79)"},
                             "startsAt": "2026-12-03T09:01:02Z",
                             "endsAt": "2026-12-03T10:05:00Z",
                             "generatorURL": "http://gw:8080/api/v1/alerts/a1b2c3d4e5f60718"}"""),
                            am.posts.get(0).getJsonObject(0));
                    assertEquals("2026-12-03T09:04:00Z", am.posts.get(1).getJsonObject(0).getString("endsAt"));
                    assertFalse(am.active(XID_LABELS, NOW), "the resolve ends the same alert (same label set)");
                    assertEquals(1, am.alerts.size());
                    assertNull(am.authorizations.get(0));
                    ctx.completeNow();
                })));
    }

    @Test
    void aBatchIsOnePostAndLabelNamesAreMadeValid(Vertx vertx, VertxTestContext ctx) {
        FakeAlertmanager am = new FakeAlertmanager();
        Notification odd = new Notification("b2", Status.FIRING, Map.of("alertname", "odd", "gpu.uuid", "GPU-9",
                "9lives", "x", "empty", ""), Map.of(), START, null, "");
        am.start(vertx)
                .compose(a -> receiver(vertx, config(am.url(""), new HttpAuth.Bearer("am-token"), 1), new RecordingPause())
                        .send(List.of(XID, odd)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(1, am.requests);
                    assertEquals(2, am.posts.get(0).size());
                    JsonObject labels = am.posts.get(0).getJsonObject(1).getJsonObject("labels");
                    assertEquals(new JsonObject().put("_9lives", "x").put("alertname", "odd").put("gpu_uuid", "GPU-9"),
                            labels);
                    assertFalse(am.posts.get(0).getJsonObject(1).containsKey("generatorURL"));
                    assertEquals("Bearer am-token", am.authorizations.get(0));
                    ctx.completeNow();
                })));
    }

    @Test
    void validationErrorIsNotRetriedAndQuotesAlertmanager(Vertx vertx, VertxTestContext ctx) {
        FakeAlertmanager am = new FakeAlertmanager().then(req -> req.response().setStatusCode(400)
                .end("\"start time must be before end time\""));
        RecordingPause pause = new RecordingPause();
        am.start(vertx)
                .compose(a -> receiver(vertx, config(am.url(""), HttpAuth.NONE, 4), pause).send(List.of(XID)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertFalse(failure.retryable());
                    assertEquals(1, am.requests);
                    assertEquals(List.of(), pause.waits);
                    assertTrue(failure.getMessage().contains("Alertmanager rejected the alerts (HTTP 400"),
                            failure.getMessage());
                    assertTrue(failure.getMessage().contains("start time must be before end time"), failure.getMessage());
                    ctx.completeNow();
                })));
    }

    @Test
    void outageThenRecoveryIsDeliveredOnce(Vertx vertx, VertxTestContext ctx) {
        FakeAlertmanager am = new FakeAlertmanager()
                .then(req -> req.response().setStatusCode(500).end("\"cluster not ready\""))
                .then(req -> req.response().setStatusCode(503).putHeader("Retry-After", "2").end());
        RecordingPause pause = new RecordingPause();
        am.start(vertx)
                .compose(a -> receiver(vertx, config(am.url(""), HttpAuth.NONE, 4), pause).send(List.of(XID)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(3, am.requests);
                    assertEquals(List.of(4L, 2000L), pause.waits);
                    assertEquals(1, am.posts.size());
                    ctx.completeNow();
                })));
    }

    @Test
    void errorsNeverShowTheCredentials(Vertx vertx, VertxTestContext ctx) {
        FakeAlertmanager am = new FakeAlertmanager().then(req -> req.response().setStatusCode(401)
                .end("bad token " + req.getHeader("Authorization")));
        am.start(vertx)
                .compose(a -> receiver(vertx, config(am.url(""), new HttpAuth.Basic("gw", "s3cret-pass"), 3),
                        new RecordingPause()).send(List.of(XID)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertFalse(failure.retryable());
                    assertTrue(failure.getMessage().contains("HTTP 401"), failure.getMessage());
                    assertFalse(failure.getMessage().contains("s3cret-pass"), failure.getMessage());
                    assertFalse(failure.getMessage().contains("Z3c6czNjcmV0LXBhc3M="), failure.getMessage());
                    ctx.completeNow();
                })));
    }
}
