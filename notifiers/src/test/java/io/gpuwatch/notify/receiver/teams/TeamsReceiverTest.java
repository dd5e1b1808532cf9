package io.gpuwatch.notify.receiver.teams;

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
class TeamsReceiverTest {
    private static final String FLOW = "/workflows/0a1b2c/triggers/manual/paths/invoke";
    private static final String QUERY = "api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=SIGSECRETSIG";

    /**
     * Answers as a Workflows trigger does: POST with JSON only, bodies over 28 KB refused with 413, an attachment
     * that is not an Adaptive Card refused with 400; anything else is queued (202) and handed to the script.
     */
    private static FakeChat teams(BiConsumer<Integer, HttpServerRequest> whenValid) {
        return new FakeChat((n, req, got) -> {
            if (!got.method().equals("POST") || !got.path().equals(FLOW) || !"SIGSECRETSIG".equals(got.params().get("sig"))) {
                req.response().setStatusCode(401).end("{\"error\":{\"code\":\"DirectApiAuthorizationRequired\"}}");
                return;
            }
            if (got.body().getBytes(StandardCharsets.UTF_8).length > 28 * 1024) {
                req.response().setStatusCode(413).end("Request Entity Too Large");
                return;
            }
            JsonObject body = got.json();
            JsonObject attachment = body.getJsonArray("attachments").getJsonObject(0);
            JsonObject card = attachment.getJsonObject("content");
            if (!"message".equals(body.getString("type"))
                    || !"application/vnd.microsoft.card.adaptive".equals(attachment.getString("contentType"))
                    || !"AdaptiveCard".equals(card.getString("type"))) {
                req.response().setStatusCode(400).end("{\"error\":{\"code\":\"InvalidRequestContent\","
                        + "\"message\":\"Property 'type' must be 'AdaptiveCard'\"}}");
                return;
            }
            whenValid.accept(n, req);
        });
    }

    private static FakeChat accepting() {
        return teams((n, req) -> req.response().setStatusCode(202).end());
    }

    private static TeamsReceiver receiver(String url, FakeTime time, int maxAttempts, Vertx vertx) {
        Parsed<TeamsConfig> parsed = TeamsConfig.parse(Map.of("url", Map.of("file", "/run/secrets/teams"),
                "maxAttempts", maxAttempts, "initialBackoffMs", 100), "receivers.ops-teams",
                new SecretSource(env -> null, file -> file.toString().equals("/run/secrets/teams") ? url + "\n" : null));
        assertTrue(parsed.ok(), parsed.problems().toString());
        return new TeamsReceiver("ops-teams", parsed.value(), time.sending(WebClient.create(vertx)), OnCall.NOBODY);
    }

    private static JsonArray cardBody(FakeChat.Received got) {
        return got.json().getJsonArray("attachments").getJsonObject(0).getJsonObject("content").getJsonArray("body");
    }

    @Test
    void batchIsOneAdaptiveCard(Vertx vertx, VertxTestContext ctx) {
        FakeChat teams = accepting();
        teams.start(vertx)
                .compose(s -> receiver(s.url(FLOW + "?" + QUERY), new FakeTime(NOW), 1, vertx).send(List.of(XID_1, XID_2)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    FakeChat.Received got = teams.received.get(0);
                    assertTrue(got.headers().get("Content-Type").startsWith("application/json"));
                    JsonObject attachment = got.json().getJsonArray("attachments").getJsonObject(0);
                    assertTrue(attachment.containsKey("contentUrl"));
                    JsonObject card = attachment.getJsonObject("content");
                    assertEquals("http://adaptivecards.io/schemas/adaptive-card.json", card.getString("$schema"));
                    assertEquals("1.5", card.getString("version"));
                    assertEquals(new JsonObject().put("width", "full"), card.getJsonObject("msteams"));
                    JsonArray body = card.getJsonArray("body");
                    assertEquals(new JsonObject().put("type", "TextBlock")
                            .put("text", "[firing] xid-fallen-off-bus (2 firing, 0 resolved)").put("weight", "Bolder")
                            .put("size", "Medium").put("wrap", true).put("style", "heading").put("color", "Attention"),
                            body.getJsonObject(0));
                    assertEquals(new JsonObject().put("type", "TextBlock").put("text",
                            "**xid-fallen-off-bus** firing on node-01: GPU-2222 on node-01 fell off the bus (XID 79)")
                            .put("wrap", true), body.getJsonObject(2));
                    ctx.completeNow();
                })));
    }

    @Test
    void resolvedBatchIsGreen(Vertx vertx, VertxTestContext ctx) {
        FakeChat teams = accepting();
        teams.start(vertx)
                .compose(s -> receiver(s.url(FLOW + "?" + QUERY), new FakeTime(NOW), 1, vertx).send(List.of(HOT_RESOLVED)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals("Good", cardBody(teams.received.get(0)).getJsonObject(0).getString("color"));
                    ctx.completeNow();
                })));
    }

    @Test
    void floodStaysUnderTheMessageLimitAndCountsTheRest(Vertx vertx, VertxTestContext ctx) {
        FakeChat teams = accepting();
        teams.start(vertx)
                .compose(s -> receiver(s.url(FLOW + "?" + QUERY), new FakeTime(NOW), 1, vertx).send(flood(300)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    JsonArray body = cardBody(teams.received.get(0));
                    int shown = body.size() - 2;
                    assertTrue(shown > 10, "keeps as many whole alerts as fit: " + shown);
                    assertEquals("+" + (300 - shown) + " more", body.getJsonObject(body.size() - 1).getString("text"));
                    ctx.completeNow();
                })));
    }

    @Test
    void throttlingWaitsForRetryAfterThenServerErrorsAreRetried(Vertx vertx, VertxTestContext ctx) {
        FakeChat teams = teams((n, req) -> {
            switch (n) {
                case 0 -> req.response().setStatusCode(429).putHeader("Retry-After", "2").end();
                case 1 -> req.response().setStatusCode(502).end("Bad Gateway");
                default -> req.response().setStatusCode(202).end();
            }
        });
        FakeTime time = new FakeTime(NOW);
        teams.start(vertx)
                .compose(s -> receiver(s.url(FLOW + "?" + QUERY), time, 5, vertx).send(List.of(XID_1)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(3, teams.received.size());
                    // 2 s as asked; then the 200 ms back-off, topped up by 50 ms to the 250 ms spacing.
                    assertEquals(List.of(2000L, 200L, 50L), time.waits);
                    ctx.completeNow();
                })));
    }

    @Test
    void rejectedCardFailsAtOnceWithoutLeakingTheSignature(Vertx vertx, VertxTestContext ctx) {
        FakeChat teams = teams((n, req) -> req.response().setStatusCode(400).end("{\"error\":{\"code\":"
                + "\"TriggerInputSchemaMismatch\",\"message\":\"rejected " + req.uri() + "\"}}"));
        teams.start(vertx)
                .compose(s -> receiver(s.url(FLOW + "?" + QUERY), new FakeTime(NOW), 5, vertx).send(List.of(XID_1)))
                .onComplete(ctx.failing(err -> ctx.verify(() -> {
                    DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, err);
                    assertFalse(failure.retryable());
                    assertEquals(1, teams.received.size());
                    assertTrue(failure.getMessage().contains("TriggerInputSchemaMismatch"), failure.getMessage());
                    assertFalse(failure.getMessage().contains("SIGSECRETSIG"), failure.getMessage());
                    assertFalse(failure.getMessage().contains("workflows"), failure.getMessage());
                    ctx.completeNow();
                })));
    }

    @Test
    void legacyConnectorUrlsAreRefused() {
        Parsed<TeamsConfig> parsed = TeamsConfig.parse(Map.of("url", Map.of("env", "T")), "receivers.t",
                SecretSource.ofEnv(Map.of("T", "https://contoso.webhook.office.com/webhookb2/abc@def/IncomingWebhook/x/y")));
        assertFalse(parsed.ok());
        assertEquals("receivers.t.url", parsed.problems().get(0).path());
        assertTrue(parsed.problems().get(0).message().contains("Workflows"), parsed.problems().toString());
        assertFalse(parsed.problems().toString().contains("IncomingWebhook"), parsed.problems().toString());
    }

    @Test
    void hostileTextIsEscapedAndTheLongAlertKeepsItsText(Vertx vertx, VertxTestContext ctx) {
        FakeChat teams = accepting();
        teams.start(vertx)
                .compose(s -> receiver(s.url(FLOW + "?" + QUERY), new FakeTime(NOW), 1, vertx)
                        .send(List.of(HOSTILE, HOSTILE_TWIN)))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    FakeChat.Received got = teams.received.get(0);
                    assertTrue(got.body().getBytes(StandardCharsets.UTF_8).length <= 28_000, "within Teams' 28 KB");
                    JsonArray body = cardBody(got);
                    String title = body.getJsonObject(0).getString("text");
                    assertTrue(title.contains("\\<at id=all\\>\\</at\\>\\[x\\](https://evil.example)"), title);
                    StringBuilder all = new StringBuilder();
                    body.forEach(block -> all.append(((JsonObject) block).getString("text")).append('\n'));
                    Hostile.assertNoneOf(all.toString(), "<at id=all>", "[click](", "[x](", "*bold*",
                            "_it_", "<!channel>");
                    Hostile.assertKeptText(body.getJsonObject(1).getString("text")
                            + "\n" + body.getJsonObject(2).getString("text"),
                            "\\<at id=all\\>\\</at\\> \\<!channel\\> \\<@U024BE7LH\\>", 1);
                    AdaptiveCardSchema.assertValid(got.json());
                    ctx.completeNow();
                })));
    }
}
