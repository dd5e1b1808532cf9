package io.gpuwatch.notify.receiver.feishu;

import io.gpuwatch.notify.config.Fields;
import io.gpuwatch.notify.receiver.chat.ChatDelivery;
import io.gpuwatch.notify.secret.Secret;
import io.gpuwatch.notify.secret.SecretSource;

import java.util.Objects;
import java.util.Set;

/**
 * A Feishu/Lark app whose bot posts the cards instead of a custom bot, so that their buttons call back (a custom
 * bot's card can only open links): the app id, its App Secret, the chat ({@code oc_…}) the bot is a member of,
 * and the open platform's host ({@code https://open.feishu.cn}, or {@code https://open.larksuite.com} for Lark).
 */
public record FeishuApp(String id, Secret secret, String chat, String host) {
    static final String DEFAULT_HOST = "https://open.feishu.cn";
    private static final Set<String> FIELDS = Set.of("id", "secret", "chat", "host");

    public FeishuApp {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(secret, "secret");
        Objects.requireNonNull(chat, "chat");
        Objects.requireNonNull(host, "host");
    }

    /** Reads {@code app: {id, secret: {env|file}, chat, host?}}; null after recording each problem. */
    static FeishuApp read(Fields f, SecretSource secrets) {
        f.only(FIELDS);
        String id = f.string("id", true);
        if (id != null && !id.matches("cli_[A-Za-z0-9]+")) {
            f.problem("id", "a Feishu app id looks like cli_a5fb0ae6a4e8d00c");
        }
        Secret secret = secrets.read(f, "secret", true);
        String chat = f.string("chat", true);
        if (chat != null && !chat.matches("oc_[A-Za-z0-9]+")) {
            f.problem("chat", "a Feishu chat id looks like oc_e4d2605ca917e695f54f11aaf56f1de4");
        }
        String host = f.has("host") ? f.string("host", true) : DEFAULT_HOST;
        if (host != null && f.has("host")) {
            ChatDelivery.checkUrl(f, "host", Secret.of(host, "the host field"));
        }
        if (id == null || secret == null || chat == null || host == null) {
            return null;
        }
        return new FeishuApp(id, secret, chat, host.replaceAll("/+$", ""));
    }

    /** Where the app's tenant access token is asked for. */
    String tokenUrl() {
        return host + "/open-apis/auth/v3/tenant_access_token/internal";
    }

    /** Where the bot posts a message to a chat. */
    String messagesUrl() {
        return host + "/open-apis/im/v1/messages?receive_id_type=chat_id";
    }
}
