package io.gpuwatch.notify.receiver.chat;

import io.gpuwatch.notify.retry.Pause;
import io.vertx.core.Future;
import io.vertx.ext.web.client.WebClient;

import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that only moves when something pauses on it: each pause returns at once, advances the clock by the
 * requested wait and is recorded, so pacing and back-off schedules are exact and tests run instantly.
 */
public final class FakeTime implements Pause, InstantSource {
    /** Every wait requested, in order. */
    public final List<Long> waits = new CopyOnWriteArrayList<>();
    private final AtomicLong millis;

    public FakeTime(Instant start) {
        this.millis = new AtomicLong(start.toEpochMilli());
    }

    /** Sending through {@code client} without jitter, pausing on this clock and reading the time from it. */
    public ChatSending sending(WebClient client) {
        return new ChatSending(client, () -> 0L, this, this);
    }

    @Override
    public Future<Void> after(long ms) {
        waits.add(ms);
        millis.addAndGet(ms);
        return Future.succeededFuture();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public long millis() {
        return millis.get();
    }
}
