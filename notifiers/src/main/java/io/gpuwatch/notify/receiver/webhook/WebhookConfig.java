package io.gpuwatch.notify.receiver.webhook;

import io.gpuwatch.notify.Redaction;
import io.gpuwatch.notify.config.Fields;
import io.gpuwatch.notify.http.HttpUrls;
import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.retry.RetryPolicy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One Alertmanager-compatible webhook: where to post, how to authenticate, the per-attempt deadline, the retry
 * schedule, and how many alerts one payload may carry ({@code maxAlerts}, 0 = all; the rest are counted in
 * {@code truncatedAlerts}). {@code toString} hides the URL's path and query and the credentials.
 */
public record WebhookConfig(String url, HttpAuth auth, long timeoutMs, int maxAttempts, long initialBackoffMs,
                            long maxBackoffMs, int maxAlerts) {
    public static final long DEFAULT_TIMEOUT_MS = 5000;
    public static final int DEFAULT_MAX_ATTEMPTS = 6;
    public static final long DEFAULT_INITIAL_BACKOFF_MS = 200;
    public static final long DEFAULT_MAX_BACKOFF_MS = 10_000;
    public static final int DEFAULT_MAX_ALERTS = 0;

    private static final Set<String> FIELDS = Set.of("url", "bearerToken", "basicAuth", "timeoutMs", "maxAttempts",
            "initialBackoffMs", "maxBackoffMs", "maxAlerts");

    public WebhookConfig {
        Objects.requireNonNull(auth, "auth (use HttpAuth.NONE)");
        List<String> wrong = new ArrayList<>();
        String badUrl = HttpUrls.problem(url);
        if (badUrl != null) {
            wrong.add("url " + badUrl);
        }
        if (timeoutMs < 1) {
            wrong.add("timeoutMs must be at least 1, got " + timeoutMs);
        }
        if (maxAlerts < 0) {
            wrong.add("maxAlerts must be at least 0, got " + maxAlerts);
        }
        if (!wrong.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", wrong));
        }
        // The retry fields have one set of rules, kept where the schedule lives.
        new RetryPolicy(maxAttempts, initialBackoffMs, maxBackoffMs);
    }

    /** A webhook at {@code url} with no authentication and every default. */
    public static WebhookConfig of(String url) {
        return new WebhookConfig(url, HttpAuth.NONE, DEFAULT_TIMEOUT_MS, DEFAULT_MAX_ATTEMPTS,
                DEFAULT_INITIAL_BACKOFF_MS, DEFAULT_MAX_BACKOFF_MS, DEFAULT_MAX_ALERTS);
    }

    /** The retry schedule these fields describe. */
    public RetryPolicy retryPolicy() {
        return new RetryPolicy(maxAttempts, initialBackoffMs, maxBackoffMs);
    }

    /**
     * Reads a webhook from the fields of a config map: {@code url} (required), {@code bearerToken} or
     * {@code basicAuth: {username, password}} (secrets already resolved by the caller), {@code timeoutMs},
     * {@code maxAttempts}, {@code initialBackoffMs}, {@code maxBackoffMs}, {@code maxAlerts}. Every problem
     * names its field path under {@code path}; unknown fields are problems too.
     */
    public static Parsed<WebhookConfig> parse(Map<?, ?> map, String path) {
        Fields f = new Fields(map, path);
        f.only(FIELDS);
        String url = HttpUrls.read(f, "url");
        HttpAuth auth = auth(f);
        long timeoutMs = f.whole("timeoutMs", DEFAULT_TIMEOUT_MS, 1, Long.MAX_VALUE);
        RetryPolicy retry = RetryPolicy.read(f, new RetryPolicy(DEFAULT_MAX_ATTEMPTS, DEFAULT_INITIAL_BACKOFF_MS,
                DEFAULT_MAX_BACKOFF_MS), Integer.MAX_VALUE);
        int maxAlerts = (int) f.whole("maxAlerts", DEFAULT_MAX_ALERTS, 0, Integer.MAX_VALUE);
        if (!f.problems().isEmpty()) {
            return Parsed.failed(f.problems());
        }
        return Parsed.of(new WebhookConfig(url, auth, timeoutMs, retry.maxAttempts(), retry.initialBackoffMs(),
                retry.maxBackoffMs(), maxAlerts));
    }

    private static HttpAuth auth(Fields f) {
        boolean bearer = f.has("bearerToken");
        boolean basic = f.has("basicAuth");
        if (bearer && basic) {
            f.problem("basicAuth", "give either bearerToken or basicAuth, not both");
            return HttpAuth.NONE;
        }
        if (bearer) {
            String token = f.string("bearerToken", true);
            return token == null ? HttpAuth.NONE : guarded(f, "bearerToken", () -> new HttpAuth.Bearer(token));
        }
        if (basic) {
            Fields b = f.nested("basicAuth");
            if (b == null) {
                return HttpAuth.NONE;
            }
            b.only(Set.of("username", "password"));
            String user = b.string("username", true);
            String password = b.string("password", true);
            if (user == null || password == null) {
                return HttpAuth.NONE;
            }
            return guarded(f, "basicAuth", () -> new HttpAuth.Basic(user, password));
        }
        return HttpAuth.NONE;
    }

    private static HttpAuth guarded(Fields f, String key, Supplier<HttpAuth> make) {
        try {
            return make.get();
        } catch (IllegalArgumentException e) {
            f.problem(key, e.getMessage());
            return HttpAuth.NONE;
        }
    }

    /** The config with the URL cut to {@code scheme://host[:port]/…} and the credentials hidden. */
    @Override
    public String toString() {
        return "WebhookConfig[url=" + Redaction.url(url) + ", auth=" + auth + ", timeoutMs=" + timeoutMs
                + ", maxAttempts=" + maxAttempts + ", initialBackoffMs=" + initialBackoffMs + ", maxBackoffMs="
                + maxBackoffMs + ", maxAlerts=" + maxAlerts + "]";
    }
}
