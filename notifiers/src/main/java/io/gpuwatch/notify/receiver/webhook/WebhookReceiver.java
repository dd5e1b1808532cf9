package io.gpuwatch.notify.receiver.webhook;

import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.Group;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.Redaction;
import io.gpuwatch.notify.http.Failures;
import io.gpuwatch.notify.retry.Outcome;
import io.gpuwatch.notify.retry.Pause;
import io.gpuwatch.notify.retry.Retrier;
import io.gpuwatch.notify.retry.RetryAfter;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;

import java.net.ConnectException;
import java.net.URI;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.random.RandomGenerator;

/**
 * Posts each batch as one Alertmanager v4 webhook payload. Connection errors, attempts that miss the deadline,
 * 5xx and 429 are retried with jittered exponential back-off (a {@code Retry-After} is honoured); any other 4xx
 * fails at once with the status and the start of the body. Errors show the target as
 * {@code scheme://host[:port]/…} only, with the path, query and credentials scrubbed from every message.
 */
public final class WebhookReceiver implements Receiver {
    private static final int EXCERPT_CHARS = 200;

    private final String name;
    private final WebhookConfig config;
    private final String externalUrl;
    private final WebClient client;
    private final Retrier retrier;
    private final InstantSource clock;
    private final String target;
    private final Failures failures;
    private final List<String> secrets;

    /**
     * A receiver with every collaborator injected: the jitter source, the pause used between attempts and the
     * clock that {@code Retry-After} dates are measured against. The client is shared and closed by its owner.
     */
    public WebhookReceiver(String name, WebhookConfig config, String externalUrl, WebClient client,
                           RandomGenerator random, Pause pause, InstantSource clock) {
        this.name = Objects.requireNonNull(name, "name");
        this.config = Objects.requireNonNull(config, "config");
        this.externalUrl = externalUrl == null ? "" : externalUrl;
        this.client = Objects.requireNonNull(client, "client");
        this.retrier = new Retrier(config.retryPolicy(), random, pause);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.target = Redaction.url(config.url());
        this.secrets = secrets(config);
        this.failures = new Failures(target, config.timeoutMs(), secrets, EXCERPT_CHARS);
    }

    /** A receiver pausing on Vert.x timers, with random jitter and the system clock. */
    public static WebhookReceiver create(Vertx vertx, WebClient client, String name, WebhookConfig config,
                                         String externalUrl) {
        return new WebhookReceiver(name, config, externalUrl, client, new Random(), Pause.timers(vertx),
                InstantSource.system());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Future<Void> send(List<Notification> batch) {
        return send(batch, null);
    }

    @Override
    public Future<Void> send(List<Notification> batch, String deliveryKey) {
        return send(null, batch, deliveryKey);
    }

    /**
     * Sends the group's key and labels in the body (a null group: the root route's group of the labels the batch
     * shares), and the delivery key as an {@code Idempotency-Key} header, the same on every retry and re-send of
     * the delivery.
     */
    @Override
    public Future<Void> send(Group group, List<Notification> batch, String deliveryKey) {
        if (batch.isEmpty()) {
            return Future.succeededFuture();
        }
        Buffer body;
        try {
            body = AlertmanagerPayload.build(name, group, batch, externalUrl, config.maxAlerts()).toBuffer();
        } catch (RuntimeException e) {
            return Future.failedFuture(new DeliveryFailure(name, 0,
                    "could not build the payload: " + e.getClass().getSimpleName(), false));
        }
        return retrier.run(name, () -> attempt(body, deliveryKey));
    }

    private Future<Outcome> attempt(Buffer body, String deliveryKey) {
        HttpRequest<Buffer> request = client.postAbs(config.url())
                .putHeader("Content-Type", "application/json")
                .putHeader("User-Agent", "gpuwatch")
                // The Web Client timeout only fires on inactivity; it frees the connection of a silent server.
                .timeout(config.timeoutMs());
        config.auth().authorization().ifPresent(value -> request.putHeader("Authorization", value));
        if (deliveryKey != null) {
            request.putHeader("Idempotency-Key", deliveryKey);
        }
        return request.sendBuffer(body)
                // A server that trickles bytes never trips the inactivity timeout; this deadline bounds the attempt.
                .timeout(config.timeoutMs(), TimeUnit.MILLISECONDS)
                .map(this::judge)
                .otherwise(failures::transportError);
    }

    private Outcome judge(HttpResponse<Buffer> response) {
        int code = response.statusCode();
        if (code >= 200 && code < 300) {
            return Outcome.delivered();
        }
        String error = "HTTP " + code + " from " + target + failures.excerpt(response.bodyAsString());
        if (code == 429 || code >= 500) {
            return RetryAfter.parse(response.getHeader("Retry-After"), clock.instant())
                    .map(wait -> Outcome.retryAfter(error, wait))
                    .orElseGet(() -> Outcome.retry(error));
        }
        return Outcome.reject(error);
    }

    // Servers and Vert.x itself quote the request path ("while executing POST /hooks/…"), not only full URLs.
    private static List<String> secrets(WebhookConfig config) {
        List<String> s = new ArrayList<>(config.auth().secrets());
        s.add(config.url());
        URI uri = URI.create(config.url());
        for (String part : new String[] {uri.getRawPath(), uri.getRawQuery(), uri.getRawUserInfo(),
                uri.getPath(), uri.getQuery(), uri.getUserInfo()}) {
            if (part != null && !part.equals("/")) {
                s.add(part);
            }
        }
        if (uri.getRawQuery() != null) {
            s.add(uri.getRawPath() + "?" + uri.getRawQuery());
        }
        return List.copyOf(s);
    }
}
