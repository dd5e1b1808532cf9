package io.gpuwatch.notify.receiver.teams;

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
 * A Microsoft Teams Workflows webhook ("Send webhook alerts to a channel"): the workflow URL (a secret, its
 * {@code sig=} parameter is the credential) and the chat settings. Teams throttles above 4 requests a second,
 * so messages are spaced 250 ms apart by default. Legacy Office 365 connector URLs are retired and refused.
 */
public record TeamsConfig(Secret url, ChatSettings settings) {
    public static final long DEFAULT_MIN_INTERVAL_MS = 250;
    /** Default templates in the Markdown subset that Adaptive Card TextBlocks render. */
    public static final Layout DEFAULT_LAYOUT = Layout.of(
            "[{{status}}] {{labels.alertname|\"alerts\"}} ({{firing}} firing, {{resolved}} resolved)",
            "**{{labels.alertname}}** {{status}} on {{labels.node|labels.instance|\"?\"}}: "
                    + "{{annotations.summary|annotations.description|labels}}");

    private static final Set<String> FIELDS = fields();

    public TeamsConfig {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(settings, "settings");
    }

    /**
     * Reads {@code url: {env|file}} (required) and the {@link ChatSettings} fields; every problem names its
     * field path under {@code path}, and none echoes a secret.
     */
    public static Parsed<TeamsConfig> parse(Map<?, ?> fields, String path, SecretSource secrets) {
        Fields f = new Fields(fields, path);
        f.only(FIELDS);
        Secret url = secrets.read(f, "url", true);
        if (url != null && ChatDelivery.checkUrl(f, "url", url) && url.reveal().contains("/webhookb2/")) {
            f.problem("url", "is a legacy Office 365 connector URL (retired); create a Workflows webhook instead"
                    + " (from " + url.source() + ")");
        }
        ChatSettings settings = ChatSettings.read(f, ChatSettings.defaults(DEFAULT_MIN_INTERVAL_MS, DEFAULT_LAYOUT));
        if (!f.problems().isEmpty()) {
            return Parsed.failed(f.problems());
        }
        return Parsed.of(new TeamsConfig(url, settings));
    }

    private static Set<String> fields() {
        Set<String> s = new HashSet<>(ChatSettings.KEYS);
        s.add("url");
        return Set.copyOf(s);
    }
}
