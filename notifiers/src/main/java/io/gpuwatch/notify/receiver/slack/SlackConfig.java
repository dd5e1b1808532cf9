package io.gpuwatch.notify.receiver.slack;

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
 * A Slack incoming webhook: the webhook URL (a secret, since its path is the credential) and the chat
 * settings. Slack takes about one message per second per channel, so messages are spaced 1 s apart by default.
 */
public record SlackConfig(Secret url, ChatSettings settings) {
    public static final long DEFAULT_MIN_INTERVAL_MS = 1_000;
    /** Default templates in Slack mrkdwn; the title goes into a plain-text header block. */
    public static final Layout DEFAULT_LAYOUT = Layout.of(
            "[{{status}}] {{labels.alertname|\"alerts\"}} ({{firing}} firing, {{resolved}} resolved)",
            "*{{labels.alertname}}* {{status}} on {{labels.node|labels.instance|\"?\"}}: "
                    + "{{annotations.summary|annotations.description|labels}}");

    private static final Set<String> FIELDS = fields();

    public SlackConfig {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(settings, "settings");
    }

    /**
     * Reads {@code url: {env|file}} (required) and the {@link ChatSettings} fields; every problem names its
     * field path under {@code path}, and none echoes a secret.
     */
    public static Parsed<SlackConfig> parse(Map<?, ?> fields, String path, SecretSource secrets) {
        Fields f = new Fields(fields, path);
        f.only(FIELDS);
        Secret url = secrets.read(f, "url", true);
        if (url != null) {
            ChatDelivery.checkUrl(f, "url", url);
        }
        ChatSettings settings = ChatSettings.read(f, ChatSettings.defaults(DEFAULT_MIN_INTERVAL_MS, DEFAULT_LAYOUT));
        if (!f.problems().isEmpty()) {
            return Parsed.failed(f.problems());
        }
        return Parsed.of(new SlackConfig(url, settings));
    }

    private static Set<String> fields() {
        Set<String> s = new HashSet<>(ChatSettings.KEYS);
        s.add("url");
        return Set.copyOf(s);
    }
}
