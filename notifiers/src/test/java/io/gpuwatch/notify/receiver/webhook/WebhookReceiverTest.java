package io.gpuwatch.notify.receiver.webhook;

import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Notification.Status;
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
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
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
class WebhookReceiverTest {
    private static final Instant NOW = Instant.parse("2026-12-03T09:05:00Z");
    private static final InstantSource CLOCK = InstantSource.fixed(NOW);
    /** No jitter: every wait is the bare exponential step, so schedules can be asserted exactly. */
    private static final RandomGenerator NO_JITTER = () -> 0L;
    private static final String SECRET_PATH = "/hooks/T0001/B0002/SECRETPATH";
    private static final String SECRET_QUERY = "token=SECRETQUERY";

    private static final Notification XID_1 = new Notification("a1b2c3d4e5f60718", Status.FIRING,
            Map.of("alertname", "xid-fallen-off-bus", "severity", "page", "node", "node-01", "uuid", "GPU-1111"),
            Map.of("summary", "GPU-1111 on node-01 fell off the bus (XID 79)", "runbook", "https://runbooks/xid79"),
            Instant.parse("2026-12-03T09:01:02Z"), null, "http://gw:8080/api/v1/alerts/a1b2c3d4e5f60718");
    private static final Notification XID_2 = new Notification("0f1e2d3c4b5a6978", Status.FIRING,
            Map.of("alertname", "xid-fallen-off-bus", "severity", "page", "node", "node-01", "uuid", "GPU-2222"),
            Map.of("summary", "GPU-2222 on node-01 fell off the bus (XID 79)", "runbook", "https://runbooks/xid79"),
            Instant.parse("2026-12-03T09:01:02.120Z"), null, "http://gw:8080/api/v1/alerts/0f1e2d3c4b5a6978");
    private static final Notification HOT_RESOLVED = new Notification("7777777777777777", Status.RESOLVED,
            Map.of("alertname", "gpu-hot", "severity", "ticket", "node", "node-02", "uuid", "GPU-3333"),
            Map.of("summary", "GPU-3333 at 91 °C"),
            Instant.parse("2026-12-03T09:01:02Z"), Instant.parse("2026-12-03T09:03:12Z"), "");

    private static WebhookConfig config(String url, int maxAttempts) {
        return new WebhookConfig(url, HttpAuth.NONE, 2000, maxAttempts, 4, 40, 0);
    }

    private static WebhookReceiver receiver(Vertx vertx, WebhookConfig config, RecordingPause pause) {
        return new WebhookReceiver("ops-webhook", config, "http://gw:8080", WebClient.create(vertx), NO_JITTER, pause,
                CLOCK);
    }

    @Test
    void firingBatchIsOneAlertmanagerV4Payload(Vertx vertx, VertxTestContext ctx) {
        Hook hook = Hook.always(200);
        hook.start(vertx)
                .compose(h -> receiver(vertx, config(h.url("/alerts"), 1), new RecordingPause())
                        .send(List.of(XID_1, XID_2)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(1, hook.received.size());
                    Hook.Received got = hook.received.get(0);
                    assertEquals("/alerts", got.uri());
                    assertEquals("application/json", got.headers().get("Content-Type"));
                    assertNull(got.headers().get("Authorization"));
                    assertNull(got.headers().get("Idempotency-Key"), "no key without a delivery to name");
                    assertEquals(new JsonObject("""
                            {
                              "receiver": "ops-webhook",
                              "status": "firing",
                              "alerts": [
                                {
                                  "status": "firing",
                                  "labels": {"alertname": "xid-fallen-off-bus", "node": "node-01",
                                             "severity": "page", "uuid": "GPU-1111"},
                                  "annotations": {"runbook": "https://runbooks/xid79",
                                                  "summary": "GPU-1111 on node-01 fell off the bus (XID 79)"},
                                  "startsAt": "2026-12-03T09:01:02Z",
                                  "endsAt": "0001-01-01T00:00:00Z",
                                  "generatorURL": "http://gw:8080/api/v1/alerts/a1b2c3d4e5f60718",
                                  "fingerprint": "a1b2c3d4e5f60718"
                                },
                                {
                                  "status": "firing",
                                  "labels": {"alertname": "xid-fallen-off-bus", "node": "node-01",
                                             "severity": "page", "uuid": "GPU-2222"},
                                  "annotations": {"runbook": "https://runbooks/xid79",
                                                  "summary": "GPU-2222 on node-01 fell off the bus (XID 79)"},
                                  "startsAt": "2026-12-03T09:01:02.12Z",
                                  "endsAt": "0001-01-01T00:00:00Z",
                                  "generatorURL": "http://gw:8080/api/v1/alerts/0f1e2d3c4b5a6978",
                                  "fingerprint": "0f1e2d3c4b5a6978"
                                }
                              ],
                              "groupLabels": {"alertname": "xid-fallen-off-bus", "node": "node-01", "severity": "page"},
                              "commonLabels": {"alertname": "xid-fallen-off-bus", "node": "node-01", "severity": "page"},
                              "commonAnnotations": {"runbook": "https://runbooks/xid79"},
                              "externalURL": "http://gw:8080",
                              "version": "4",
                              "groupKey": "{}:{alertname=\\"xid-fallen-off-bus\\", node=\\"node-01\\", severity=\\"page\\"}",
                              "truncatedAlerts": 0
                            }
                            """), got.json());
                    ctx.completeNow();
                })));
    }

    @Test
    void theDeliveryKeyGoesOutAsIdempotencyKeyOnEveryAttempt(Vertx vertx, VertxTestContext ctx) {
        Hook hook = Hook.statuses(503, 200);
        hook.start(vertx)
                .compose(h -> receiver(vertx, config(h.url("/alerts"), 3), new RecordingPause())
                        .send(List.of(XID_1), "k-1f3c"))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(2, hook.received.size());
                    assertEquals("k-1f3c", hook.received.get(0).headers().get("Idempotency-Key"));
                    assertEquals("k-1f3c", hook.received.get(1).headers().get("Idempotency-Key"));
                    ctx.completeNow();
                })));
    }

    @Test
    void resolvedAlertCarriesItsEndTime(Vertx vertx, VertxTestContext ctx) {
        Hook hook = Hook.always(200);
        hook.start(vertx)
                .compose(h -> receiver(vertx, config(h.url("/alerts"), 1), new RecordingPause())
                        .send(List.of(HOT_RESOLVED)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    JsonObject body = hook.received.get(0).json();
                    assertEquals("resolved", body.getString("status"));
                    JsonObject alert = body.getJsonArray("alerts").getJsonObject(0);
                    assertEquals("resolved", alert.getString("status"));
                    assertEquals("2026-12-03T09:01:02Z", alert.getString("startsAt"));
                    assertEquals("2026-12-03T09:03:12Z", alert.getString("endsAt"));
                    assertEquals("", alert.getString("generatorURL"));
                    assertEquals("{}:{alertname=\"gpu-hot\", node=\"node-02\", severity=\"ticket\", uuid=\"GPU-3333\"}",
                            body.getString("groupKey"));
                    ctx.completeNow();
                })));
    }

    @Test
    void groupFiresWhileAnyOfItsAlertsFires(Vertx vertx, VertxTestContext ctx) {
        Hook hook = Hook.always(200);
        hook.start(vertx)
                .compose(h -> receiver(vertx, config(h.url("/alerts"), 1), new RecordingPause())
                        .send(List.of(HOT_RESOLVED, XID_1)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    JsonObject body = hook.received.get(0).json();
                    assertEquals("firing", body.getString("status"));
                    assertEquals(new JsonObject(), body.getJsonObject("commonAnnotations"));
                    assertEquals(new JsonObject(), body.getJsonObject("commonLabels"), "the two alerts share no label");
                    assertEquals("{}:{}", body.getString("groupKey"));
                    ctx.completeNow();
                })));
    }

    @Test
    void maxAlertsCutsThePayloadAndCountsTheRest(Vertx vertx, VertxTestContext ctx) {
        Hook hook = Hook.always(200);
        hook.start(vertx)
                .compose(h -> receiver(vertx, new WebhookConfig(h.url("/alerts"), HttpAuth.NONE, 2000, 1, 4, 40, 1),
                        new RecordingPause()).send(List.of(XID_1, XID_2, HOT_RESOLVED)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    JsonObject body = hook.received.get(0).json();
                    assertEquals(1, body.getJsonArray("alerts").size());
                    assertEquals("a1b2c3d4e5f60718", body.getJsonArray("alerts").getJsonObject(0).getString("fingerprint"));
                    assertEquals(2, body.getInteger("truncatedAlerts"));
                    ctx.completeNow();
                })));
    }

    @Test
    void sendsBearerToken(Vertx vertx, VertxTestContext ctx) {
        Hook hook = Hook.always(200);
        hook.start(vertx)
                .compose(h -> receiver(vertx, new WebhookConfig(h.url("/alerts"), new HttpAuth.Bearer("s3cr3t-token"),
                        2000, 1, 4, 40, 0), new RecordingPause()).send(List.of(XID_1)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals("Bearer s3cr3t-token", hook.received.get(0).headers().get("Authorization"));
                    ctx.completeNow();
                })));
    }

    @Test
    void sendsBasicAuth(Vertx vertx, VertxTestContext ctx) {
        Hook hook = Hook.always(200);
        String expected = "Basic " + Base64.getEncoder().encodeToString("gpuwatch:pa55:word".getBytes(StandardCharsets.UTF_8));
        hook.start(vertx)
                .compose(h -> receiver(vertx, new WebhookConfig(h.url("/alerts"), new HttpAuth.Basic("gpuwatch", "pa55:word"),
                        2000, 1, 4, 40, 0), new RecordingPause()).send(List.of(XID_1)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(expected, hook.received.get(0).headers().get("Authorization"));
                    ctx.completeNow();
                })));
    }

    @Test
    void retriesServerErrorsUntilDeliveredOnce(Vertx vertx, VertxTestContext ctx) {
        Hook hook = Hook.statuses(500, 503, 200);
        RecordingPause pause = new RecordingPause();
        hook.start(vertx)
                .compose(h -> receiver(vertx, config(h.url("/alerts"), 6), pause).send(List.of(XID_1)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(3, hook.received.size());
                    assertEquals(List.of(4L, 8L), pause.waits);
                    ctx.completeNow();
                })));
    }

    @Test
    void backOffDoublesUpToItsCapThenGivesUp(Vertx vertx, VertxTestContext ctx) {
        Hook hook = Hook.always(503);
        RecordingPause pause = new RecordingPause();
        hook.start(vertx)
                .compose(h -> receiver(vertx, new WebhookConfig(h.url("/alerts"), HttpAuth.NONE, 2000, 5, 4, 10, 0), pause)
                        .send(List.of(XID_1)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertEquals(5, failure.attempts());
                    assertTrue(failure.retryable());
                    assertEquals("ops-webhook", failure.receiver());
                    assertEquals(5, hook.received.size());
                    assertEquals(List.of(4L, 8L, 10L, 10L), pause.waits);
                    ctx.completeNow();
                })));
    }

    @Test
    void honoursRetryAfterSecondsOn429(Vertx vertx, VertxTestContext ctx) {
        Hook hook = new Hook((n, req) -> {
            if (n == 0) {
                req.response().setStatusCode(429).putHeader("Retry-After", "1").end("slow down");
            } else {
                req.response().setStatusCode(200).end();
            }
        });
        RecordingPause pause = new RecordingPause();
        hook.start(vertx)
                .compose(h -> receiver(vertx, new WebhookConfig(h.url("/alerts"), HttpAuth.NONE, 2000, 3, 4, 5000, 0), pause)
                        .send(List.of(XID_1)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(2, hook.received.size());
                    assertEquals(List.of(1000L), pause.waits);
                    ctx.completeNow();
                })));
    }

    @Test
    void honoursRetryAfterDateAgainstTheInjectedClock(Vertx vertx, VertxTestContext ctx) {
        String inSevenSeconds = DateTimeFormatter.RFC_1123_DATE_TIME.format(NOW.plusSeconds(7).atOffset(ZoneOffset.UTC));
        Hook hook = new Hook((n, req) -> req.response().setStatusCode(n == 0 ? 503 : 200)
                .putHeader("Retry-After", inSevenSeconds).end());
        RecordingPause pause = new RecordingPause();
        hook.start(vertx)
                .compose(h -> receiver(vertx, new WebhookConfig(h.url("/alerts"), HttpAuth.NONE, 2000, 3, 4, 10_000, 0), pause)
                        .send(List.of(XID_1)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(List.of(7000L), pause.waits);
                    ctx.completeNow();
                })));
    }

    @Test
    void retryAfterBeyondMaxBackoffGivesUpAsRetryable(Vertx vertx, VertxTestContext ctx) {
        Hook hook = new Hook((n, req) -> req.response().setStatusCode(429).putHeader("Retry-After", "3600").end());
        RecordingPause pause = new RecordingPause();
        hook.start(vertx)
                .compose(h -> receiver(vertx, config(h.url("/alerts"), 6), pause).send(List.of(XID_1)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertEquals(1, failure.attempts());
                    assertTrue(failure.retryable());
                    assertTrue(failure.getMessage().contains("HTTP 429"), failure.getMessage());
                    assertTrue(failure.getMessage().contains("3600 s"), failure.getMessage());
                    assertEquals(List.of(), pause.waits);
                    assertEquals(1, hook.received.size());
                    ctx.completeNow();
                })));
    }

    @Test
    void clientErrorFailsAtOnceWithStatusAndBodyExcerpt(Vertx vertx, VertxTestContext ctx) {
        Hook hook = new Hook((n, req) -> req.response().setStatusCode(400)
                .end("invalid_payload\nfor " + req.uri()));
        RecordingPause pause = new RecordingPause();
        hook.start(vertx)
                .compose(h -> receiver(vertx, config(h.url(SECRET_PATH + "?" + SECRET_QUERY), 6), pause)
                        .send(List.of(XID_1)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertEquals(1, failure.attempts());
                    assertFalse(failure.retryable());
                    assertEquals(1, hook.received.size());
                    assertEquals(List.of(), pause.waits);
                    String message = failure.getMessage();
                    assertTrue(message.contains("HTTP 400"), message);
                    assertTrue(message.contains("invalid_payload for"), message);
                    assertNoSecret(message);
                    ctx.completeNow();
                })));
    }

    @Test
    void silentServerTimesOutAndIsRetried(Vertx vertx, VertxTestContext ctx) {
        Hook hook = new Hook((n, req) -> { });
        RecordingPause pause = new RecordingPause();
        hook.start(vertx)
                .compose(h -> receiver(vertx, new WebhookConfig(h.url(SECRET_PATH + "?" + SECRET_QUERY), HttpAuth.NONE,
                        150, 2, 4, 40, 0), pause).send(List.of(XID_1)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertEquals(2, failure.attempts());
                    assertTrue(failure.retryable());
                    assertEquals(2, hook.received.size());
                    assertTrue(failure.getMessage().contains("no response"), failure.getMessage());
                    assertTrue(failure.getMessage().contains("within 150 ms"), failure.getMessage());
                    assertNoSecret(failure.getMessage());
                    ctx.completeNow();
                })));
    }

    @Test
    void tricklingServerIsCutOffByTheDeadline(Vertx vertx, VertxTestContext ctx) {
        // A byte every 20 ms keeps the connection active, so only an overall deadline can end the attempt.
        Hook hook = new Hook((n, req) -> {
            req.response().setChunked(true).setStatusCode(200).write(" ");
            long timer = vertx.setPeriodic(20, id -> req.response().write(" "));
            req.connection().closeHandler(v -> vertx.cancelTimer(timer));
        });
        hook.start(vertx)
                .compose(h -> receiver(vertx, new WebhookConfig(h.url("/alerts"), HttpAuth.NONE, 200, 1, 4, 40, 0),
                        new RecordingPause()).send(List.of(XID_1)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertEquals(1, failure.attempts());
                    assertTrue(failure.getMessage().contains("within 200 ms"), failure.getMessage());
                    ctx.completeNow();
                })));
    }

    @Test
    void exhaustedAttemptsNameTheHostButNeverThePathOrQuery(Vertx vertx, VertxTestContext ctx) {
        Hook hook = new Hook((n, req) -> req.response().setStatusCode(503).end("upstream down for " + req.uri()));
        hook.start(vertx)
                .compose(h -> receiver(vertx, config(h.url(SECRET_PATH + "?" + SECRET_QUERY), 3), new RecordingPause())
                        .send(List.of(XID_1)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertEquals(3, failure.attempts());
                    String message = failure.getMessage();
                    assertTrue(message.contains("after 3 attempts"), message);
                    assertTrue(message.contains("HTTP 503 from " + hook.url("/…")), message);
                    assertNoSecret(message);
                    assertNoSecret(failure.lastError());
                    ctx.completeNow();
                })));
    }

    @Test
    void refusedConnectionIsRetriedThenReportedWithoutTheSecret(Vertx vertx, VertxTestContext ctx) {
        RecordingPause pause = new RecordingPause();
        vertx.createHttpServer().requestHandler(req -> req.response().end()).listen(0, "127.0.0.1")
                .compose(server -> {
                    int port = server.actualPort();
                    return server.close().map(v -> port);
                })
                .compose(port -> receiver(vertx, config("http://127.0.0.1:" + port + SECRET_PATH + "?" + SECRET_QUERY, 2),
                        pause).send(List.of(XID_1)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertEquals(2, failure.attempts());
                    assertEquals(List.of(4L), pause.waits);
                    assertTrue(failure.getMessage().contains("could not connect"), failure.getMessage());
                    assertNoSecret(failure.getMessage());
                    ctx.completeNow();
                })));
    }

    @Test
    void emptyBatchSendsNothing(Vertx vertx, VertxTestContext ctx) {
        Hook hook = Hook.always(200);
        hook.start(vertx)
                .compose(h -> receiver(vertx, config(h.url("/alerts"), 1), new RecordingPause()).send(List.of()))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(0, hook.received.size());
                    ctx.completeNow();
                })));
    }

    private static void assertNoSecret(String message) {
        for (String secret : List.of("SECRETPATH", "SECRETQUERY", "hooks", "T0001")) {
            assertFalse(message.contains(secret), () -> "'" + secret + "' leaked into: " + message);
        }
    }
}
