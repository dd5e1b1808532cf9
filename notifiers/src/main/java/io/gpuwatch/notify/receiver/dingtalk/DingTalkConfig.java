package io.gpuwatch.notify.receiver.dingtalk;

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
 * A DingTalk custom robot: the send URL with its {@code access_token} (a secret), the optional signing
 * secret ({@code SEC…}, required when the robot has "sign" security on; null when off) and the chat settings.
 * A robot takes 20 messages a minute and is blocked for 10 minutes above that, so messages are spaced 3 s apart.
 */
public record DingTalkConfig(Secret url, Secret signingSecret, ChatSettings settings) {
    public static final long DEFAULT_MIN_INTERVAL_MS = 3_000;
    /** Default templates in DingTalk markdown; the title is also the chat-list preview. */
    public static final Layout DEFAULT_LAYOUT = Layout.of(
            "[{{status}}] {{labels.alertname|\"alerts\"}} ({{firing}} firing, {{resolved}} resolved)",
            "- **{{labels.alertname}}** {{status}} on {{labels.node|labels.instance|\"?\"}}: "
                    + "{{annotations.summary|annotations.description|labels}}");

    private static final Set<String> FIELDS = fields();

    public DingTalkConfig {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(settings, "settings");
    }

    /**
     * Reads {@code url: {env|file}} (required, the robot's webhook with {@code access_token}),
     * {@code secret: {env|file}} (optional signing secret) and the {@link ChatSettings} fields; every problem
     * names its field path under {@code path}, none echoes a secret.
     */
    public static Parsed<DingTalkConfig> parse(Map<?, ?> fields, String path, SecretSource secrets) {
        Fields f = new Fields(fields, path);
        f.only(FIELDS);
        Secret url = secrets.read(f, "url", true);
        if (url != null && ChatDelivery.checkUrl(f, "url", url) && !url.reveal().contains("access_token=")) {
            f.problem("url", "has no access_token parameter (from " + url.source() + ")");
        }
        Secret signing = secrets.read(f, "secret", false);
        if (signing != null && !signing.reveal().startsWith("SEC")) {
            f.problem("secret", "is not a DingTalk signing secret (those start with SEC; from " + signing.source() + ")");
        }
        ChatSettings settings = ChatSettings.read(f, ChatSettings.defaults(DEFAULT_MIN_INTERVAL_MS, DEFAULT_LAYOUT));
        if (!f.problems().isEmpty()) {
            return Parsed.failed(f.problems());
        }
        return Parsed.of(new DingTalkConfig(url, signing, settings));
    }

    private static Set<String> fields() {
        Set<String> s = new HashSet<>(ChatSettings.KEYS);
        s.add("url");
        s.add("secret");
        return Set.copyOf(s);
    }
}
