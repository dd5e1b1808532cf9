package io.gpuwatch.notify.receiver.feishu;

import io.gpuwatch.notify.config.Fields;
import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.receiver.chat.ChatDelivery;
import io.gpuwatch.notify.receiver.chat.ChatSettings;
import io.gpuwatch.notify.render.Layout;
import io.gpuwatch.notify.secret.Secret;
import io.gpuwatch.notify.secret.SecretSource;

import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A Feishu/Lark custom bot: the hook URL (a secret, its last path segment is the bot's token), the optional
 * signing secret (required when the bot has "signature verification" on; null when off) and the chat settings.
 * A bot takes 100 requests a minute, so messages are spaced 600 ms apart by default.
 */
public record FeishuConfig(Secret url, Secret signingSecret, ChatSettings settings) {
    public static final long DEFAULT_MIN_INTERVAL_MS = 600;
    /** Default templates in lark_md; the title goes into the card header as plain text. */
    public static final Layout DEFAULT_LAYOUT = Layout.of(
            "[{{status}}] {{labels.alertname|\"alerts\"}} ({{firing}} firing, {{resolved}} resolved)",
            "**{{labels.alertname}}** {{status}} on {{labels.node|labels.instance|\"?\"}}: "
                    + "{{annotations.summary|annotations.description|labels}}");

    private static final Set<String> FIELDS = fields();

    public FeishuConfig {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(settings, "settings");
    }

    /**
     * Reads {@code url: {env|file}} (required), {@code secret: {env|file}} (the signing secret, optional) and
     * the {@link ChatSettings} fields; every problem names its field path under {@code path}, none echoes a secret.
     */
    public static Parsed<FeishuConfig> parse(Map<?, ?> fields, String path, SecretSource secrets) {
        Fields f = new Fields(fields, path);
        f.only(FIELDS);
        Secret url = secrets.read(f, "url", true);
        if (url != null) {
            ChatDelivery.checkUrl(f, "url", url);
        }
        Secret signing = secrets.read(f, "secret", false);
        ChatSettings settings = ChatSettings.read(f, ChatSettings.defaults(DEFAULT_MIN_INTERVAL_MS, DEFAULT_LAYOUT));
        if (!f.problems().isEmpty()) {
            return Parsed.failed(f.problems());
        }
        return Parsed.of(new FeishuConfig(url, signing, settings));
    }

    private static Set<String> fields() {
        Set<String> s = new HashSet<>(ChatSettings.KEYS);
        s.add("url");
        s.add("secret");
        return Set.copyOf(s);
    }
}
