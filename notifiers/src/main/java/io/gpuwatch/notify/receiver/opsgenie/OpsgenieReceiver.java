package io.gpuwatch.notify.receiver.opsgenie;

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
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;

import java.net.ConnectException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.random.RandomGenerator;

/**
 * Sends each alert of a batch to Opsgenie's Alert API, one after the other: a firing alert is created (or, its
 * alias being open, counted again), a resolved one is closed by alias. Opsgenie answers 202 with a request id
 * and processes the request later; an accepted request counts as delivered. 429, 5xx, timeouts and connection
 * errors are retried with back-off ({@code Retry-After} honoured); 400/422 (invalid), 401/403 (key) and other 4xx
 * fail at once with Opsgenie's message; 404 on close means nothing is open under that alias, which is done.
 */
public final class OpsgenieReceiver implements Receiver {
    private static final int EXCERPT_CHARS = 300;

    private final String name;
    private final OpsgenieConfig config;
    private final WebClient client;
    private final Retrier retrier;
    private final InstantSource clock;
    private final Template message;
    private final Template description;
    private final String target;
    private final Failures failures;
    private final List<String> secrets;

    /** A receiver with its jitter, pause and clock injected; the client is shared and closed by its owner. */
    public OpsgenieReceiver(String name, OpsgenieConfig config, WebClient client, RandomGenerator random, Pause pause,
                            InstantSource clock) {
        this.name = Objects.requireNonNull(name, "name");
        this.config = Objects.requireNonNull(config, "config");
        this.client = Objects.requireNonNull(client, "client");
        this.retrier = new Retrier(config.retryPolicy(), random, pause);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.message = Template.compile(config.message());
        this.description = Template.compile(config.description());
        this.target = Redaction.url(config.url());
        this.secrets = List.of(config.apiKey().reveal());
        this.failures = new Failures(target, config.timeoutMs(), secrets, EXCERPT_CHARS);
    }

    /** A receiver pausing on Vert.x timers, with random jitter and the system clock. */
    public static OpsgenieReceiver create(Vertx vertx, WebClient client, String name, OpsgenieConfig config) {
        return new OpsgenieReceiver(name, config, client, new Random(), Pause.timers(vertx), InstantSource.system());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Future<Void> send(List<Notification> batch) {
        return OneByOne.send(name, batch, this::one);
    }

    /**
     * The {@code alias} this receiver gives the Opsgenie alert of {@code fingerprint}; Opsgenie's outgoing
     * webhooks carry it back as {@code alert.alias}, which is how an acknowledgement there finds the alert.
     */
    public static String alias(String fingerprint) {
        return fingerprint;
    }

    private Future<Void> one(Notification n) {
        boolean firing = n.status() == Notification.Status.FIRING;
        Buffer body;
        try {
            body = firing ? OpsgenieAlert.create(n, config, message, description) : OpsgenieAlert.close(n);
        } catch (RuntimeException e) {
            return Future.failedFuture(new DeliveryFailure(name, 0,
                    "could not build the alert: " + e.getClass().getSimpleName(), false));
        }
        String url = firing ? config.url() + "/v2/alerts"
                : config.url() + "/v2/alerts/" + URLEncoder.encode(alias(n.fingerprint()), StandardCharsets.UTF_8)
                        + "/close?identifierType=alias";
        return retrier.run(name, () -> attempt(url, body, !firing));
    }

    private Future<Outcome> attempt(String url, Buffer body, boolean closing) {
        return client.postAbs(url)
                .putHeader("Content-Type", "application/json")
                .putHeader("User-Agent", "gpuwatch")
                .putHeader("Authorization", "GenieKey " + config.apiKey().reveal())
                .timeout(config.timeoutMs())
                .sendBuffer(body)
                .timeout(config.timeoutMs(), TimeUnit.MILLISECONDS)
                .map(response -> judge(response, closing))
                .otherwise(failures::transportError);
    }

    private Outcome judge(HttpResponse<Buffer> response, boolean closing) {
        int code = response.statusCode();
        if (code >= 200 && code < 300 || closing && code == 404) {
            return Outcome.delivered();
        }
        String said = said(response.bodyAsString());
        String error = switch (code) {
            case 400, 422 -> "Opsgenie rejected the request (HTTP " + code + " from " + target + ")" + said;
            case 401, 403 -> "Opsgenie refused the API key (HTTP " + code + " from " + target + ")" + said;
            case 429 -> "Opsgenie throttled the integration (HTTP 429 from " + target + ")" + said;
            default -> "HTTP " + code + " from " + target + said;
        };
        if (code == 429 || code >= 500) {
            return RetryAfter.parse(response.getHeader("Retry-After"), clock.instant())
                    .map(wait -> Outcome.retryAfter(error, wait))
                    .orElseGet(() -> Outcome.retry(error));
        }
        return Outcome.reject(error);
    }

    /** Opsgenie's {@code {"message": …, "errors": {field: why}}}, or the start of whatever else came back. */
    private String said(String body) {
        try {
            JsonObject json = new JsonObject(body == null ? "" : body);
            StringBuilder sb = new StringBuilder();
            Object message = json.getValue("message");
            if (message != null) {
                sb.append(": ").append(message);
            }
            if (json.getValue("errors") instanceof JsonObject errors) {
                errors.forEach(e -> sb.append(sb.length() == 0 ? ": " : "; ").append(e.getKey()).append(": ")
                        .append(e.getValue()));
            }
            return sb.length() == 0 ? failures.excerpt(body) : failures.scrub(sb.toString());
        } catch (DecodeException e) {
            return failures.excerpt(body);
        }
    }
}
