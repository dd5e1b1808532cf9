package io.gpuwatch.notify.receiver.jira;

import io.gpuwatch.notify.config.Fields;
import io.gpuwatch.notify.http.HttpUrls;
import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.receiver.webhook.HttpAuth;
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
 * One Jira project that gets a ticket per alert fingerprint: the site, the REST API version (3 for Cloud with
 * Atlassian Document Format, 2 for Data Center with plain text), the project and issue type, credentials
 * (Cloud: basic {@code email:apiToken}; Data Center: a bearer personal access token), the templates for the
 * summary, description and the comments on repeats and on resolve, the transition that resolves a ticket,
 * extra labels, severity-to-priority names, the per-attempt deadline and the retry schedule.
 */
public record JiraConfig(String url, int apiVersion, String project, String issueType, HttpAuth auth,
                         String summary, String description, String comment, String resolvedComment,
                         String resolveTransition, List<String> labels, Map<String, String> priorities,
                         long timeoutMs, int maxAttempts, long initialBackoffMs, long maxBackoffMs) {
    public static final String DEFAULT_ISSUE_TYPE = "Task";
    public static final String DEFAULT_SUMMARY = "[gpuwatch] {{annotations.summary|labels.alertname}}";
    public static final String DEFAULT_DESCRIPTION = """
            {{annotations.description|annotations.summary|labels.alertname}}

            Labels: {{labels}}
            Firing since: {{startsAt}}
            Runbook: {{annotations.runbook|"-"}}
            Alert: {{generatorURL|"-"}}
            Fingerprint: {{fingerprint}}""";
    public static final String DEFAULT_COMMENT = "Still firing: {{annotations.summary|labels.alertname}} "
            + "(since {{startsAt}}).";
    public static final String DEFAULT_RESOLVED_COMMENT = "Resolved at {{endsAt}}.";
    public static final String DEFAULT_RESOLVE_TRANSITION = "Done";
    public static final long DEFAULT_TIMEOUT_MS = 10_000;
    public static final int DEFAULT_MAX_ATTEMPTS = 6;
    public static final long DEFAULT_INITIAL_BACKOFF_MS = 500;
    public static final long DEFAULT_MAX_BACKOFF_MS = 60_000;

    private static final Set<String> FIELDS = Set.of("url", "apiVersion", "project", "issueType", "email", "apiToken",
            "token", "summary", "description", "comment", "resolvedComment", "resolveTransition", "labels",
            "priorities", "timeoutMs", "maxAttempts", "initialBackoffMs", "maxBackoffMs");

    public JiraConfig {
        String bad = HttpUrls.problem(url);
        if (bad != null) {
            throw new IllegalArgumentException("url " + bad);
        }
        url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        if (apiVersion != 2 && apiVersion != 3) {
            throw new IllegalArgumentException("apiVersion must be 2 or 3, got " + apiVersion);
        }
        requireText("project", project);
        requireText("issueType", issueType);
        requireText("resolveTransition", resolveTransition);
        Objects.requireNonNull(auth, "auth");
        if (auth instanceof HttpAuth.None) {
            throw new IllegalArgumentException("Jira needs credentials: email and apiToken, or token");
        }
        Template.compile(summary);
        Template.compile(description);
        Template.compile(comment);
        Template.compile(resolvedComment);
        labels = List.copyOf(labels);
        labels.forEach(JiraConfig::checkLabel);
        priorities = Map.copyOf(priorities);
        if (timeoutMs < 1) {
            throw new IllegalArgumentException("timeoutMs must be at least 1, got " + timeoutMs);
        }
        new RetryPolicy(maxAttempts, initialBackoffMs, maxBackoffMs);
    }

    /** A v3 (Cloud) project with these credentials and every default. */
    public static JiraConfig of(String url, String project, HttpAuth auth) {
        return new JiraConfig(url, 3, project, DEFAULT_ISSUE_TYPE, auth, DEFAULT_SUMMARY, DEFAULT_DESCRIPTION,
                DEFAULT_COMMENT, DEFAULT_RESOLVED_COMMENT, DEFAULT_RESOLVE_TRANSITION, List.of(), Map.of(),
                DEFAULT_TIMEOUT_MS, DEFAULT_MAX_ATTEMPTS, DEFAULT_INITIAL_BACKOFF_MS, DEFAULT_MAX_BACKOFF_MS);
    }

    /** The retry schedule these fields describe. */
    public RetryPolicy retryPolicy() {
        return new RetryPolicy(maxAttempts, initialBackoffMs, maxBackoffMs);
    }

    /** The Jira priority name for a notification's {@code severity} label, or null to leave Jira's default. */
    public String priorityFor(String severity) {
        return severity == null ? null : priorities.get(severity.toLowerCase(Locale.ROOT));
    }

    /**
     * Reads {@code url} (the site, required), {@code apiVersion} (2 or 3, default 3), {@code project} (key,
     * required), {@code issueType}, credentials ({@code email} with the secret {@code apiToken}, or the secret
     * {@code token}), the {@code summary}, {@code description}, {@code comment} and {@code resolvedComment}
     * templates, {@code resolveTransition}, {@code labels}, {@code priorities}, {@code timeoutMs} and the retry
     * fields. Every problem names its field path under {@code path}; no secret is ever echoed.
     */
    public static Parsed<JiraConfig> parse(Map<?, ?> map, String path, SecretSource secrets) {
        Fields f = new Fields(map, path);
        f.only(FIELDS);
        String url = HttpUrls.read(f, "url");
        int apiVersion = (int) f.whole("apiVersion", 3, 2, 3);
        String project = f.string("project", true);
        String issueType = f.has("issueType") ? f.string("issueType", true) : DEFAULT_ISSUE_TYPE;
        HttpAuth auth = auth(f, secrets);
        String summary = Template.read(f, "summary", DEFAULT_SUMMARY);
        String description = Template.read(f, "description", DEFAULT_DESCRIPTION);
        String comment = Template.read(f, "comment", DEFAULT_COMMENT);
        String resolvedComment = Template.read(f, "resolvedComment", DEFAULT_RESOLVED_COMMENT);
        String transition = f.has("resolveTransition") ? f.string("resolveTransition", true)
                : DEFAULT_RESOLVE_TRANSITION;
        List<String> labels = labels(f, map.get("labels"));
        Map<String, String> priorities = f.names("priorities", Map.of(), List.of());
        long timeoutMs = f.whole("timeoutMs", DEFAULT_TIMEOUT_MS, 1, Long.MAX_VALUE);
        RetryPolicy retry = RetryPolicy.read(f, new RetryPolicy(DEFAULT_MAX_ATTEMPTS, DEFAULT_INITIAL_BACKOFF_MS,
                DEFAULT_MAX_BACKOFF_MS), Integer.MAX_VALUE);
        if (!f.problems().isEmpty()) {
            return Parsed.failed(f.problems());
        }
        return Parsed.of(new JiraConfig(url, apiVersion, project, issueType, auth, summary, description, comment,
                resolvedComment, transition, labels, priorities, timeoutMs, retry.maxAttempts(),
                retry.initialBackoffMs(), retry.maxBackoffMs()));
    }

    private static HttpAuth auth(Fields f, SecretSource secrets) {
        boolean basic = f.has("email") || f.has("apiToken");
        if (basic && f.has("token")) {
            f.problem("token", "give either email with apiToken (Jira Cloud) or token (Data Center), not both");
            return HttpAuth.NONE;
        }
        if (!basic && !f.has("token")) {
            f.problem("apiToken", "credentials are required: email with apiToken (Jira Cloud) or token (Data Center)");
            return HttpAuth.NONE;
        }
        try {
            if (basic) {
                String email = f.string("email", true);
                Secret token = secrets.read(f, "apiToken", true);
                return email == null || token == null ? HttpAuth.NONE : new HttpAuth.Basic(email, token.reveal());
            }
            Secret token = secrets.read(f, "token", true);
            return token == null ? HttpAuth.NONE : new HttpAuth.Bearer(token.reveal());
        } catch (IllegalArgumentException e) {
            f.problem(basic ? "apiToken" : "token", e.getMessage());
            return HttpAuth.NONE;
        }
    }

    private static List<String> labels(Fields f, Object raw) {
        List<String> out = new ArrayList<>();
        if (raw == null) {
            return out;
        }
        if (!(raw instanceof List<?> list)) {
            f.problem("labels", "expected a list of text");
            return out;
        }
        for (int i = 0; i < list.size(); i++) {
            try {
                if (!(list.get(i) instanceof String label)) {
                    throw new IllegalArgumentException("expected text");
                }
                checkLabel(label);
                out.add(label);
            } catch (IllegalArgumentException e) {
                f.problem("labels[" + i + "]", e.getMessage());
            }
        }
        return out;
    }

    private static void checkLabel(String label) {
        if (label.isEmpty() || label.length() > 255 || label.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("a Jira label is 1 to 255 characters without spaces");
        }
    }

    private static void requireText(String what, String v) {
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
    }

}
