package io.gpuwatch.notify.receiver.dingtalk;

import io.gpuwatch.notify.receiver.chat.Hostile;
import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.receiver.chat.FakeChat;
import io.gpuwatch.notify.receiver.chat.FakeTime;
import io.gpuwatch.notify.render.Report;
import io.gpuwatch.notify.secret.SecretSource;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(VertxExtension.class)
@Timeout(value = 10, timeUnit = TimeUnit.SECONDS)
class DingTalkReportTargetTest {
    private static final String TOKEN = "9f8e7dTOKENTOKEN";
    private static final String SECRET = "SEC1a2b3c4dSIGNINGSECRET5e6f";
    private static final Instant NOW = Instant.parse("2026-12-03T09:00:00Z");

    private static String sign(String timestamp) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return Base64.getEncoder().encodeToString(mac.doFinal((timestamp + "\n" + SECRET)
                .getBytes(StandardCharsets.UTF_8)));
    }

    /** The robot: 310000 unless the sign matches the timestamp, else the rate limit once, then ok. */
    private static FakeChat robot() {
        return new FakeChat((n, req, got) -> {
            String ts = got.params().get("timestamp");
            try {
                if (ts == null || !sign(ts).equals(got.params().get("sign"))) {
                    req.response().end("{\"errcode\":310000,\"errmsg\":\"sign not match\"}");
                    return;
                }
            } catch (Exception e) {
                req.response().setStatusCode(500).end();
                return;
            }
            req.response().end(n == 0 ? "{\"errcode\":130101,\"errmsg\":\"send too fast\"}"
                    : "{\"errcode\":0,\"errmsg\":\"ok\"}");
        });
    }

    private static DingTalkReportTarget target(String url, FakeTime time, Vertx vertx) {
        Parsed<DingTalkConfig> parsed = DingTalkConfig.parse(Map.of("url", Map.of("env", "DT_URL"),
                "secret", Map.of("env", "DT_SECRET"), "maxAttempts", 2, "maxBackoffMs", 600_000),
                "receivers.ops-dingtalk", SecretSource.ofEnv(Map.of("DT_URL", url, "DT_SECRET", SECRET)));
        assertTrue(parsed.ok(), parsed.problems().toString());
        return new DingTalkReportTarget("ops-dingtalk", parsed.value(), time.sending(WebClient.create(vertx)));
    }

    private static Report report(String period) {
        return new Report("gpuwatch digest", period,
                List.of(new Report.Section("Firing", List.of("gpu-hot on node-1"), "none")), "firing ▁▃█",
                "https://gw.example.com/chart.png");
    }

    @Test
    void rateLimitedReportIsRetriedWithAFreshSignatureAndTheTrendAsText(Vertx vertx, VertxTestContext ctx) {
        FakeTime time = new FakeTime(NOW);
        FakeChat robot = robot();
        robot.start(vertx)
                .compose(s -> {
                    DingTalkReportTarget target = target(s.url("/robot/send?access_token=" + TOKEN), time, vertx);
                    ctx.verify(() -> assertFalse(target.showsImages()));
                    return target.post(report("2026-12-03 08:00 – 09:00 UTC"));
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(2, robot.received.size());
                    long first = Long.parseLong(robot.received.get(0).params().get("timestamp"));
                    long second = Long.parseLong(robot.received.get(1).params().get("timestamp"));
                    assertEquals(NOW.toEpochMilli(), first);
                    assertTrue(second - first >= DingTalkReceiver.RATE_LIMIT_BLOCK.toMillis(),
                            "the retry waits out the block and is signed for its own moment");
                    String text = robot.received.get(1).json().getJsonObject("markdown").getString("text");
                    assertTrue(text.startsWith("### gpuwatch digest\n\n2026-12-03 08:00 – 09:00 UTC\n\nfiring ▁▃█"),
                            text);
                    assertFalse(text.contains("chart.png"), text);
                    ctx.completeNow();
                })));
    }

    @Test
    void reportWhoseFramingAloneIsOverTheLimitFailsAtOnceWithoutSending(Vertx vertx, VertxTestContext ctx) {
        FakeTime time = new FakeTime(NOW);
        FakeChat robot = robot();
        robot.start(vertx)
                .compose(s -> target(s.url("/robot/send?access_token=" + TOKEN), time, vertx)
                        .post(report("x".repeat(DingTalkMessage.MAX_BODY_BYTES))))
                .onComplete(ctx.failing(e -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, e);
                    assertFalse(failure.retryable());
                    assertEquals("ops-dingtalk", failure.receiver());
                    assertEquals("the report's title alone exceeds DingTalk's " + DingTalkMessage.MAX_BODY_BYTES
                            + "-byte limit", failure.lastError());
                    assertEquals(0, robot.received.size());
                    assertEquals(List.of(), time.waits);
                    ctx.completeNow();
                })));
    }

    @Test
    void tenantNamesInReportLinesAreReplacedByLookAlikes() {
        String text = DingTalkReportTarget.build(Hostile.report()).orElseThrow().toJsonObject()
                .getJsonObject("markdown").getString("text");
        Hostile.assertNoneOf(text, Hostile.LIVE);
        assertTrue(text.contains("- gpu-hot on ＜at id=all＞＜/at＞ ＜!channel＞ ＜@zhangsan＞ ［click］"), text);
    }
}
