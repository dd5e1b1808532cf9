package io.gpuwatch.notify.receiver.alertmanager;

import io.gpuwatch.notify.Redaction;
import io.gpuwatch.notify.config.Fields;
import io.gpuwatch.notify.http.HttpUrls;
import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.receiver.webhook.HttpAuth;
import io.gpuwatch.notify.retry.RetryPolicy;
import io.gpuwatch.notify.secret.Secret;
import io.gpuwatch.notify.secret.SecretSource;

import java.net.URI;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * An existing Alertmanager to hand alerts to: its base URL (any path prefix included; {@code /api/v2/alerts}
 * is appended), optional credentials, how often every firing alert is sent again ({@code resendIntervalMs};
 * a firing alert's {@code endsAt} is four of these ahead, as Prometheus does), the per-attempt deadline and the
 * retry schedule.
 */
public record AlertmanagerConfig(String url, HttpAuth auth, long resendIntervalMs, long timeoutMs, int maxAttempts,
                                 long initialBackoffMs, long maxBackoffMs) {
    /** A minute, Prometheus's {@code --rules.alert.resend-delay}. */
    public static final long DEFAULT_RESEND_INTERVAL_MS = 60_000;
    /** A day: an alert that lapses later than four days after the gateway is gone helps nobody. */
    public static final long MAX_RESEND_INTERVAL_MS = 86_400_000;
    /** How many re-send intervals a firing alert stays valid in Alertmanager: it survives three lost re-sends. */
    public static final int VALIDITY_INTERVALS = 4;
    public static final long DEFAULT_TIMEOUT_MS = 10_000;
    public static final int DEFAULT_MAX_ATTEMPTS = 6;
    public static final long DEFAULT_INITIAL_BACKOFF_MS = 500;
    public static final long DEFAULT_MAX_BACKOFF_MS = 30_000;

    private static final Set<String> FIELDS = Set.of("url", "bearerToken", "basicAuth", "resendIntervalMs",
            "timeoutMs", "maxAttempts", "initialBackoffMs", "maxBackoffMs");

    public AlertmanagerConfig {
        Objects.requireNonNull(auth, "auth (use HttpAuth.NONE)");
        String bad = urlProblem(url);
        if (bad != null) {
            throw new IllegalArgumentException("url " + bad);
        }
        url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        if (resendIntervalMs < 1000 || resendIntervalMs > MAX_RESEND_INTERVAL_MS) {
            throw new IllegalArgumentException("resendIntervalMs must be between 1000 and " + MAX_RESEND_INTERVAL_MS
                    + ", got " + resendIntervalMs);
        }
        if (timeoutMs < 1) {
            throw new IllegalArgumentException("timeoutMs must be at least 1, got " + timeoutMs);
        }
        new RetryPolicy(maxAttempts, initialBackoffMs, maxBackoffMs);
    }

    /** An unauthenticated Alertmanager at this base URL with every default. */
    public static AlertmanagerConfig of(String url) {
        return new AlertmanagerConfig(url, HttpAuth.NONE, DEFAULT_RESEND_INTERVAL_MS, DEFAULT_TIMEOUT_MS,
                DEFAULT_MAX_ATTEMPTS, DEFAULT_INITIAL_BACKOFF_MS, DEFAULT_MAX_BACKOFF_MS);
    }

    /** How long a firing alert stays valid in Alertmanager after a send: its {@code endsAt} from now. */
    public long firingValidityMs() {
        return VALIDITY_INTERVALS * resendIntervalMs;
    }

    /** The retry schedule these fields describe. */
    public RetryPolicy retryPolicy() {
        return new RetryPolicy(maxAttempts, initialBackoffMs, maxBackoffMs);
    }

    /**
     * Reads {@code url} (required), {@code bearerToken} (a secret) or {@code basicAuth: {username, password}}
     * (the password a secret), {@code resendIntervalMs}, {@code timeoutMs} and the retry fields. Every problem
     * names its field path under {@code path}.
     */
    public static Parsed<AlertmanagerConfig> parse(Map<?, ?> map, String path, SecretSource secrets) {
        Fields f = new Fields(map, path);
        f.only(FIELDS);
        String url = f.string("url", true);
        if (url != null && urlProblem(url) != null) {
            f.problem("url", urlProblem(url));
        }
        HttpAuth auth = auth(f, secrets);
        long resend = f.whole("resendIntervalMs", DEFAULT_RESEND_INTERVAL_MS, 1000, MAX_RESEND_INTERVAL_MS);
        long timeoutMs = f.whole("timeoutMs", DEFAULT_TIMEOUT_MS, 1, Long.MAX_VALUE);
        RetryPolicy retry = RetryPolicy.read(f, new RetryPolicy(DEFAULT_MAX_ATTEMPTS, DEFAULT_INITIAL_BACKOFF_MS,
                DEFAULT_MAX_BACKOFF_MS), Integer.MAX_VALUE);
        if (!f.problems().isEmpty()) {
            return Parsed.failed(f.problems());
        }
        return Parsed.of(new AlertmanagerConfig(url, auth, resend, timeoutMs, retry.maxAttempts(),
                retry.initialBackoffMs(), retry.maxBackoffMs()));
    }

    private static HttpAuth auth(Fields f, SecretSource secrets) {
        if (f.has("bearerToken") && f.has("basicAuth")) {
            f.problem("basicAuth", "give either bearerToken or basicAuth, not both");
            return HttpAuth.NONE;
        }
        try {
            if (f.has("bearerToken")) {
                Secret token = secrets.read(f, "bearerToken", true);
                return token == null ? HttpAuth.NONE : new HttpAuth.Bearer(token.reveal());
            }
            Fields basic = f.nested("basicAuth");
            if (basic == null) {
                return HttpAuth.NONE;
            }
            basic.only(Set.of("username", "password"));
            String user = basic.string("username", true);
            Secret password = secrets.read(basic, "password", true);
            return user == null || password == null ? HttpAuth.NONE : new HttpAuth.Basic(user, password.reveal());
        } catch (IllegalArgumentException e) {
            f.problem(f.has("bearerToken") ? "bearerToken" : "basicAuth", e.getMessage());
            return HttpAuth.NONE;
        }
    }

    /** Null when the base URL is an absolute http(s) URL with a host and no query; else what is wrong. */
    static String urlProblem(String url) {
        String bad = HttpUrls.problem(url);
        if (bad != null) {
            return bad;
        }
        return URI.create(url).getRawQuery() == null ? null
                : "must not have a query string (got " + Redaction.url(url) + ")";
    }
}
