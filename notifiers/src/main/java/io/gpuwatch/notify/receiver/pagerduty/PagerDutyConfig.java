package io.gpuwatch.notify.receiver.pagerduty;

import io.gpuwatch.notify.config.Fields;
import io.gpuwatch.notify.http.HttpUrls;
import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.render.Template;
import io.gpuwatch.notify.retry.RetryPolicy;
import io.gpuwatch.notify.secret.Secret;
import io.gpuwatch.notify.secret.SecretSource;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One PagerDuty Events API v2 integration: the endpoint (US, EU or an explicit URL), the integration's routing
 * key, the {@code summary} and {@code source} templates, how our {@code severity} label maps to PagerDuty's four
 * severities, the per-attempt deadline and the retry schedule. {@code toString} never shows the routing key.
 */
public record PagerDutyConfig(String url, Secret routingKey, String summary, String source,
                              Map<String, String> severities, long timeoutMs, int maxAttempts, long initialBackoffMs,
                              long maxBackoffMs) {
    public static final String US_URL = "https://events.pagerduty.com/v2/enqueue";
    public static final String EU_URL = "https://events.eu.pagerduty.com/v2/enqueue";
    public static final String DEFAULT_SUMMARY = "{{annotations.summary|labels.alertname}}";
    public static final String DEFAULT_SOURCE = "{{labels.node|labels.instance|\"gpuwatch\"}}";
    /** Our severity conventions and PagerDuty's own words; anything else pages as {@code error}. */
    public static final Map<String, String> DEFAULT_SEVERITIES = Map.of("page", "critical", "critical", "critical",
            "error", "error", "ticket", "warning", "warning", "warning", "notice", "info", "inspect", "info",
            "info", "info");
    public static final long DEFAULT_TIMEOUT_MS = 10_000;
    public static final int DEFAULT_MAX_ATTEMPTS = 6;
    public static final long DEFAULT_INITIAL_BACKOFF_MS = 500;
    public static final long DEFAULT_MAX_BACKOFF_MS = 60_000;

    private static final List<String> PD_SEVERITIES = List.of("critical", "error", "warning", "info");
    private static final Set<String> FIELDS = Set.of("routingKey", "region", "url", "summary", "source", "severities",
            "timeoutMs", "maxAttempts", "initialBackoffMs", "maxBackoffMs");

    public PagerDutyConfig {
        Objects.requireNonNull(routingKey, "routingKey");
        String bad = HttpUrls.problem(url);
        if (bad != null) {
            throw new IllegalArgumentException("url " + bad);
        }
        Template.compile(summary);
        Template.compile(source);
        severities = Map.copyOf(severities);
        severities.forEach((ours, theirs) -> {
            if (!PD_SEVERITIES.contains(theirs)) {
                throw new IllegalArgumentException("severity " + ours + " maps to " + theirs
                        + "; PagerDuty knows only critical, error, warning and info");
            }
        });
        if (timeoutMs < 1) {
            throw new IllegalArgumentException("timeoutMs must be at least 1, got " + timeoutMs);
        }
        new RetryPolicy(maxAttempts, initialBackoffMs, maxBackoffMs);
    }

    /** The US endpoint with this routing key and every default. */
    public static PagerDutyConfig of(Secret routingKey) {
        return new PagerDutyConfig(US_URL, routingKey, DEFAULT_SUMMARY, DEFAULT_SOURCE, DEFAULT_SEVERITIES,
                DEFAULT_TIMEOUT_MS, DEFAULT_MAX_ATTEMPTS, DEFAULT_INITIAL_BACKOFF_MS, DEFAULT_MAX_BACKOFF_MS);
    }

    /** The retry schedule these fields describe. */
    public RetryPolicy retryPolicy() {
        return new RetryPolicy(maxAttempts, initialBackoffMs, maxBackoffMs);
    }

    /** PagerDuty's severity for a notification's {@code severity} label. */
    public String severityFor(String ours) {
        return ours == null ? "error" : severities.getOrDefault(ours.toLowerCase(Locale.ROOT), "error");
    }

    /**
     * Reads {@code routingKey} (a secret, required), {@code region} ({@code us} or {@code eu}) or {@code url},
     * the {@code summary} and {@code source} templates, {@code severities} (ours to PagerDuty's, merged over the
     * defaults), {@code timeoutMs} and the retry fields. Every problem names its field path under {@code path}.
     */
    public static Parsed<PagerDutyConfig> parse(Map<?, ?> map, String path, SecretSource secrets) {
        Fields f = new Fields(map, path);
        f.only(FIELDS);
        Secret key = secrets.read(f, "routingKey", true);
        String url = HttpUrls.regional(f, US_URL, EU_URL);
        String summary = Template.read(f, "summary", DEFAULT_SUMMARY);
        String source = Template.read(f, "source", DEFAULT_SOURCE);
        Map<String, String> severities = f.names("severities", DEFAULT_SEVERITIES, PD_SEVERITIES);
        long timeoutMs = f.whole("timeoutMs", DEFAULT_TIMEOUT_MS, 1, Long.MAX_VALUE);
        RetryPolicy retry = RetryPolicy.read(f, new RetryPolicy(DEFAULT_MAX_ATTEMPTS, DEFAULT_INITIAL_BACKOFF_MS,
                DEFAULT_MAX_BACKOFF_MS), Integer.MAX_VALUE);
        if (!f.problems().isEmpty()) {
            return Parsed.failed(f.problems());
        }
        return Parsed.of(new PagerDutyConfig(url, key, summary, source, severities, timeoutMs, retry.maxAttempts(),
                retry.initialBackoffMs(), retry.maxBackoffMs()));
    }

}
