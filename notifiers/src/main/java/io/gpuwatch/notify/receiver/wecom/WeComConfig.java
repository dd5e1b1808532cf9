package io.gpuwatch.notify.receiver.wecom;

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
 * A WeCom (WeChat Work) group robot: the webhook URL with its {@code key} (a secret; WeCom has no signing) and
 * the chat settings. A robot takes 20 messages a minute, so messages are spaced 3 s apart by default.
 */
public record WeComConfig(Secret url, ChatSettings settings) {
    public static final long DEFAULT_MIN_INTERVAL_MS = 3_000;
    /** Default templates in WeCom markdown ({@code <font color="warning|info|comment">}, {@code <@userid>}). */
    public static final Layout DEFAULT_LAYOUT = Layout.of(
            "[{{status}}] {{labels.alertname|\"alerts\"}} ({{firing}} firing, {{resolved}} resolved)",
            "> **{{labels.alertname}}** <font color=\"warning\">{{status}}</font> on "
                    + "{{labels.node|labels.instance|\"?\"}}: {{annotations.summary|annotations.description|labels}}");

    private static final Set<String> FIELDS = fields();

    public WeComConfig {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(settings, "settings");
    }

    /**
     * Reads {@code url: {env|file}} (required, the robot's webhook with {@code key}) and the
     * {@link ChatSettings} fields; every problem names its field path under {@code path}, none echoes a secret.
     */
    public static Parsed<WeComConfig> parse(Map<?, ?> fields, String path, SecretSource secrets) {
        Fields f = new Fields(fields, path);
        f.only(FIELDS);
        Secret url = secrets.read(f, "url", true);
        if (url != null && ChatDelivery.checkUrl(f, "url", url) && !url.reveal().contains("key=")) {
            f.problem("url", "has no key parameter (from " + url.source() + ")");
        }
        ChatSettings settings = ChatSettings.read(f, ChatSettings.defaults(DEFAULT_MIN_INTERVAL_MS, DEFAULT_LAYOUT));
        if (!f.problems().isEmpty()) {
            return Parsed.failed(f.problems());
        }
        return Parsed.of(new WeComConfig(url, settings));
    }

    private static Set<String> fields() {
        Set<String> s = new HashSet<>(ChatSettings.KEYS);
        s.add("url");
        return Set.copyOf(s);
    }
}
