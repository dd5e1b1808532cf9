package io.gpuwatch.notify.receiver.chat;

import io.gpuwatch.notify.retry.Pause;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;

import java.time.InstantSource;
import java.util.Objects;
import java.util.Random;
import java.util.random.RandomGenerator;

/**
 * What a chat receiver or report target sends with: the web client (shared, and closed by its owner), the jitter
 * source for retries, the pause between attempts and the clock that paces and signs. Tests pass their own; the
 * gateway takes {@link #of}.
 */
public record ChatSending(WebClient client, RandomGenerator random, Pause pause, InstantSource clock) {
    public ChatSending {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(random, "random");
        Objects.requireNonNull(pause, "pause");
        Objects.requireNonNull(clock, "clock");
    }

    /** Pausing on Vert.x timers, with random jitter and the system clock. */
    public static ChatSending of(Vertx vertx, WebClient client) {
        return new ChatSending(client, new Random(), Pause.timers(vertx), InstantSource.system());
    }
}
