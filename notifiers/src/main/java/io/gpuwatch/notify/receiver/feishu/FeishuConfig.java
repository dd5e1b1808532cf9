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
 * signing secret (required when the bot has "signature verification" on; null when off) and the chat settings;
 * or instead of the hook, a Feishu app whose bot posts to a chat ({@code app}, null for a custom bot), whose cards
 * can carry buttons that call back. A bot takes 100 requests a minute, so messages are spaced 600 ms apart by
 * default.
 */
public record FeishuConfig(Secret url, Secret signingSecret, ChatSettings settings, FeishuApp app) {
    public static final long DEFAULT_MIN_INTERVAL_MS = 600;
    /** Default templates in lark_md; the title goes into the card header as plain text. */
    public static final Layout DEFAULT_LAYOUT = Layout.of(
            "[{{status}}] {{labels.alertname|\"alerts\"}} ({{firing}} firing, {{resolved}} resolved)",
            "**{{labels.alertname}}** {{status}} on {{labels.node|labels.instance|\"?\"}}: "
                    + "{{annotations.summary|annotations.description|labels}}");

    private static final Set<String> FIELDS = fields();

    public FeishuConfig {
        if ((url == null) == (app == null)) {
            throw new IllegalArgumentException("a Feishu receiver posts either through a custom bot's url or as an app");
        }
        Objects.requireNonNull(settings, "settings");
    }

    /** A custom bot. */
    public FeishuConfig(Secret url, Secret signingSecret, ChatSettings settings) {
        this(url, signingSecret, settings, null);
    }

    /**
     * Reads {@code url: {env|file}} (a custom bot's hook) or {@code app: {id, secret, chat, host?}} (an app's bot,
     * {@link FeishuApp}), exactly one of them, {@code secret: {env|file}} (a custom bot's signing secret,
     * optional) and the {@link ChatSettings} fields; every problem names its field path under {@code path}, none
     * echoes a secret.
     */
    public static Parsed<FeishuConfig> parse(Map<?, ?> fields, String path, SecretSource secrets) {
        Fields f = new Fields(fields, path);
        f.only(FIELDS);
        FeishuApp app = null;
        Secret url = null;
        if (f.has("app")) {
            if (f.has("url") || f.has("secret")) {
                f.problem("app", "an app's bot posts with the app's token: give either `url` (and `secret`) of a "
                        + "custom bot or `app`, not both");
            }
            Fields a = f.nested("app");
            app = a == null ? null : FeishuApp.read(a, secrets);
            if (app == null && f.problems().isEmpty()) {
                f.problem("app", "expected {id, secret, chat}");
            }
        } else {
            url = secrets.read(f, "url", true);
            if (url != null) {
                ChatDelivery.checkUrl(f, "url", url);
            }
        }
        Secret signing = app == null ? secrets.read(f, "secret", false) : null;
        ChatSettings settings = ChatSettings.read(f, ChatSettings.defaults(DEFAULT_MIN_INTERVAL_MS, DEFAULT_LAYOUT));
        if (!f.problems().isEmpty()) {
            return Parsed.failed(f.problems());
        }
        return Parsed.of(new FeishuConfig(url, signing, settings, app));
    }

    private static Set<String> fields() {
        Set<String> s = new HashSet<>(ChatSettings.KEYS);
        s.add("url");
        s.add("secret");
        s.add("app");
        return Set.copyOf(s);
    }
}
