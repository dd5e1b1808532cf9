package io.gpuwatch.notify.receiver.opsgenie;

import io.gpuwatch.notify.config.Fields;
import io.gpuwatch.notify.http.HttpUrls;
import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.render.Template;
import io.gpuwatch.notify.retry.RetryPolicy;
import io.gpuwatch.notify.secret.Secret;
import io.gpuwatch.notify.secret.SecretSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One Opsgenie integration: the API host (US, EU or an explicit base URL), the API key, the {@code message}
 * and {@code description} templates, who is notified ({@code responders}), static {@code tags}, how our
 * {@code severity} label maps to P1–P5, the per-attempt deadline and the retry schedule. {@code toString}
 * never shows the key.
 */
public record OpsgenieConfig(String url, Secret apiKey, String message, String description,
                             List<Responder> responders, List<String> tags, Map<String, String> priorities,
                             long timeoutMs, int maxAttempts, long initialBackoffMs, long maxBackoffMs) {
    public static final String US_URL = "https://api.opsgenie.com";
    public static final String EU_URL = "https://api.eu.opsgenie.com";
    public static final String DEFAULT_MESSAGE = "{{annotations.summary|labels.alertname}}";
    public static final String DEFAULT_DESCRIPTION = """
            {{annotations.description|annotations.summary|labels.alertname}}

            Labels: {{labels}}
            Runbook: {{annotations.runbook|"-"}}
            Alert: {{generatorURL|"-"}}""";
    /** Our severity conventions and common words; anything else is Opsgenie's default, P3. */
    public static final Map<String, String> DEFAULT_PRIORITIES = Map.of("page", "P1", "critical", "P1", "error", "P2",
            "ticket", "P3", "warning", "P3", "notice", "P5", "inspect", "P5", "info", "P5");
    public static final long DEFAULT_TIMEOUT_MS = 10_000;
    public static final int DEFAULT_MAX_ATTEMPTS = 6;
    public static final long DEFAULT_INITIAL_BACKOFF_MS = 500;
    public static final long DEFAULT_MAX_BACKOFF_MS = 60_000;

    private static final List<String> PRIORITIES = List.of("P1", "P2", "P3", "P4", "P5");
    private static final Set<String> FIELDS = Set.of("apiKey", "region", "url", "message", "description",
            "responders", "tags", "priorities", "timeoutMs", "maxAttempts", "initialBackoffMs", "maxBackoffMs");

    /** Who Opsgenie notifies: a {@code team}, {@code user} (by username), {@code escalation} or {@code schedule}. */
    public record Responder(String type, String name) {
        static final Set<String> TYPES = Set.of("team", "user", "escalation", "schedule");

        public Responder {
            if (!TYPES.contains(type)) {
                throw new IllegalArgumentException("responder type must be team, user, escalation or schedule, got "
                        + type);
            }
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("responder name must not be empty");
            }
        }
    }

    public OpsgenieConfig {
        Objects.requireNonNull(apiKey, "apiKey");
        String bad = HttpUrls.problem(url);
        if (bad != null) {
            throw new IllegalArgumentException("url " + bad);
        }
        url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        Template.compile(message);
        Template.compile(description);
        responders = List.copyOf(responders);
        tags = List.copyOf(tags);
        priorities = Map.copyOf(priorities);
        priorities.forEach((ours, theirs) -> {
            if (!PRIORITIES.contains(theirs)) {
                throw new IllegalArgumentException("severity " + ours + " maps to " + theirs + "; use P1 to P5");
            }
        });
        if (timeoutMs < 1) {
            throw new IllegalArgumentException("timeoutMs must be at least 1, got " + timeoutMs);
        }
        new RetryPolicy(maxAttempts, initialBackoffMs, maxBackoffMs);
    }

    /** The US host with this key, no responders or tags, and every default. */
    public static OpsgenieConfig of(Secret apiKey) {
        return new OpsgenieConfig(US_URL, apiKey, DEFAULT_MESSAGE, DEFAULT_DESCRIPTION, List.of(), List.of(),
                DEFAULT_PRIORITIES, DEFAULT_TIMEOUT_MS, DEFAULT_MAX_ATTEMPTS, DEFAULT_INITIAL_BACKOFF_MS,
                DEFAULT_MAX_BACKOFF_MS);
    }

    /** The retry schedule these fields describe. */
    public RetryPolicy retryPolicy() {
        return new RetryPolicy(maxAttempts, initialBackoffMs, maxBackoffMs);
    }

    /** Opsgenie's priority for a notification's {@code severity} label. */
    public String priorityFor(String ours) {
        return ours == null ? "P3" : priorities.getOrDefault(ours.toLowerCase(Locale.ROOT), "P3");
    }

    /**
     * Reads {@code apiKey} (a secret, required), {@code region} ({@code us} or {@code eu}) or {@code url} (the
     * API's base), the {@code message} and {@code description} templates, {@code responders} (a list of
     * {@code {type, name}}), {@code tags}, {@code priorities} (merged over the defaults), {@code timeoutMs} and
     * the retry fields. Every problem names its field path under {@code path}.
     */
    public static Parsed<OpsgenieConfig> parse(Map<?, ?> map, String path, SecretSource secrets) {
        Fields f = new Fields(map, path);
        f.only(FIELDS);
        Secret key = secrets.read(f, "apiKey", true);
        String url = HttpUrls.regional(f, US_URL, EU_URL);
        String message = Template.read(f, "message", DEFAULT_MESSAGE);
        String description = Template.read(f, "description", DEFAULT_DESCRIPTION);
        List<Responder> responders = responders(f, map.get("responders"));
        List<String> tags = tags(f, map.get("tags"));
        Map<String, String> priorities = f.names("priorities", DEFAULT_PRIORITIES, PRIORITIES);
        long timeoutMs = f.whole("timeoutMs", DEFAULT_TIMEOUT_MS, 1, Long.MAX_VALUE);
        RetryPolicy retry = RetryPolicy.read(f, new RetryPolicy(DEFAULT_MAX_ATTEMPTS, DEFAULT_INITIAL_BACKOFF_MS,
                DEFAULT_MAX_BACKOFF_MS), Integer.MAX_VALUE);
        if (!f.problems().isEmpty()) {
            return Parsed.failed(f.problems());
        }
        return Parsed.of(new OpsgenieConfig(url, key, message, description, responders, tags, priorities, timeoutMs,
                retry.maxAttempts(), retry.initialBackoffMs(), retry.maxBackoffMs()));
    }

    private static List<Responder> responders(Fields f, Object raw) {
        List<Responder> out = new ArrayList<>();
        if (raw == null) {
            return out;
        }
        if (!(raw instanceof List<?> list)) {
            f.problem("responders", "expected a list of {type, name}");
            return out;
        }
        for (int i = 0; i < list.size(); i++) {
            String at = "responders[" + i + "]";
            if (!(list.get(i) instanceof Map<?, ?> item)) {
                f.problem(at, "expected {type, name}");
                continue;
            }
            Object type = item.get("type");
            Object name = item.get("name");
            if (!(type instanceof String t) || !Responder.TYPES.contains(t)) {
                f.problem(at + ".type", "must be team, user, escalation or schedule");
            } else if (!(name instanceof String n) || n.isBlank()) {
                f.problem(at + ".name", "is required (a team, escalation or schedule name, or a username)");
            } else {
                out.add(new Responder(t, n));
            }
            for (Object k : item.keySet()) {
                if (!k.equals("type") && !k.equals("name")) {
                    f.problem(at + "." + k, "unknown field; expected one of name, type");
                }
            }
        }
        return out;
    }

    private static List<String> tags(Fields f, Object raw) {
        List<String> out = new ArrayList<>();
        if (raw == null) {
            return out;
        }
        if (!(raw instanceof List<?> list)) {
            f.problem("tags", "expected a list of text");
            return out;
        }
        for (int i = 0; i < list.size(); i++) {
            if (!(list.get(i) instanceof String tag) || tag.isBlank()) {
                f.problem("tags[" + i + "]", "expected text");
            } else if (tag.length() > OpsgenieAlert.TAG_CHARS) {
                f.problem("tags[" + i + "]", "must be at most " + OpsgenieAlert.TAG_CHARS + " characters");
            } else {
                out.add(tag);
            }
        }
        if (out.size() > OpsgenieAlert.MAX_TAGS) {
            f.problem("tags", "at most " + OpsgenieAlert.MAX_TAGS + " tags, got " + out.size());
        }
        return out;
    }

}
