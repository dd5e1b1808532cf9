package io.gpuwatch.notify.receiver.slack;

import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.notify.receiver.chat.ChatSending;
import java.nio.charset.StandardCharsets;
import io.gpuwatch.notify.receiver.chat.Hostile;
import static io.gpuwatch.notify.receiver.chat.Alerts.HOSTILE;
import static io.gpuwatch.notify.receiver.chat.Alerts.HOSTILE_TWIN;
import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.config.ConfigProblem;
import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.receiver.chat.FakeChat;
import io.gpuwatch.notify.receiver.chat.FakeTime;
import io.gpuwatch.notify.secret.Secret;
import io.gpuwatch.notify.secret.SecretSource;
import io.vertx.core.Future;
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

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.random.RandomGenerator;

import static io.gpuwatch.notify.receiver.chat.Alerts.HOT_RESOLVED;
import static io.gpuwatch.notify.receiver.chat.Alerts.NOW;
import static io.gpuwatch.notify.receiver.chat.Alerts.XID_1;
import static io.gpuwatch.notify.receiver.chat.Alerts.XID_2;
import static io.gpuwatch.notify.receiver.chat.Alerts.flood;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(VertxExtension.class)
@Timeout(value = 10, timeUnit = TimeUnit.SECONDS)
class SlackReceiverTest {
    private static final RandomGenerator NO_JITTER = () -> 0L;
    private static final String HOOK_PATH = "/services/T0001/B0002/XSECRETXSECRETX";

    /**
     * Answers as Slack's webhook endpoint does: only POST to the hook path, a JSON body with {@code text} or
     * {@code blocks}, header blocks of at most 150 characters and sections of at most 3,000; else a text code.
     */
    static FakeChat.Script slack(BiConsumer<Integer, HttpServerRequest> whenValid) {
        return (n, req, got) -> {
            String error = invalid(got);
            if (error != null) {
                req.response().setStatusCode(error.equals("no_service") ? 404 : 400).end(error);
            } else {
                whenValid.accept(n, req);
            }
        };
    }

    private static String invalid(FakeChat.Received got) {
        String body = got.body();
        if (!got.method().equals("POST") || !got.path().equals(HOOK_PATH)) {
            return "no_service";
        }
        if (!got.headers().get("Content-Type").startsWith("application/json")) {
            return "invalid_payload";
        }
        JsonObject json;
        try {
            json = new JsonObject(body);
        } catch (RuntimeException e) {
            return "invalid_payload";
        }
        JsonArray blocks = json.getJsonArray("blocks", new JsonArray());
        if (json.getString("text", "").isBlank() && blocks.isEmpty()) {
            return "no_text";
        }
        if (blocks.size() > 50) {
            return "invalid_blocks";
        }
        for (int i = 0; i < blocks.size(); i++) {
            JsonObject block = blocks.getJsonObject(i);
            String text = block.getJsonObject("text").getString("text", "");
            int max = block.getString("type").equals("header") ? 150 : 3000;
            if (text.isEmpty() || text.codePointCount(0, text.length()) > max) {
                return "invalid_blocks";
            }
        }
        return null;
    }

    private static FakeChat fake(BiConsumer<Integer, HttpServerRequest> whenValid) {
        return new FakeChat(slack(whenValid));
    }

    private static FakeChat ok() {
        return fake((n, req) -> req.response().setStatusCode(200).end("ok"));
    }

    private static SlackReceiver receiver(String url, FakeTime time, int maxAttempts, Vertx vertx) {
        Map<String, Object> fields = Map.of("url", Map.of("env", "SLACK_URL"), "maxAttempts", maxAttempts,
                "initialBackoffMs", 100, "timeoutMs", 2000);
        Parsed<SlackConfig> parsed = SlackConfig.parse(fields, "receivers.ops-slack",
                SecretSource.ofEnv(Map.of("SLACK_URL", url)));
        assertTrue(parsed.ok(), parsed.problems().toString());
        return new SlackReceiver("ops-slack", parsed.value(), time.sending(WebClient.create(vertx)), OnCall.NOBODY,
                false);
    }

    @Test
    void batchIsOneBlockKitMessage(Vertx vertx, VertxTestContext ctx) {
        FakeChat slack = ok();
        FakeTime time = new FakeTime(NOW);
        slack.start(vertx)
                .compose(s -> receiver(s.url(HOOK_PATH), time, 1, vertx).send(List.of(XID_1, HOT_RESOLVED)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(1, slack.received.size());
                    JsonObject body = slack.received.get(0).json();
                    String title = "[firing] alerts (1 firing, 1 resolved)";
                    assertEquals(title, body.getString("text"));
                    JsonArray blocks = body.getJsonArray("blocks");
                    assertEquals(new JsonObject().put("type", "header").put("text", new JsonObject()
                            .put("type", "plain_text").put("text", title).put("emoji", true)), blocks.getJsonObject(0));
                    assertEquals(new JsonObject().put("type", "section").put("text", new JsonObject()
                            .put("type", "mrkdwn").put("text",
                                    "*xid-fallen-off-bus* firing on node-01: GPU-1111 on node-01 fell off the bus (XID 79)\n"
                                    + "*gpu-hot* resolved on node-02: GPU-3333 at 91 °C &lt;b&gt;&amp;&lt;/b&gt;")),
                            blocks.getJsonObject(1));
                    ctx.completeNow();
                })));
    }

    @Test
    void floodIsCutToOneValidMessageWithACountOfTheRest(Vertx vertx, VertxTestContext ctx) {
        FakeChat slack = ok();
        slack.start(vertx)
                .compose(s -> receiver(s.url(HOOK_PATH), new FakeTime(NOW), 1, vertx).send(flood(200)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    String section = slack.received.get(0).json().getJsonArray("blocks").getJsonObject(1)
                            .getJsonObject("text").getString("text");
                    String[] lines = section.split("\n");
                    String last = lines[lines.length - 1];
                    assertEquals("+" + (200 - (lines.length - 1)) + " more", last);
                    assertTrue(lines.length > 5, "keeps as many whole alerts as fit: " + lines.length);
                    ctx.completeNow();
                })));
    }

    @Test
    void templatesCanBeOverridden(Vertx vertx, VertxTestContext ctx) {
        FakeChat slack = ok();
        slack.start(vertx)
                .compose(s -> {
                    Parsed<SlackConfig> parsed = SlackConfig.parse(Map.of("url", Map.of("env", "U"), "templates",
                            Map.of("title", "{{count}} GPU alerts", "entry", "{{labels.uuid}} <{{generatorURL|\"#\"}}|open>")),
                            "r", SecretSource.ofEnv(Map.of("U", s.url(HOOK_PATH))));
                    return new SlackReceiver("s", parsed.value(), new ChatSending(WebClient.create(vertx), NO_JITTER,
                            new FakeTime(NOW), new FakeTime(NOW)), OnCall.NOBODY, false).send(List.of(XID_1, XID_2));
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    JsonArray blocks = slack.received.get(0).json().getJsonArray("blocks");
                    assertEquals("2 GPU alerts", blocks.getJsonObject(0).getJsonObject("text").getString("text"));
                    assertEquals("GPU-1111 <http://gw:8080/api/v1/alerts/a1b2c3d4e5f60718|open>\nGPU-2222 <#|open>",
                            blocks.getJsonObject(1).getJsonObject("text").getString("text"));
                    ctx.completeNow();
                })));
    }

    @Test
    void textErrorCodesAreNotRetried(Vertx vertx, VertxTestContext ctx) {
        FakeChat slack = fake((n, req) -> req.response().setStatusCode(n == 0 ? 400 : 410)
                .end(n == 0 ? "invalid_payload" : "channel_is_archived"));
        FakeTime time = new FakeTime(NOW);
        slack.start(vertx)
                .compose(s -> {
                    SlackReceiver r = receiver(s.url(HOOK_PATH), time, 5, vertx);
                    Future<Void> first = r.send(List.of(XID_1));
                    Future<Void> second = r.send(List.of(XID_2));
                    return Future.join(first, second);
                })
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    assertEquals(2, slack.received.size(), "neither is retried");
                    ctx.completeNow();
                })));
    }

    @Test
    void invalidPayloadIsReportedAsNotRetryable(Vertx vertx, VertxTestContext ctx) {
        FakeChat slack = fake((n, req) -> req.response().setStatusCode(400).end("invalid_payload"));
        FakeTime time = new FakeTime(NOW);
        slack.start(vertx)
                .compose(s -> receiver(s.url(HOOK_PATH), time, 5, vertx).send(List.of(XID_1)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertFalse(failure.retryable());
                    assertEquals(1, failure.attempts());
                    assertTrue(failure.getMessage().contains("HTTP 400 from http://127.0.0.1:"), failure.getMessage());
                    assertTrue(failure.getMessage().contains("invalid_payload"), failure.getMessage());
                    assertFalse(failure.getMessage().contains("XSECRET"), failure.getMessage());
                    assertFalse(failure.getMessage().contains("T0001"), failure.getMessage());
                    ctx.completeNow();
                })));
    }

    @Test
    void rateLimitWaitsForRetryAfterAndHoldsTheQueue(Vertx vertx, VertxTestContext ctx) {
        FakeChat slack = fake((n, req) -> {
            if (n == 0) {
                req.response().setStatusCode(429).putHeader("Retry-After", "7").end("rate_limited");
            } else {
                req.response().setStatusCode(200).end("ok");
            }
        });
        FakeTime time = new FakeTime(NOW);
        slack.start(vertx)
                .compose(s -> {
                    SlackReceiver r = receiver(s.url(HOOK_PATH), time, 3, vertx);
                    return Future.all(r.send(List.of(XID_1)), r.send(List.of(XID_2)), r.send(List.of(HOT_RESOLVED)));
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(4, slack.received.size());
                    // 7 s as asked, then the queued messages one second apart.
                    assertEquals(List.of(7000L, 1000L, 1000L), time.waits);
                    List<String> order = slack.received.stream()
                            .map(r -> r.json().getJsonArray("blocks").getJsonObject(1).getJsonObject("text")
                                    .getString("text").substring(0, 12)).toList();
                    assertEquals(List.of("*xid-fallen-", "*xid-fallen-", "*xid-fallen-", "*gpu-hot* re"), order);
                    assertTrue(slack.received.get(1).body().contains("GPU-1111"), "the limited message goes first");
                    ctx.completeNow();
                })));
    }

    @Test
    void serverErrorsAreRetriedUntilDelivered(Vertx vertx, VertxTestContext ctx) {
        FakeChat slack = fake((n, req) -> req.response().setStatusCode(n < 2 ? 500 : 200).end(n < 2 ? "rollup_error" : "ok"));
        FakeTime time = new FakeTime(NOW);
        slack.start(vertx)
                .compose(s -> receiver(s.url(HOOK_PATH), time, 5, vertx).send(List.of(XID_1)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(3, slack.received.size());
                    // Each back-off (100 ms, 200 ms) is topped up to Slack's one-second spacing.
                    assertEquals(List.of(100L, 900L, 200L, 800L), time.waits);
                    ctx.completeNow();
                })));
    }

    @Test
    void configProblemsNameTheirFieldsAndNeverTheSecret() {
        Parsed<SlackConfig> literal = SlackConfig.parse(Map.of("url", "https://hooks.slack.com/services/T/B/X",
                "maxAttemps", 3), "receivers.s", SecretSource.ofEnv(Map.of()));
        assertNull(literal.value());
        assertEquals(List.of("receivers.s.maxAttemps", "receivers.s.url"),
                literal.problems().stream().map(ConfigProblem::path).sorted().toList());
        assertFalse(literal.problems().toString().contains("hooks.slack.com/services"), literal.problems().toString());

        Parsed<SlackConfig> notUrl = SlackConfig.parse(Map.of("url", Map.of("env", "U")), "receivers.s",
                SecretSource.ofEnv(Map.of("U", "hooks.slack.com/services/T/B/X")));
        assertEquals(1, notUrl.problems().size());
        assertTrue(notUrl.problems().get(0).message().contains("from env U"), notUrl.problems().toString());
        assertFalse(notUrl.problems().toString().contains("services/T"), notUrl.problems().toString());

        Parsed<SlackConfig> good = SlackConfig.parse(Map.of("url", Map.of("env", "U")), "receivers.s",
                SecretSource.ofEnv(Map.of("U", "https://hooks.slack.com/services/T/B/X")));
        assertEquals(Secret.of("https://hooks.slack.com/services/T/B/X", "env U"), good.value().url());
        assertFalse(good.value().toString().contains("services"), good.value().toString());
        assertEquals(1000, good.value().settings().minIntervalMs());
    }

    @Test
    void hostileTextIsEscapedCutBeforeEscapingAndKeepsTheLongAlertsText(Vertx vertx, VertxTestContext ctx) {
        FakeChat slack = ok();
        slack.start(vertx)
                .compose(s -> receiver(s.url(HOOK_PATH), new FakeTime(NOW), 1, vertx).send(List.of(HOSTILE, HOSTILE_TWIN)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    JsonObject message = slack.received.get(0).json();
                    String header = message.getJsonArray("blocks").getJsonObject(0).getJsonObject("text")
                            .getString("text");
                    String section = message.getJsonArray("blocks").getJsonObject(1).getJsonObject("text")
                            .getString("text");
                    // plain_text shows characters as typed, so the header carries no entities and is measured so.
                    assertTrue(header.startsWith("[firing] <at id=all></at>[x](https://evil.example)"), header);
                    assertTrue(header.codePointCount(0, header.length()) <= 150, header);
                    assertTrue(message.getString("text").contains("&lt;at id=all&gt;&lt;/at&gt;"),
                            "the fallback text is mrkdwn, so it is escaped: " + message.getString("text"));
                    Hostile.assertNoneOf(section + message.getString("text"), "<!channel>", "<@U024BE7LH>",
                            "<@zhangsan>", "<at id=all>");
                    assertTrue(section.codePointCount(0, section.length()) <= 3_000, "within Slack's section limit");
                    assertFalse(section.replaceAll("&(amp|lt|gt);", "").contains("&"),
                            "every & starts a whole entity, none was split by the cut");
                    Hostile.assertKeptText(section, "&lt;at id=all&gt;&lt;/at&gt; &lt;!channel&gt; &lt;@U024BE7LH&gt;",
                            1);
                    ctx.completeNow();
                })));
    }
}
