package io.gpuwatch.notify.receiver.wecom;

import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.notify.receiver.chat.Hostile;
import static io.gpuwatch.notify.receiver.chat.Alerts.HOSTILE;
import static io.gpuwatch.notify.receiver.chat.Alerts.HOSTILE_TWIN;
import io.gpuwatch.notify.DeliveryFailure;
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

import java.nio.charset.StandardCharsets;
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
class WeComReceiverTest {
    private static final String KEY = "693a91f6-7xxx-KEYKEYKEY";
    private static final String PATH = "/cgi-bin/webhook/send";
    private static final String OK = "{\"errcode\":0,\"errmsg\":\"ok\"}";

    /**
     * Answers as the group-robot endpoint does, always HTTP 200: 93000 for an unknown key, 40058 for markdown
     * content over 4096 UTF-8 bytes, 40008-style errors for a missing msgtype; otherwise the script decides.
     */
    private static FakeChat wecom(BiConsumer<Integer, HttpServerRequest> whenValid) {
        return new FakeChat((n, req, got) -> {
            if (!got.method().equals("POST") || !got.path().equals(PATH) || !KEY.equals(got.params().get("key"))) {
                req.response().end("{\"errcode\":93000,\"errmsg\":\"invalid webhook url, hint: [1733000000_1_x]\"}");
                return;
            }
            JsonObject body = got.json();
            if (!"markdown".equals(body.getString("msgtype")) || body.getJsonObject("markdown") == null) {
                req.response().end("{\"errcode\":40008,\"errmsg\":\"invalid message type\"}");
                return;
            }
            String content = body.getJsonObject("markdown").getString("content", "");
            if (content.getBytes(StandardCharsets.UTF_8).length > 4096) {
                req.response().end("{\"errcode\":40058,\"errmsg\":\"markdown.content exceed max length 4096\"}");
                return;
            }
            whenValid.accept(n, req);
        });
    }

    private static WeComReceiver receiver(String url, FakeTime time, int maxAttempts, Vertx vertx) {
        Parsed<WeComConfig> parsed = WeComConfig.parse(Map.of("url", Map.of("env", "WECOM_URL"), "maxAttempts",
                maxAttempts, "initialBackoffMs", 100), "receivers.ops-wecom",
                SecretSource.ofEnv(Map.of("WECOM_URL", url)));
        assertTrue(parsed.ok(), parsed.problems().toString());
        return new WeComReceiver("ops-wecom", parsed.value(), time.sending(WebClient.create(vertx)), OnCall.NOBODY,
                null);
    }

    @Test
    void markdownMessage(Vertx vertx, VertxTestContext ctx) {
        FakeChat wecom = wecom((n, req) -> req.response().end(OK));
        wecom.start(vertx)
                .compose(s -> receiver(s.url(PATH + "?key=" + KEY), new FakeTime(NOW), 1, vertx)
                        .send(List.of(XID_1, HOT_RESOLVED)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(new JsonObject().put("msgtype", "markdown").put("markdown", new JsonObject().put("content",
                            "**[firing] alerts (1 firing, 1 resolved)**\n"
                            + "> **xid-fallen-off-bus** <font color=\"warning\">firing</font> on node-01: "
                            + "GPU-1111 on node-01 fell off the bus (XID 79)\n"
                            + "> **gpu-hot** <font color=\"warning\">resolved</font> on node-02: GPU-3333 at 91 °C ＜b＞&＜/b＞")),
                            wecom.received.get(0).json());
                    ctx.completeNow();
                })));
    }

    @Test
    void multiByteFloodIsCutUnder4096BytesWithACount(Vertx vertx, VertxTestContext ctx) {
        FakeChat wecom = wecom((n, req) -> req.response().end(OK));
        wecom.start(vertx)
                .compose(s -> receiver(s.url(PATH + "?key=" + KEY), new FakeTime(NOW), 1, vertx).send(flood(100)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    String content = wecom.received.get(0).json().getJsonObject("markdown").getString("content");
                    String[] lines = content.split("\n");
                    int shown = lines.length - 2;
                    assertTrue(shown >= 5, "keeps as many whole alerts as fit: " + shown);
                    assertEquals("+" + (100 - shown) + " more", lines[lines.length - 1]);
                    ctx.completeNow();
                })));
    }

    @Test
    void frequencyLimitWaitsAMinuteThenDelivers(Vertx vertx, VertxTestContext ctx) {
        FakeChat wecom = wecom((n, req) -> req.response().end(n == 0
                ? "{\"errcode\":45009,\"errmsg\":\"api freq out of limit, hint: [1733000000_2_x]\"}" : OK));
        FakeTime time = new FakeTime(NOW);
        wecom.start(vertx)
                .compose(s -> {
                    WeComReceiver r = receiver(s.url(PATH + "?key=" + KEY), time, 3, vertx);
                    return Future.all(r.send(List.of(XID_1)), r.send(List.of(XID_2)));
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(3, wecom.received.size());
                    // A minute as WeCom asks, then the next queued message 3 s later.
                    assertEquals(List.of(60_000L, 3_000L), time.waits);
                    ctx.completeNow();
                })));
    }

    @Test
    void busyIsRetriedButAnInvalidKeyIsNot(Vertx vertx, VertxTestContext ctx) {
        FakeChat wecom = wecom((n, req) -> req.response().end(n == 0 ? "{\"errcode\":-1,\"errmsg\":\"system busy\"}" : OK));
        FakeTime time = new FakeTime(NOW);
        wecom.start(vertx)
                .compose(s -> receiver(s.url(PATH + "?key=" + KEY), time, 3, vertx).send(List.of(XID_1))
                        .compose(v -> receiver(s.url(PATH + "?key=REVOKED-KEY-REVOKED"), time, 3, vertx)
                                .send(List.of(XID_2))))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertFalse(failure.retryable());
                    assertEquals(1, failure.attempts());
                    assertTrue(failure.getMessage().contains("errcode 93000"), failure.getMessage());
                    assertFalse(failure.getMessage().contains("REVOKED-KEY"), failure.getMessage());
                    assertEquals(3, wecom.received.size(), "busy once, delivered, then refused once");
                    ctx.completeNow();
                })));
    }

    @Test
    void hostileTextIsEscapedAndTheLongAlertKeepsItsText(Vertx vertx, VertxTestContext ctx) {
        FakeChat wecom = wecom((n, req) -> req.response().end(OK));
        wecom.start(vertx)
                .compose(s -> receiver(s.url(PATH + "?key=" + KEY), new FakeTime(NOW), 1, vertx)
                        .send(List.of(HOSTILE, HOSTILE_TWIN)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    String content = wecom.received.get(0).json().getJsonObject("markdown").getString("content");
                    assertTrue(content.getBytes(StandardCharsets.UTF_8).length <= 4_096, "within 4,096 bytes");
                    Hostile.assertNoneOf(content, "<@zhangsan>", "<@U024BE7LH>", "<font color=\"warning\">red",
                            "[click](", "[x](", "*bold*", "_it_", "<at id=all>");
                    assertTrue(content.contains("on ＜!channel＞ ＜@zhangsan＞:"), content.substring(0, 300));
                    Hostile.assertKeptText(content, "＜at id=all＞＜/at＞ ＜!channel＞ ＜@U024BE7LH＞ ＜@zhangsan＞", 1);
                    ctx.completeNow();
                })));
    }
}
