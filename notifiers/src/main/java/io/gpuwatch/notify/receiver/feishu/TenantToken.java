package io.gpuwatch.notify.receiver.feishu;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.TimeUnit;

/**
 * A Feishu app's tenant access token, asked for with the app id and secret and kept until shortly before it
 * expires (Feishu gives two hours), one request at a time. Feishu answering that a token is invalid makes the
 * next send ask for a new one ({@link #forget}). Used on the receiver's event loop.
 */
final class TenantToken {
    /** A token this close to its expiry is renewed before use. */
    static final Duration MARGIN = Duration.ofMinutes(10);

    private final FeishuApp app;
    private final WebClient client;
    private final InstantSource clock;
    private final long timeoutMs;
    private String token;
    private Instant expires = Instant.MIN;
    private Future<String> asking;

    TenantToken(FeishuApp app, WebClient client, InstantSource clock, long timeoutMs) {
        this.app = app;
        this.client = client;
        this.clock = clock;
        this.timeoutMs = timeoutMs;
    }

    /** A token valid for a while yet, asked for when there is none. */
    synchronized Future<String> get() {
        if (token != null && clock.instant().plus(MARGIN).isBefore(expires)) {
            return Future.succeededFuture(token);
        }
        if (asking == null) {
            asking = ask().andThen(ar -> {
                synchronized (this) {
                    asking = null;
                }
            });
        }
        return asking;
    }

    /** Drops the token, which Feishu refused, so the next send asks for another. */
    synchronized void forget() {
        token = null;
    }

    private Future<String> ask() {
        return client.postAbs(app.tokenUrl())
                .putHeader("Content-Type", "application/json; charset=utf-8")
                .putHeader("User-Agent", "gpuwatch")
                .timeout(timeoutMs)
                .sendJsonObject(new JsonObject().put("app_id", app.id()).put("app_secret", app.secret().reveal()))
                .timeout(timeoutMs, TimeUnit.MILLISECONDS)
                .compose(response -> {
                    JsonObject json;
                    try {
                        json = response.bodyAsJsonObject();
                    } catch (RuntimeException e) {
                        json = null;
                    }
                    if (response.statusCode() != 200 || json == null || json.getLong("code", -1L) != 0
                            || !(json.getValue("tenant_access_token") instanceof String t) || t.isBlank()) {
                        String why = json == null ? "HTTP " + response.statusCode()
                                : "code " + json.getValue("code") + " " + json.getString("msg", "");
                        return Future.failedFuture("Feishu refused the tenant access token of app " + app.id()
                                + ": " + why + " (check the app id and secret)");
                    }
                    long seconds = json.getLong("expire", 7200L);
                    synchronized (this) {
                        token = t;
                        expires = clock.instant().plusSeconds(seconds);
                    }
                    return Future.succeededFuture(t);
                });
    }
}
