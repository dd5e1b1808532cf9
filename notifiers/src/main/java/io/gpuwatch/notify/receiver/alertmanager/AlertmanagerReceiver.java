package io.gpuwatch.notify.receiver.alertmanager;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.Redaction;
import io.gpuwatch.notify.http.Failures;
import io.gpuwatch.notify.retry.Outcome;
import io.gpuwatch.notify.retry.Pause;
import io.gpuwatch.notify.retry.Retrier;
import io.gpuwatch.notify.retry.RetryAfter;
import io.gpuwatch.notify.retry.RetryPolicy;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;

import java.net.ConnectException;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.random.RandomGenerator;

/**
 * Hands each batch to an existing Alertmanager in one {@code POST /api/v2/alerts}, so teams keep their own
 * routing, silences and receivers. Alertmanager identifies alerts by their label set, so re-sending is
 * harmless, and it asks to be sent every firing alert again each {@code resendIntervalMs}, as Prometheus does:
 * Alertmanager keeps no alerts across a restart, and each send extends a firing alert's {@code endsAt} to four
 * intervals ahead. 5xx, 429, timeouts and connection errors are retried with back-off ({@code Retry-After}
 * honoured); 400 (Alertmanager's validation message) and other 4xx fail at once. Errors show the target as
 * {@code scheme://host[:port]/…} only.
 */
public final class AlertmanagerReceiver implements Receiver {
    static final String PATH = "/api/v2/alerts";
    private static final int EXCERPT_CHARS = 300;

    private final String name;
    private final AlertmanagerConfig config;
    private final WebClient client;
    private final Retrier retrier;
    /** One attempt: a re-send that fails is followed by the next interval's, with what fires then. */
    private final Retrier once;
    private final InstantSource clock;
    private final String target;
    private final Failures failures;
    private final List<String> secrets;

    /** A receiver with its jitter, pause and clock injected; the client is shared and closed by its owner. */
    public AlertmanagerReceiver(String name, AlertmanagerConfig config, WebClient client, RandomGenerator random,
                                Pause pause, InstantSource clock) {
        this.name = Objects.requireNonNull(name, "name");
        this.config = Objects.requireNonNull(config, "config");
        this.client = Objects.requireNonNull(client, "client");
        this.retrier = new Retrier(config.retryPolicy(), random, pause);
        this.once = new Retrier(new RetryPolicy(1, config.initialBackoffMs(), config.maxBackoffMs()), random, pause);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.target = Redaction.url(config.url());
        List<String> s = new ArrayList<>(config.auth().secrets());
        String userInfo = URI.create(config.url()).getRawUserInfo();
        if (userInfo != null) {
            s.add(userInfo);
        }
        this.secrets = List.copyOf(s);
        this.failures = new Failures(target, config.timeoutMs(), secrets, EXCERPT_CHARS);
    }

    /** A receiver pausing on Vert.x timers, with random jitter and the system clock. */
    public static AlertmanagerReceiver create(Vertx vertx, WebClient client, String name, AlertmanagerConfig config) {
        return new AlertmanagerReceiver(name, config, client, new Random(), Pause.timers(vertx), InstantSource.system());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Optional<Duration> resendInterval() {
        return Optional.of(Duration.ofMillis(config.resendIntervalMs()));
    }

    @Override
    public Future<Void> send(List<Notification> batch) {
        if (batch.isEmpty()) {
            return Future.succeededFuture();
        }
        return retrier.run(name, () -> {
            // Built per attempt: a firing alert's endsAt counts from when it is actually sent.
            Buffer body = PostableAlerts.build(batch, clock.instant(), config.firingValidityMs()).toBuffer();
            return attempt(body);
        });
    }

    @Override
    public Future<Void> resend(List<Notification> firing) {
        if (firing.isEmpty()) {
            return Future.succeededFuture();
        }
        return once.run(name, () -> attempt(PostableAlerts.build(firing, clock.instant(), config.firingValidityMs())
                .toBuffer()));
    }

    private Future<Outcome> attempt(Buffer body) {
        HttpRequest<Buffer> request = client.postAbs(config.url() + PATH)
                .putHeader("Content-Type", "application/json")
                .putHeader("User-Agent", "gpuwatch")
                .timeout(config.timeoutMs());
        config.auth().authorization().ifPresent(value -> request.putHeader("Authorization", value));
        return request.sendBuffer(body)
                .timeout(config.timeoutMs(), TimeUnit.MILLISECONDS)
                .map(this::judge)
                .otherwise(failures::transportError);
    }

    private Outcome judge(HttpResponse<Buffer> response) {
        int code = response.statusCode();
        if (code >= 200 && code < 300) {
            return Outcome.delivered();
        }
        String error = (code == 400 ? "Alertmanager rejected the alerts (HTTP 400 from " + target + ")"
                : "HTTP " + code + " from " + target) + failures.excerpt(response.bodyAsString());
        if (code == 429 || code >= 500) {
            return RetryAfter.parse(response.getHeader("Retry-After"), clock.instant())
                    .map(wait -> Outcome.retryAfter(error, wait))
                    .orElseGet(() -> Outcome.retry(error));
        }
        return Outcome.reject(error);
    }

    // Alertmanager writes errors as a JSON string ("start time must be before end time") or go-swagger's
    // {"code":602,"message":"labels in body is required"}; either reads well flattened.
}
