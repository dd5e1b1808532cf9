package io.gpuwatch.notify.receiver.feishu;

import io.gpuwatch.notify.receiver.chat.ChatDelivery;
import io.gpuwatch.notify.receiver.chat.Reply;
import io.gpuwatch.notify.retry.Outcome;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;

import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How a Feishu message ({@code {"msg_type": "interactive", "card": …}}) goes out: to a custom bot's hook, signed
 * for the moment of each attempt when the bot has a signing secret; or as a Feishu app's bot, to
 * {@code im/v1/messages} of its chat with the app's tenant access token, the card as the {@code content} string.
 */
final class FeishuPost {
    /** Feishu's codes for a tenant access token that is missing, invalid or expired: ask for another and retry. */
    private static final Set<Long> TOKEN_REFUSED = Set.of(99991661L, 99991663L, 99991677L);

    private final FeishuConfig config;
    private final InstantSource clock;
    private final TenantToken token;

    FeishuPost(FeishuConfig config, WebClient client, InstantSource clock) {
        this.config = config;
        this.clock = clock;
        this.token = config.app() == null ? null
                : new TenantToken(config.app(), client, clock, config.settings().timeoutMs());
    }

    /** Whether the messages go out as an app's bot, whose cards may carry buttons that call back. */
    boolean asApp() {
        return config.app() != null;
    }

    /** The URL messages go to, for the delivery's target. */
    String target() {
        return asApp() ? config.app().messagesUrl() : config.url().reveal();
    }

    /** What errors must never show: the signing secret or the App Secret. */
    List<String> secrets() {
        if (asApp()) {
            return List.of(config.app().secret().reveal());
        }
        return config.signingSecret() == null ? List.of() : List.of(config.signingSecret().reveal());
    }

    /** The request of one attempt to send {@code message}. */
    Future<ChatDelivery.Request> request(JsonObject message) {
        if (!asApp()) {
            return Future.succeededFuture(new ChatDelivery.Request(config.url().reveal(),
                    FeishuReceiver.signed(config, clock, message).toBuffer()));
        }
        JsonObject body = new JsonObject().put("receive_id", config.app().chat())
                .put("msg_type", message.getString("msg_type", "interactive"))
                .put("content", message.getJsonObject("card").encode());
        return token.get().map(t -> new ChatDelivery.Request(config.app().messagesUrl(), body.toBuffer(),
                Map.of("Authorization", "Bearer " + t)));
    }

    /** Feishu's answer, read as {@link FeishuReceiver#judge} does; a refused app token is renewed and retried. */
    Outcome judge(Reply reply) {
        JsonObject json = reply.json();
        if (asApp() && json != null && TOKEN_REFUSED.contains(json.getLong("code", 0L))) {
            token.forget();
            return Outcome.retry(reply.error("code " + json.getLong("code") + " " + json.getString("msg", "")
                    + " (the app's tenant access token was refused; a new one is asked for)"));
        }
        return FeishuReceiver.judge(reply);
    }
}
