package io.gpuwatch.notify.receiver.feishu;

import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.notify.receiver.chat.FakeChat;
import io.gpuwatch.notify.receiver.chat.FakeTime;
import io.gpuwatch.notify.secret.SecretSource;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.gpuwatch.notify.receiver.chat.Alerts.HOT_RESOLVED;
import static io.gpuwatch.notify.receiver.chat.Alerts.NOW;
import static io.gpuwatch.notify.receiver.chat.Alerts.XID_1;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Feishu receiver posting as an app's bot, against a local fake of Feishu's open platform that answers as the
 * documented endpoints do: the tenant access token asked for once and reused, the card posted to the chat through
 * {@code im/v1/messages} as a content string, carrying Acknowledge / Resolve / Silence 1h callback buttons for the
 * firing alerts; a token Feishu refuses is asked for again and the message retried.
 */
@ExtendWith(VertxExtension.class)
class FeishuAppTest {
    private static final String TOKEN_PATH = "/open-apis/auth/v3/tenant_access_token/internal";
    private static final String MESSAGES_PATH = "/open-apis/im/v1/messages";
    private static final String CHAT = "oc_e4d2605ca917e695f54f11aaf56f1de4";

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private final AtomicInteger tokens = new AtomicInteger();
    private final AtomicInteger refuseNext = new AtomicInteger();

    /** Feishu's open platform: a token per request to the token endpoint, messages checked for it. */
    private FakeChat openPlatform() {
        return new FakeChat((n, req, got) -> {
            if (got.path().equals(TOKEN_PATH)) {
                JsonObject asked = got.json();
                if (!"cli_a5fb0ae6a4e8d00c".equals(asked.getString("app_id"))
                        || !"app-secret-1".equals(asked.getString("app_secret"))) {
                    req.response().end(new JsonObject().put("code", 10014).put("msg", "app secret invalid").encode());
                    return;
                }
                int i = tokens.incrementAndGet();
                req.response().end(new JsonObject().put("code", 0).put("msg", "ok")
                        .put("tenant_access_token", "t-token" + i).put("expire", 7200).encode());
                return;
            }
            if (!got.path().equals(MESSAGES_PATH) || !"chat_id".equals(got.params().get("receive_id_type"))) {
                req.response().setStatusCode(404).end();
                return;
            }
            String bearer = got.headers().get("Authorization");
            if (refuseNext.getAndSet(0) > 0 || bearer == null || !bearer.equals("Bearer t-token" + tokens.get())) {
                req.response().setStatusCode(400).end(new JsonObject().put("code", 99991663)
                        .put("msg", "Invalid access token for authorization.").encode());
                return;
            }
            req.response().end(new JsonObject().put("code", 0).put("msg", "success")
                    .put("data", new JsonObject().put("message_id", "om_dc13264520392913993dd051dba21dcf")).encode());
        });
    }

    private static Parsed<FeishuConfig> config(Map<String, Object> fields) {
        return FeishuConfig.parse(fields, "receivers.lark", SecretSource.ofEnv(Map.of("APP_SECRET", "app-secret-1",
                "URL", "https://open.feishu.cn/open-apis/bot/v2/hook/0a1b2c")));
    }

    private FeishuReceiver receiver(Vertx vertx, FakeChat platform, boolean buttons) {
        Parsed<FeishuConfig> parsed = config(Map.of("app", Map.of("id", "cli_a5fb0ae6a4e8d00c",
                "secret", Map.of("env", "APP_SECRET"), "chat", CHAT, "host", platform.url(""))));
        assertTrue(parsed.ok(), parsed.problems().toString());
        FakeTime time = new FakeTime(NOW);
        return new FeishuReceiver("lark", parsed.value(), time.sending(WebClient.create(vertx)), OnCall.NOBODY, null,
                buttons);
    }

    private static List<FakeChat.Received> messages(FakeChat platform) {
        return platform.received.stream().filter(r -> r.path().equals(MESSAGES_PATH)).toList();
    }

    @Test
    void theAppsBotPostsTheCardWithCallbackButtonsUnderOneToken(Vertx vertx) throws Exception {
        FakeChat platform = openPlatform();
        await(platform.start(vertx));
        FeishuReceiver lark = receiver(vertx, platform, true);
        await(lark.send(List.of(XID_1, HOT_RESOLVED)));
        await(lark.send(List.of(HOT_RESOLVED)));

        assertEquals(1, tokens.get(), "the token is kept for the next message");
        JsonObject first = messages(platform).get(0).json();
        assertEquals(CHAT, first.getString("receive_id"));
        assertEquals("interactive", first.getString("msg_type"));
        JsonObject card = new JsonObject(first.getString("content"));
        JsonArray elements = card.getJsonArray("elements");
        JsonArray buttons = elements.getJsonObject(elements.size() - 1).getJsonArray("actions");
        assertEquals(3, buttons.size());
        assertEquals(new JsonObject().put("gpuwatch", "ack").put("f", XID_1.fingerprint()),
                buttons.getJsonObject(0).getJsonObject("value"), "the firing alert only");
        assertEquals("Resolve", buttons.getJsonObject(1).getJsonObject("text").getString("content"));
        assertEquals("silence", buttons.getJsonObject(2).getJsonObject("value").getString("gpuwatch"));
        assertFalse(messages(platform).get(1).json().getString("content").contains("\"action\""),
                "no buttons when nothing fires");
    }

    @Test
    void aRefusedTokenIsAskedForAgainAndTheMessageRetried(Vertx vertx) throws Exception {
        FakeChat platform = openPlatform();
        await(platform.start(vertx));
        FeishuReceiver lark = receiver(vertx, platform, false);
        await(lark.send(List.of(XID_1)));
        refuseNext.set(1);
        await(lark.send(List.of(XID_1)));
        assertEquals(2, tokens.get(), "Feishu refused the first token once");
        assertEquals(3, messages(platform).size(), "the refused message was sent again");
        assertFalse(messages(platform).get(0).json().getString("content").contains("\"action\""),
                "without buttons asked for, none");
    }

    @Test
    void anAppIsGivenInsteadOfACustomBotsUrlWithItsIds() {
        Parsed<FeishuConfig> both = config(Map.of("url", Map.of("env", "URL"), "app", Map.of("id",
                "cli_a5fb0ae6a4e8d00c", "secret", Map.of("env", "APP_SECRET"), "chat", CHAT)));
        assertFalse(both.ok());
        assertTrue(both.problems().toString().contains("receivers.lark.app"), both.problems().toString());
        Parsed<FeishuConfig> wrong = config(Map.of("app", Map.of("id", "a5fb0ae6", "secret",
                Map.of("env", "APP_SECRET"))));
        assertFalse(wrong.ok());
        String problems = wrong.problems().toString();
        assertTrue(problems.contains("receivers.lark.app.id"), problems);
        assertTrue(problems.contains("receivers.lark.app.chat"), problems);
        assertFalse(problems.contains("app-secret-1"), "never echoes the secret");
        Parsed<FeishuConfig> ok = config(Map.of("app", Map.of("id", "cli_a5fb0ae6a4e8d00c", "secret",
                Map.of("env", "APP_SECRET"), "chat", CHAT)));
        assertTrue(ok.ok(), ok.problems().toString());
        assertEquals("https://open.feishu.cn/open-apis/im/v1/messages?receive_id_type=chat_id",
                ok.value().app().messagesUrl());
    }
}
