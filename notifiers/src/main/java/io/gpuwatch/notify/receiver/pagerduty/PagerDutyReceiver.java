package io.gpuwatch.notify.receiver.pagerduty;

import io.gpuwatch.notify.Acknowledging;
import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.OneByOne;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.Redaction;
import io.gpuwatch.notify.http.Failures;
import io.gpuwatch.notify.render.Template;
import io.gpuwatch.notify.retry.Outcome;
import io.gpuwatch.notify.retry.Pause;
import io.gpuwatch.notify.retry.Retrier;
import io.gpuwatch.notify.retry.RetryAfter;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;

import java.net.ConnectException;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Sends each alert of a batch as its own PagerDuty event, one after the other: a firing alert triggers, a
 * resolved one resolves, and {@link #acknowledge} acknowledges, all keyed by the fingerprint so that a retried
 * send is harmless. 429 (PagerDuty's throttle), 5xx, timeouts and connection errors are retried with back-off
 * ({@code Retry-After} honoured); 400 (invalid event) and other 4xx fail at once with PagerDuty's own errors.
 * One alert failing does not stop the others; the batch then fails with the first error.
 */
public final class PagerDutyReceiver implements Receiver, Acknowledging {
    private static final int EXCERPT_CHARS = 300;

    private final String name;
    private final PagerDutyConfig config;
    private final WebClient client;
    private final Retrier retrier;
    private final InstantSource clock;
    private final Template summary;
    private final Template source;
    private final String target;
    private final Failures failures;
    private final List<String> secrets;

    /** A receiver with its jitter, pause and clock injected; the client is shared and closed by its owner. */
    public PagerDutyReceiver(String name, PagerDutyConfig config, WebClient client, RandomGenerator random,
                             Pause pause, InstantSource clock) {
        this.name = Objects.requireNonNull(name, "name");
        this.config = Objects.requireNonNull(config, "config");
        this.client = Objects.requireNonNull(client, "client");
        this.retrier = new Retrier(config.retryPolicy(), random, pause);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.summary = Template.compile(config.summary());
        this.source = Template.compile(config.source());
        this.target = Redaction.url(config.url());
        this.secrets = List.of(config.routingKey().reveal());
        this.failures = new Failures(target, config.timeoutMs(), secrets, EXCERPT_CHARS);
    }

    /** A receiver pausing on Vert.x timers, with random jitter and the system clock. */
    public static PagerDutyReceiver create(Vertx vertx, WebClient client, String name, PagerDutyConfig config) {
        return new PagerDutyReceiver(name, config, client, new Random(), Pause.timers(vertx), InstantSource.system());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Future<Void> send(List<Notification> batch) {
        return OneByOne.send(name, batch, n -> deliver(() -> event(n)));
    }

    /** Acknowledges the PagerDuty alert of this fingerprint; PagerDuty drops an acknowledge for an unknown key. */
    public Future<Void> acknowledge(String fingerprint) {
        return deliver(() -> PagerDutyEvent.action(config.routingKey().reveal(), "acknowledge",
                dedupKey(fingerprint)));
    }

    /**
     * Fails: the Events API has only trigger, acknowledge and resolve, and a new trigger for an acknowledged
     * incident does not re-open it, so the incident must be re-opened in PagerDuty itself.
     */
    @Override
    public Future<Void> unacknowledge(String fingerprint) {
        return Future.failedFuture(new UnsupportedOperationException("PagerDuty's Events API cannot withdraw an "
                + "acknowledgement; the incident " + dedupKey(fingerprint) + " stays acknowledged there until "
                + "someone re-opens it in PagerDuty"));
    }

    /**
     * The {@code dedup_key} this receiver sends for the alert {@code fingerprint}; PagerDuty reports it back as
     * the incident's {@code incident_key} in its webhooks, which is how an acknowledgement there finds the alert.
     */
    public static String dedupKey(String fingerprint) {
        return fingerprint;
    }

    private Buffer event(Notification n) {
        String key = config.routingKey().reveal();
        if (n.status() == Notification.Status.RESOLVED) {
            return PagerDutyEvent.action(key, "resolve", dedupKey(n.fingerprint()));
        }
        return PagerDutyEvent.trigger(key, n, summary, source, config.severityFor(n.labels().get("severity")));
    }

    private Future<Void> deliver(Supplier<Buffer> body) {
        Buffer built;
        try {
            built = body.get();
        } catch (RuntimeException e) {
            return Future.failedFuture(new DeliveryFailure(name, 0,
                    "could not build the event: " + e.getClass().getSimpleName(), false));
        }
        return retrier.run(name, () -> attempt(built));
    }

    private Future<Outcome> attempt(Buffer body) {
        return client.postAbs(config.url())
                .putHeader("Content-Type", "application/json")
                .putHeader("User-Agent", "gpuwatch")
                .timeout(config.timeoutMs())
                .sendBuffer(body)
                .timeout(config.timeoutMs(), TimeUnit.MILLISECONDS)
                .map(this::judge)
                .otherwise(failures::transportError);
    }

    private Outcome judge(HttpResponse<Buffer> response) {
        int code = response.statusCode();
        if (code >= 200 && code < 300) {
            return Outcome.delivered();
        }
        if (code == 400) {
            return Outcome.reject("PagerDuty rejected the event as invalid (HTTP 400 from " + target + ")"
                    + errors(response.bodyAsString()));
        }
        String error = (code == 429 ? "PagerDuty throttled the integration (HTTP 429 from " + target + ")"
                : "HTTP " + code + " from " + target) + failures.excerpt(response.bodyAsString());
        if (code == 429 || code >= 500) {
            return RetryAfter.parse(response.getHeader("Retry-After"), clock.instant())
                    .map(wait -> Outcome.retryAfter(error, wait))
                    .orElseGet(() -> Outcome.retry(error));
        }
        return Outcome.reject(error);
    }

    /** PagerDuty's {@code {"status","message","errors":[…]}}, or the start of whatever else came back. */
    private String errors(String body) {
        try {
            JsonObject json = new JsonObject(body == null ? "" : body);
            StringBuilder sb = new StringBuilder();
            String message = json.getString("message");
            if (message != null) {
                sb.append(": ").append(message);
            }
            JsonArray errors = json.getJsonArray("errors");
            if (errors != null && !errors.isEmpty()) {
                sb.append(sb.length() == 0 ? ": " : " — ");
                for (int i = 0; i < errors.size(); i++) {
                    sb.append(i == 0 ? "" : "; ").append(errors.getValue(i));
                }
            }
            return sb.length() == 0 ? failures.excerpt(body) : failures.scrub(sb.toString());
        } catch (DecodeException | ClassCastException e) {
            return failures.excerpt(body);
        }
    }
}
