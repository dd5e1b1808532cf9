package io.gpuwatch.notify.receiver.feishu;

import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.notify.receiver.chat.Hostile;
import static io.gpuwatch.notify.receiver.chat.Alerts.HOSTILE;
import static io.gpuwatch.notify.receiver.chat.Alerts.HOSTILE_TWIN;
import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.receiver.chat.FakeChat;
import io.gpuwatch.notify.receiver.chat.FakeTime;
import io.gpuwatch.notify.secret.SecretSource;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import static io.gpuwatch.notify.receiver.chat.Alerts.HOT_RESOLVED;
import static io.gpuwatch.notify.receiver.chat.Alerts.NOW;
import static io.gpuwatch.notify.receiver.chat.Alerts.XID_1;
import static io.gpuwatch.notify.receiver.chat.Alerts.flood;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(VertxExtension.class)
@Timeout(value = 10, timeUnit = TimeUnit.SECONDS)
class FeishuReceiverTest {
    private static final String HOOK = "/open-apis/bot/v2/hook/0b1c2d3e-TOKENTOKEN";
    private static final String SECRET = "qDbIbKzNlSIGNINGSECRETb";
    private static final String OK = "{\"StatusCode\":0,\"StatusMessage\":\"success\",\"code\":0,\"data\":{},\"msg\":\"success\"}";
    private static final String SIGN_FAIL = "{\"code\":19021,\"data\":{},\"msg\":\"sign match fail or timestamp is not "
            + "within one hour from current time\"}";

    /** The signature as Feishu's guide computes it: HMAC-SHA256 keyed with timestamp + "\n" + secret, empty data. */
    private static String expectedSign(String timestamp, String secret) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec((timestamp + "\n" + secret).getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return Base64.getEncoder().encodeToString(mac.doFinal(new byte[] {}));
    }

    /**
     * Answers as a Feishu bot with signature verification does, always with HTTP 200 and a JSON code: 19021 when
     * the sign does not match or the timestamp is over an hour from the server's clock, 9499 for a body over
     * 20 KB or without msg_type and its content; otherwise the script decides.
     */
    private static FakeChat feishu(FakeTime serverClock, BiConsumer<Integer, HttpServerRequest> whenValid) {
        return new FakeChat((n, req, got) -> {
            if (!got.method().equals("POST") || !got.path().equals(HOOK)) {
                req.response().setStatusCode(404).end("404 page not found");
                return;
            }
            JsonObject body = got.json();
            if (got.body().getBytes(StandardCharsets.UTF_8).length > 20 * 1024 || !body.containsKey("msg_type")
                    || body.getJsonObject("card") == null
                    || body.getJsonObject("card").getJsonObject("header").getJsonObject("title").getString("content").isEmpty()) {
                req.response().setStatusCode(200).end("{\"code\":9499,\"data\":{},\"msg\":\"Bad Request\"}");
                return;
            }
            try {
                String ts = body.getString("timestamp", "");
                boolean fresh = !ts.isEmpty() && Math.abs(Long.parseLong(ts) - serverClock.instant().getEpochSecond()) < 3600;
                if (!fresh || !expectedSign(ts, SECRET).equals(body.getString("sign"))) {
                    req.response().setStatusCode(200).end(SIGN_FAIL);
                    return;
                }
            } catch (Exception e) {
                req.response().setStatusCode(200).end(SIGN_FAIL);
                return;
            }
            whenValid.accept(n, req);
        });
    }

    private static FeishuReceiver receiver(String url, String secret, FakeTime time, int maxAttempts, Vertx vertx) {
        Map<String, Object> fields = new HashMap<>(Map.of("url", Map.of("env", "FEISHU_URL"), "maxAttempts", maxAttempts,
                "initialBackoffMs", 100));
        Map<String, String> env = new HashMap<>(Map.of("FEISHU_URL", url));
        if (secret != null) {
            fields.put("secret", Map.of("env", "FEISHU_SECRET"));
            env.put("FEISHU_SECRET", secret);
        }
        Parsed<FeishuConfig> parsed = FeishuConfig.parse(fields, "receivers.ops-feishu", SecretSource.ofEnv(env));
        assertTrue(parsed.ok(), parsed.problems().toString());
        return new FeishuReceiver("ops-feishu", parsed.value(), time.sending(WebClient.create(vertx)), OnCall.NOBODY,
                null, false);
    }

    @Test
    void signedInteractiveCard(Vertx vertx, VertxTestContext ctx) {
        FakeTime time = new FakeTime(NOW);
        FakeChat feishu = feishu(time, (n, req) -> req.response().end(OK));
        feishu.start(vertx)
                .compose(s -> receiver(s.url(HOOK), SECRET, time, 1, vertx).send(List.of(XID_1)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    JsonObject body = feishu.received.get(0).json();
                    assertEquals(String.valueOf(NOW.getEpochSecond()), body.getString("timestamp"));
                    assertEquals("interactive", body.getString("msg_type"));
                    JsonObject card = body.getJsonObject("card");
                    assertEquals(new JsonObject().put("title", new JsonObject().put("tag", "plain_text")
                                    .put("content", "[firing] xid-fallen-off-bus (1 firing, 0 resolved)"))
                            .put("template", "red"), card.getJsonObject("header"));
                    assertEquals(new JsonArray().add(new JsonObject().put("tag", "div").put("text", new JsonObject()
                            .put("tag", "lark_md").put("content",
                                    "**xid-fallen-off-bus** firing on node-01: GPU-1111 on node-01 fell off the bus (XID 79)"))),
                            card.getJsonArray("elements"));
                    ctx.completeNow();
                })));
    }

    @Test
    void signMismatchFailsAtOnceWithoutLeakingTheSecret(Vertx vertx, VertxTestContext ctx) {
        FakeTime time = new FakeTime(NOW);
        FakeChat feishu = feishu(time, (n, req) -> req.response().end(OK));
        feishu.start(vertx)
                .compose(s -> receiver(s.url(HOOK), "WRONGSECRETWRONG", time, 5, vertx).send(List.of(XID_1)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertFalse(failure.retryable());
                    assertEquals(1, feishu.received.size());
                    assertTrue(failure.getMessage().contains("code 19021"), failure.getMessage());
                    assertTrue(failure.getMessage().contains("check the signing secret"), failure.getMessage());
                    for (String secret : List.of("WRONGSECRETWRONG", "TOKENTOKEN", "open-apis")) {
                        assertFalse(failure.getMessage().contains(secret), failure.getMessage());
                    }
                    ctx.completeNow();
                })));
    }

    @Test
    void frequencyLimitWaitsAMinuteAndSignsTheRetryAfresh(Vertx vertx, VertxTestContext ctx) {
        FakeTime time = new FakeTime(NOW);
        FakeChat feishu = feishu(time, (n, req) -> req.response().end(n == 0
                ? "{\"code\":11232,\"data\":{},\"msg\":\"frequency limited psm[lark.oapi.app_platform_runtime]\"}" : OK));
        feishu.start(vertx)
                .compose(s -> receiver(s.url(HOOK), SECRET, time, 3, vertx).send(List.of(XID_1)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(List.of(60_000L), time.waits);
                    JsonObject first = feishu.received.get(0).json();
                    JsonObject second = feishu.received.get(1).json();
                    assertEquals(Long.parseLong(first.getString("timestamp")) + 60,
                            Long.parseLong(second.getString("timestamp")));
                    assertNotEquals(first.getString("sign"), second.getString("sign"));
                    ctx.completeNow();
                })));
    }

    @Test
    void gatewayThrottlingWaitsForTheResetHeader(Vertx vertx, VertxTestContext ctx) {
        FakeTime time = new FakeTime(NOW);
        FakeChat feishu = feishu(time, (n, req) -> {
            if (n == 0) {
                req.response().setStatusCode(429).putHeader("x-ogw-ratelimit-reset", "4")
                        .end("{\"code\":99991400,\"msg\":\"request trigger frequency limit\"}");
            } else {
                req.response().end(OK);
            }
        });
        feishu.start(vertx)
                .compose(s -> receiver(s.url(HOOK), SECRET, time, 3, vertx).send(List.of(XID_1)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(2, feishu.received.size());
                    assertEquals(List.of(4000L), time.waits);
                    ctx.completeNow();
                })));
    }

    @Test
    void floodStaysUnder20KilobytesAndCountsTheRest(Vertx vertx, VertxTestContext ctx) {
        FakeTime time = new FakeTime(NOW);
        FakeChat feishu = feishu(time, (n, req) -> req.response().end(OK));
        feishu.start(vertx)
                .compose(s -> receiver(s.url(HOOK), SECRET, time, 1, vertx).send(flood(200)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    String text = feishu.received.get(0).json().getJsonObject("card").getJsonArray("elements")
                            .getJsonObject(0).getJsonObject("text").getString("content");
                    String[] lines = text.split("\n");
                    assertTrue(lines.length > 10, "keeps as many whole alerts as fit: " + lines.length);
                    assertEquals("+" + (200 - (lines.length - 1)) + " more", lines[lines.length - 1]);
                    ctx.completeNow();
                })));
    }

    @Test
    void withoutASecretNothingIsSigned(Vertx vertx, VertxTestContext ctx) {
        FakeChat feishu = FakeChat.answering(200, OK);
        feishu.start(vertx)
                .compose(s -> receiver(s.url(HOOK), null, new FakeTime(NOW), 1, vertx).send(List.of(HOT_RESOLVED)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    JsonObject body = feishu.received.get(0).json();
                    assertNull(body.getString("sign"));
                    assertNull(body.getString("timestamp"));
                    assertEquals("green", body.getJsonObject("card").getJsonObject("header").getString("template"));
                    ctx.completeNow();
                })));
    }

    @Test
    void keywordAndIpRefusalsAreNotRetried(Vertx vertx, VertxTestContext ctx) {
        FakeTime time = new FakeTime(NOW);
        FakeChat feishu = feishu(time, (n, req) -> req.response().end("{\"code\":19024,\"data\":{},"
                + "\"msg\":\"Key Words Not Found\"}"));
        feishu.start(vertx)
                .compose(s -> receiver(s.url(HOOK), SECRET, time, 5, vertx).send(List.of(XID_1)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertFalse(failure.retryable());
                    assertTrue(failure.getMessage().contains("Key Words Not Found"), failure.getMessage());
                    assertEquals(1, feishu.received.size());
                    ctx.completeNow();
                })));
    }

    @Test
    void hostileTextIsEscapedAndTheLongAlertKeepsItsText(Vertx vertx, VertxTestContext ctx) {
        FakeTime time = new FakeTime(NOW);
        FakeChat feishu = feishu(time, (n, req) -> req.response().end(OK));
        feishu.start(vertx)
                .compose(s -> receiver(s.url(HOOK), SECRET, time, 1, vertx).send(List.of(HOSTILE, HOSTILE_TWIN)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    FakeChat.Received got = feishu.received.get(0);
                    assertTrue(got.body().getBytes(StandardCharsets.UTF_8).length <= 20_000, "within Feishu's 20 KB");
                    String content = got.json().getJsonObject("card").getJsonArray("elements").getJsonObject(0)
                            .getJsonObject("text").getString("content");
                    Hostile.assertNoneOf(content, "<at id=all>", "<font color=\"warning\">red", "[click](", "[x](",
                            "*bold*", "_it_", "~gone~");
                    assertTrue(content.startsWith("**&#60;at id=all&#62;&#60;/at&#62;&#91;x&#93;(https://evil.example)**"),
                            content.substring(0, 200));
                    Hostile.assertKeptText(content, "&#60;at id=all&#62;&#60;/at&#62; &#60;!channel&#62;", 1);
                    ctx.completeNow();
                })));
    }
}
