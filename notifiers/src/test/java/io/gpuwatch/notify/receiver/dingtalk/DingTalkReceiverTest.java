package io.gpuwatch.notify.receiver.dingtalk;

import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.notify.receiver.chat.Hostile;
import static io.gpuwatch.notify.receiver.chat.Alerts.HOSTILE;
import static io.gpuwatch.notify.receiver.chat.Alerts.HOSTILE_TWIN;
import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.config.ConfigProblem;
import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.receiver.chat.FakeChat;
import io.gpuwatch.notify.receiver.chat.FakeTime;
import io.gpuwatch.notify.secret.SecretSource;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import static io.gpuwatch.notify.receiver.chat.Alerts.HOT_RESOLVED;
import static io.gpuwatch.notify.receiver.chat.Alerts.NOW;
import static io.gpuwatch.notify.receiver.chat.Alerts.XID_1;
import static io.gpuwatch.notify.receiver.chat.Alerts.XID_2;
import static io.gpuwatch.notify.receiver.chat.Alerts.flood;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(VertxExtension.class)
@Timeout(value = 10, timeUnit = TimeUnit.SECONDS)
class DingTalkReceiverTest {
    private static final String TOKEN = "9f8e7dTOKENTOKEN";
    private static final String SECRET = "SEC1a2b3c4dSIGNINGSECRET5e6f";
    private static final String OK = "{\"errcode\":0,\"errmsg\":\"ok\"}";
    private static final String SIGN_FAIL = "{\"errcode\":310000,\"errmsg\":\"sign not match, more: [https://ding-doc."
            + "dingtalk.com/doc#/serverapi2/qf2nxq]\"}";

    /** DingTalk's signature, computed the way its guide does: key = secret, data = timestamp + "\n" + secret. */
    private static String expectedSign(String timestamp) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return Base64.getEncoder().encodeToString(mac.doFinal((timestamp + "\n" + SECRET)
                .getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Answers as the robot endpoint does, always HTTP 200: 300001 without the right access_token, 310000 when the
     * timestamp (ms) is over an hour off the server's clock or the sign does not match; otherwise the script.
     */
    private static FakeChat dingtalk(FakeTime serverClock, BiConsumer<Integer, HttpServerRequest> whenValid) {
        return new FakeChat((n, req, got) -> {
            if (!got.method().equals("POST") || !got.path().equals("/robot/send")
                    || !TOKEN.equals(got.params().get("access_token"))) {
                req.response().end("{\"errcode\":300001,\"errmsg\":\"token is not exist\"}");
                return;
            }
            JsonObject body = got.json();
            if (!"markdown".equals(body.getString("msgtype")) || body.getJsonObject("markdown").getString("title", "").isEmpty()
                    || body.getJsonObject("markdown").getString("text", "").isEmpty()) {
                req.response().end("{\"errcode\":40035,\"errmsg\":\"缺少参数 json\"}");
                return;
            }
            try {
                String ts = got.params().get("timestamp");
                boolean fresh = Math.abs(Long.parseLong(ts) - serverClock.millis()) < 3_600_000;
                if (!fresh || !expectedSign(ts).equals(got.params().get("sign"))) {
                    req.response().end(SIGN_FAIL);
                    return;
                }
            } catch (Exception e) {
                req.response().end(SIGN_FAIL);
                return;
            }
            whenValid.accept(n, req);
        });
    }

    private static DingTalkReceiver receiver(String url, FakeTime time, int maxAttempts, Vertx vertx) {
        Parsed<DingTalkConfig> parsed = DingTalkConfig.parse(Map.of("url", Map.of("env", "DT_URL"),
                "secret", Map.of("env", "DT_SECRET"), "maxAttempts", maxAttempts, "initialBackoffMs", 100),
                "receivers.ops-dingtalk", SecretSource.ofEnv(Map.of("DT_URL", url, "DT_SECRET", SECRET)));
        assertTrue(parsed.ok(), parsed.problems().toString());
        return new DingTalkReceiver("ops-dingtalk", parsed.value(), time.sending(WebClient.create(vertx)),
                OnCall.NOBODY, null);
    }

    @Test
    void signedMarkdownMessage(Vertx vertx, VertxTestContext ctx) {
        FakeTime time = new FakeTime(NOW);
        FakeChat dingtalk = dingtalk(time, (n, req) -> req.response().end(OK));
        dingtalk.start(vertx)
                .compose(s -> receiver(s.url("/robot/send?access_token=" + TOKEN), time, 1, vertx)
                        .send(List.of(XID_1, HOT_RESOLVED)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    FakeChat.Received got = dingtalk.received.get(0);
                    assertEquals(String.valueOf(NOW.toEpochMilli()), got.params().get("timestamp"));
                    // Encoded exactly once: the raw query carries the URL-encoded Base64, not a double encoding.
                    String rawSign = Arrays.stream(got.query().split("&")).filter(p -> p.startsWith("sign="))
                            .findFirst().orElseThrow().substring("sign=".length());
                    assertEquals(URLEncoder.encode(expectedSign(String.valueOf(NOW.toEpochMilli())),
                            StandardCharsets.UTF_8), rawSign);
                    assertEquals(new JsonObject().put("msgtype", "markdown").put("markdown", new JsonObject()
                            .put("title", "[firing] alerts (1 firing, 1 resolved)")
                            .put("text", "### [firing] alerts (1 firing, 1 resolved)\n\n"
                                    + "- **xid-fallen-off-bus** firing on node-01: GPU-1111 on node-01 fell off the bus (XID 79)\n"
                                    + "- **gpu-hot** resolved on node-02: GPU-3333 at 91 °C ＜b＞&＜/b＞")), got.json());
                    ctx.completeNow();
                })));
    }

    @Test
    void rateLimitIsRetryableAndHoldsTheQueueForTheBlock(Vertx vertx, VertxTestContext ctx) {
        FakeTime time = new FakeTime(NOW);
        FakeChat dingtalk = dingtalk(time, (n, req) -> req.response().end(n == 0
                ? "{\"errcode\":130101,\"errmsg\":\"send too fast, exceed 20 times per minute\",\"status\":1111,"
                + "\"punish\":\"deny\"}" : OK));
        dingtalk.start(vertx)
                .compose(s -> {
                    DingTalkReceiver r = receiver(s.url("/robot/send?access_token=" + TOKEN), time, 5, vertx);
                    Future<Void> limited = r.send(List.of(XID_1));
                    Future<Void> next = r.send(List.of(XID_2));
                    return limited.transform(first -> {
                        ctx.verify(() -> {
                            DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, first.cause());
                            assertTrue(failure.retryable());
                            assertEquals(1, failure.attempts());
                            assertTrue(failure.getMessage().contains("errcode 130101"), failure.getMessage());
                        });
                        return next;
                    });
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(2, dingtalk.received.size());
                    assertEquals(List.of(600_000L), time.waits, "the next message waits out the 10-minute block");
                    ctx.completeNow();
                })));
    }

    @Test
    void signatureRefusalIsNotRetriedAndLeaksNothing(Vertx vertx, VertxTestContext ctx) {
        FakeTime time = new FakeTime(NOW);
        FakeChat dingtalk = dingtalk(time, (n, req) -> req.response().end(OK));
        dingtalk.start(vertx)
                .compose(s -> {
                    Parsed<DingTalkConfig> parsed = DingTalkConfig.parse(Map.of("url", Map.of("env", "U"),
                            "secret", Map.of("env", "S")), "r", SecretSource.ofEnv(Map.of(
                            "U", s.url("/robot/send?access_token=" + TOKEN), "S", "SECWRONGWRONGWRONG")));
                    return new DingTalkReceiver("d", parsed.value(), time.sending(WebClient.create(vertx)),
                            OnCall.NOBODY, null)
                            .send(List.of(XID_1));
                })
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertFalse(failure.retryable());
                    assertEquals(1, dingtalk.received.size());
                    assertTrue(failure.getMessage().contains("errcode 310000"), failure.getMessage());
                    for (String secret : List.of("SECWRONG", "TOKENTOKEN", "access_token")) {
                        assertFalse(failure.getMessage().contains(secret), failure.getMessage());
                    }
                    ctx.completeNow();
                })));
    }

    @Test
    void floodStaysWithinTheBodyLimitAndCountsTheRest(Vertx vertx, VertxTestContext ctx) {
        FakeTime time = new FakeTime(NOW);
        FakeChat dingtalk = dingtalk(time, (n, req) -> req.response().end(OK));
        dingtalk.start(vertx)
                .compose(s -> receiver(s.url("/robot/send?access_token=" + TOKEN), time, 1, vertx).send(flood(200)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    FakeChat.Received got = dingtalk.received.get(0);
                    assertTrue(got.body().getBytes(StandardCharsets.UTF_8).length <= 20_000);
                    String[] lines = got.json().getJsonObject("markdown").getString("text").split("\n");
                    int shown = lines.length - 3;
                    assertTrue(shown > 10, "keeps as many whole alerts as fit: " + shown);
                    assertEquals("+" + (200 - shown) + " more", lines[lines.length - 1]);
                    ctx.completeNow();
                })));
    }

    @Test
    void configChecksTokenAndSecretShape() {
        Parsed<DingTalkConfig> parsed = DingTalkConfig.parse(Map.of("url", Map.of("env", "U"),
                "secret", Map.of("env", "S")), "receivers.d", SecretSource.ofEnv(Map.of(
                "U", "https://oapi.dingtalk.com/robot/send", "S", "not-a-dingtalk-secret")));
        assertEquals(List.of("receivers.d.secret", "receivers.d.url"),
                parsed.problems().stream().map(ConfigProblem::path).sorted().toList());
        assertFalse(parsed.problems().toString().contains("not-a-dingtalk-secret"), parsed.problems().toString());
    }

    @Test
    void hostileTextIsEscapedAndTheLongAlertKeepsItsText(Vertx vertx, VertxTestContext ctx) {
        FakeTime time = new FakeTime(NOW);
        FakeChat dingtalk = dingtalk(time, (n, req) -> req.response().end(OK));
        dingtalk.start(vertx)
                .compose(s -> receiver(s.url("/robot/send?access_token=" + TOKEN), time, 1, vertx)
                        .send(List.of(HOSTILE, HOSTILE_TWIN)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    FakeChat.Received got = dingtalk.received.get(0);
                    assertTrue(got.body().getBytes(StandardCharsets.UTF_8).length <= 20_000, "within 20,000 bytes");
                    String text = got.json().getJsonObject("markdown").getString("text");
                    Hostile.assertNoneOf(text, "<at id=all>", "<font", "[click](", "[x](", "*bold*", "_it_");
                    assertTrue(text.startsWith("### [firing] ＜at id=all＞＜/at＞［x］(https://evil.example)"), text);
                    Hostile.assertKeptText(text, "＜at id=all＞＜/at＞ ＜!channel＞ ＜@U024BE7LH＞ ＜@zhangsan＞", 1);
                    ctx.completeNow();
                })));
    }
}
