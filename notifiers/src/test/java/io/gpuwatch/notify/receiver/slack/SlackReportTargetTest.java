package io.gpuwatch.notify.receiver.slack;

import io.gpuwatch.notify.receiver.chat.Hostile;
import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.receiver.chat.FakeChat;
import io.gpuwatch.notify.receiver.chat.FakeTime;
import io.gpuwatch.notify.render.Report;
import io.gpuwatch.notify.secret.SecretSource;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(VertxExtension.class)
@Timeout(value = 10, timeUnit = TimeUnit.SECONDS)
class SlackReportTargetTest {
    private static final String HOOK_PATH = "/services/T0001/B0002/XSECRETXSECRETX";

    /** Slack's Block Kit limits as far as reports use them: null when valid, else Slack's error code. */
    private static String invalid(FakeChat.Received got) {
        if (!got.path().equals(HOOK_PATH)) {
            return "no_service";
        }
        JsonArray blocks = got.json().getJsonArray("blocks");
        if (blocks == null || blocks.isEmpty() || blocks.size() > 50) {
            return "invalid_blocks";
        }
        for (Object o : blocks) {
            JsonObject b = (JsonObject) o;
            String text = switch (b.getString("type")) {
                case "header", "section" -> b.getJsonObject("text").getString("text");
                case "context" -> b.getJsonArray("elements").getJsonObject(0).getString("text");
                case "image" -> b.getString("image_url").isEmpty() ? "" : b.getString("alt_text");
                default -> "";
            };
            int max = b.getString("type").equals("header") ? 150 : b.getString("type").equals("image") ? 2000 : 3000;
            if (text == null || text.isEmpty() || text.codePointCount(0, text.length()) > max) {
                return "invalid_blocks";
            }
        }
        return null;
    }

    private static FakeChat slack() {
        return new FakeChat((n, req, got) -> {
            String error = invalid(got);
            req.response().setStatusCode(error == null ? 200 : 400).end(error == null ? "ok" : error);
        });
    }

    private static SlackReportTarget target(String url, Vertx vertx) {
        Parsed<SlackConfig> parsed = SlackConfig.parse(Map.of("url", Map.of("env", "SLACK_URL"), "maxAttempts", 1),
                "receivers.ops-slack", SecretSource.ofEnv(Map.of("SLACK_URL", url)));
        assertTrue(parsed.ok(), parsed.problems().toString());
        FakeTime time = new FakeTime(Instant.parse("2026-12-03T09:00:00Z"));
        return new SlackReportTarget("ops-slack", parsed.value(), time.sending(WebClient.create(vertx)));
    }

    private static Report report(int lines, String chartUrl) {
        List<String> firing = IntStream.range(0, lines)
                .mapToObj(i -> "gpu-hot on node-" + i + ": GPU at 91 °C <b>& " + "x".repeat(60)).toList();
        return new Report("gpuwatch digest: 2 firing", "2026-12-03 08:00 – 09:00 UTC",
                List.of(new Report.Section("Firing (page)", firing, "none"),
                        new Report.Section("Resolved", List.of(), "none")),
                "firing alerts ▁▃█ (max 4)", chartUrl);
    }

    @Test
    void largeDigestArrivesWithinSlacksLimitsSayingHowManyWereLeftOut(Vertx vertx, VertxTestContext ctx) {
        FakeChat slack = slack();
        slack.start(vertx)
                .compose(s -> target(s.url(HOOK_PATH), vertx).post(report(300, null)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(1, slack.received.size());
                    JsonArray blocks = slack.received.get(0).json().getJsonArray("blocks");
                    assertEquals("gpuwatch digest: 2 firing", blocks.getJsonObject(0).getJsonObject("text")
                            .getString("text"));
                    String context = blocks.getJsonObject(1).getJsonArray("elements").getJsonObject(0)
                            .getString("text");
                    assertEquals("2026-12-03 08:00 – 09:00 UTC\nfiring alerts ▁▃█ (max 4)", context);
                    String firing = blocks.getJsonObject(2).getJsonObject("text").getString("text");
                    assertTrue(firing.length() <= 3000, firing.length() + " characters");
                    String[] lines = firing.split("\n");
                    assertEquals("*Firing (page)*", lines[0]);
                    assertTrue(lines[1].contains("&lt;b&gt;&amp;"), lines[1]);
                    assertEquals("+" + (300 - (lines.length - 2)) + " more", lines[lines.length - 1]);
                    assertEquals("*Resolved*\nnone", blocks.getJsonObject(3).getJsonObject("text").getString("text"));
                    ctx.completeNow();
                })));
    }

    @Test
    void chartUrlBecomesAnImageBlockInPlaceOfTheSparkline(Vertx vertx, VertxTestContext ctx) {
        FakeChat slack = slack();
        slack.start(vertx)
                .compose(s -> target(s.url(HOOK_PATH), vertx)
                        .post(report(2, "https://gw.example.com/api/v1/digests/d-1/chart.png")))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    JsonArray blocks = slack.received.get(0).json().getJsonArray("blocks");
                    assertEquals("2026-12-03 08:00 – 09:00 UTC", blocks.getJsonObject(1).getJsonArray("elements")
                            .getJsonObject(0).getString("text"));
                    JsonObject image = blocks.getJsonObject(2);
                    assertEquals("image", image.getString("type"));
                    assertEquals("https://gw.example.com/api/v1/digests/d-1/chart.png", image.getString("image_url"));
                    assertEquals("firing alerts ▁▃█ (max 4)", image.getString("alt_text"));
                    assertNull(blocks.getJsonObject(3).getString("image_url"));
                    ctx.completeNow();
                })));
    }

    @Test
    void tenantNamesInReportLinesAreEscapedAsMrkdwn() {
        String sent = SlackReportTarget.build(Hostile.report()).orElseThrow().encode();
        Hostile.assertNoneOf(sent, "<at id=all>", "<!channel>", "<@zhangsan>");
        assertTrue(sent.contains("&lt;!channel&gt; &lt;@zhangsan&gt;"), sent);
    }
}
