package io.gpuwatch.notify.receiver.jira;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.OneByOne;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.Redaction;
import io.gpuwatch.notify.http.Failures;
import io.gpuwatch.notify.render.Limit;
import io.gpuwatch.notify.render.Template;
import io.gpuwatch.notify.render.Text;
import io.gpuwatch.notify.retry.Outcome;
import io.gpuwatch.notify.retry.Pause;
import io.gpuwatch.notify.retry.Retrier;
import io.gpuwatch.notify.retry.RetryAfter;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;

import java.net.ConnectException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.random.RandomGenerator;

/**
 * Keeps one Jira ticket per alert fingerprint. Before acting it looks for an open ticket (status category not
 * Done) carrying the label {@code gpuwatch-<fingerprint>}; a firing alert then creates a ticket if none is open
 * or comments on the open one, and a resolved alert comments on and transitions the open ticket (nothing to do
 * when none is open). A firing after resolve creates a new ticket: the resolved one stays closed as the record
 * of that incident. Each alert's whole exchange is one attempt, so a retry searches again first and never
 * creates a duplicate for a ticket that was made. 429, 5xx, timeouts and connection errors are retried
 * ({@code Retry-After} honoured); 400 (Jira's {@code errorMessages} and field errors), 401, 403, 404 and a
 * missing transition fail at once.
 */
public final class JiraReceiver implements Receiver {
    static final String LABEL_PREFIX = "gpuwatch-";
    private static final int EXCERPT_CHARS = 300;
    private static final int SUMMARY_CHARS = 255;

    private final String name;
    private final JiraConfig config;
    private final WebClient client;
    private final Retrier retrier;
    private final InstantSource clock;
    private final Template summary;
    private final Template description;
    private final Template comment;
    private final Template resolvedComment;
    private final String api;
    private final String target;
    private final Failures failures;
    private final List<String> secrets;

    /** A receiver with its jitter, pause and clock injected; the client is shared and closed by its owner. */
    public JiraReceiver(String name, JiraConfig config, WebClient client, RandomGenerator random, Pause pause,
                        InstantSource clock) {
        this.name = Objects.requireNonNull(name, "name");
        this.config = Objects.requireNonNull(config, "config");
        this.client = Objects.requireNonNull(client, "client");
        this.retrier = new Retrier(config.retryPolicy(), random, pause);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.summary = Template.compile(config.summary());
        this.description = Template.compile(config.description());
        this.comment = Template.compile(config.comment());
        this.resolvedComment = Template.compile(config.resolvedComment());
        this.api = config.url() + "/rest/api/" + config.apiVersion();
        this.target = Redaction.url(config.url());
        this.secrets = config.auth().secrets();
        this.failures = new Failures(target, config.timeoutMs(), secrets, EXCERPT_CHARS);
    }

    /** A receiver pausing on Vert.x timers, with random jitter and the system clock. */
    public static JiraReceiver create(Vertx vertx, WebClient client, String name, JiraConfig config) {
        return new JiraReceiver(name, config, client, new Random(), Pause.timers(vertx), InstantSource.system());
    }

    /** The label that ties a ticket to an alert fingerprint. */
    public static String label(String fingerprint) {
        return LABEL_PREFIX + fingerprint.replaceAll("\\s", "_");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Future<Void> send(List<Notification> batch) {
        return OneByOne.send(name, batch, n -> retrier.run(name, () -> attempt(n)));
    }

    private Future<Outcome> attempt(Notification n) {
        boolean firing = n.status() == Notification.Status.FIRING;
        return openIssue(n)
                .compose(key -> {
                    if (key == null) {
                        return firing ? createIssue(n) : Future.succeededFuture();
                    }
                    if (firing) {
                        return addComment(key, text(comment, n));
                    }
                    return addComment(key, text(resolvedComment, n)).compose(v -> resolve(key));
                })
                .map(v -> Outcome.delivered())
                .otherwise(this::asOutcome);
    }

    /** The key of the open ticket for this fingerprint, or null. */
    private Future<String> openIssue(Notification n) {
        String jql = "project = " + quoted(config.project()) + " AND labels = " + quoted(label(n.fingerprint()))
                + " AND statusCategory != Done ORDER BY created DESC";
        JsonObject query = new JsonObject().put("jql", jql).put("maxResults", 2)
                .put("fields", new JsonArray().add("status"));
        // Jira Cloud removed POST /rest/api/3/search; /search/jql replaces it. Data Center keeps /rest/api/2/search.
        String path = config.apiVersion() == 3 ? "/search/jql" : "/search";
        return call(HttpMethod.POST, path, query, "searching for the open ticket").map(found -> {
            JsonArray issues = found.getJsonArray("issues", new JsonArray());
            return issues.isEmpty() ? null : issues.getJsonObject(0).getString("key");
        });
    }

    private Future<Void> createIssue(Notification n) {
        JsonArray labels = new JsonArray().add(label(n.fingerprint()));
        config.labels().forEach(labels::add);
        JsonObject fields = new JsonObject()
                .put("project", new JsonObject().put("key", config.project()))
                .put("issuetype", new JsonObject().put("name", config.issueType()))
                .put("summary", line(text(summary, n).raw(), SUMMARY_CHARS))
                .put("labels", labels)
                .put("description", JiraText.body(text(description, n), config.apiVersion()));
        String priority = config.priorityFor(n.labels().get("severity"));
        if (priority != null) {
            fields.put("priority", new JsonObject().put("name", priority));
        }
        return call(HttpMethod.POST, "/issue", new JsonObject().put("fields", fields), "creating a ticket")
                .mapEmpty();
    }

    private Future<Void> addComment(String key, Text text) {
        return call(HttpMethod.POST, "/issue/" + encode(key) + "/comment",
                new JsonObject().put("body", JiraText.body(text, config.apiVersion())), "commenting on " + key)
                .mapEmpty();
    }

    private Future<Void> resolve(String key) {
        String path = "/issue/" + encode(key) + "/transitions";
        return call(HttpMethod.GET, path, null, "listing the transitions of " + key).compose(found -> {
            JsonArray transitions = found.getJsonArray("transitions", new JsonArray());
            List<String> names = new ArrayList<>();
            for (int i = 0; i < transitions.size(); i++) {
                JsonObject t = transitions.getJsonObject(i);
                if (config.resolveTransition().equalsIgnoreCase(t.getString("name", ""))) {
                    return call(HttpMethod.POST, path, new JsonObject().put("transition",
                            new JsonObject().put("id", t.getString("id"))), "moving " + key + " to "
                            + t.getString("name")).mapEmpty();
                }
                names.add("'" + t.getString("name") + "'");
            }
            return Future.failedFuture(new Stop(Outcome.reject("ticket " + key + " has no transition named '"
                    + config.resolveTransition() + "' from its current status (available: "
                    + (names.isEmpty() ? "none" : String.join(", ", names)) + "); set resolveTransition")));
        });
    }

    /** One REST call: the JSON answer on 2xx (empty for 204), else a failed future carrying the outcome. */
    private Future<JsonObject> call(HttpMethod method, String path, JsonObject body, String doing) {
        HttpRequest<Buffer> request = client.requestAbs(method, api + path)
                .putHeader("Accept", "application/json")
                .putHeader("User-Agent", "gpuwatch")
                .timeout(config.timeoutMs());
        config.auth().authorization().ifPresent(value -> request.putHeader("Authorization", value));
        Future<HttpResponse<Buffer>> sent;
        if (body == null) {
            sent = request.send();
        } else {
            request.putHeader("Content-Type", "application/json");
            sent = request.sendBuffer(body.toBuffer());
        }
        return sent.timeout(config.timeoutMs(), TimeUnit.MILLISECONDS).compose(response -> {
            int code = response.statusCode();
            if (code >= 200 && code < 300) {
                String text = response.bodyAsString();
                try {
                    return Future.succeededFuture(text == null || text.isBlank() ? new JsonObject() : new JsonObject(text));
                } catch (DecodeException e) {
                    return Future.failedFuture(new Stop(Outcome.reject("Jira answered " + doing
                            + " with something that is not JSON (HTTP " + code + " from " + target + ")")));
                }
            }
            return Future.failedFuture(new Stop(judge(response, doing)));
        });
    }

    private Outcome judge(HttpResponse<Buffer> response, String doing) {
        int code = response.statusCode();
        String said = said(response.bodyAsString());
        String where = " (HTTP " + code + " from " + target + ")";
        String error = switch (code) {
            case 400 -> "Jira rejected " + doing + where + said;
            case 401 -> "Jira refused the credentials while " + doing + where + said;
            case 403 -> "Jira denied permission for " + doing + where + said;
            case 404 -> "Jira found nothing while " + doing + where + said
                    + " (a missing project, ticket or transition, or one this user may not see)";
            case 429 -> "Jira throttled " + doing + where + said;
            default -> "HTTP " + code + " from " + target + " while " + doing + said;
        };
        if (code == 429 || code >= 500) {
            return RetryAfter.parse(response.getHeader("Retry-After"), clock.instant())
                    .map(wait -> Outcome.retryAfter(error, wait))
                    .orElseGet(() -> Outcome.retry(error));
        }
        return Outcome.reject(error);
    }

    /** Jira's {@code {"errorMessages":[…],"errors":{field: why}}}, or the start of whatever else came back. */
    private String said(String body) {
        try {
            JsonObject json = new JsonObject(body == null ? "" : body);
            List<String> parts = new ArrayList<>();
            JsonArray messages = json.getJsonArray("errorMessages", new JsonArray());
            messages.forEach(m -> parts.add(String.valueOf(m)));
            if (json.getValue("errors") instanceof JsonObject errors) {
                errors.forEach(e -> parts.add(e.getKey() + ": " + e.getValue()));
            }
            return parts.isEmpty() ? failures.excerpt(body) : ": " + failures.scrub(String.join("; ", parts));
        } catch (DecodeException | ClassCastException e) {
            return failures.excerpt(body);
        }
    }

    private Outcome asOutcome(Throwable e) {
        if (e instanceof Stop stop) {
            return stop.outcome;
        }
        if (e instanceof TimeoutException) {
            return Outcome.retry("no response from " + target + " within " + config.timeoutMs() + " ms");
        }
        String detail = e.getMessage() == null ? "" : ": " + failures.scrub(e.getMessage());
        if (e instanceof ConnectException) {
            return Outcome.retry("could not connect to " + target + detail);
        }
        return Outcome.retry(e.getClass().getSimpleName() + " talking to " + target + detail);
    }

    private static String quoted(String v) {
        return '"' + v.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    private static String encode(String key) {
        return URLEncoder.encode(key, StandardCharsets.UTF_8);
    }

    /** Ends an attempt early with a judged outcome; never leaves this class. */
    private static final class Stop extends RuntimeException {
        private final Outcome outcome;

        Stop(Outcome outcome) {
            super(null, null, false, false);
            this.outcome = outcome;
        }
    }

    private static Text text(Template template, Notification n) {
        return template.text(n, List.of(n));
    }

    private static String line(String text, int max) {
        return Limit.chars(max).line(text);
    }
}
