package io.gpuwatch.notify.receiver.chat;

import io.gpuwatch.notify.config.Fields;
import io.gpuwatch.notify.render.Layout;
import io.gpuwatch.notify.retry.RetryPolicy;

import java.util.Objects;
import java.util.Set;

/**
 * What every chat receiver is configured with besides its target: the per-attempt deadline, the retry
 * schedule, the minimum spacing between requests to the target, and the message templates.
 */
public record ChatSettings(long timeoutMs, RetryPolicy retry, long minIntervalMs, Layout layout) {
    /** The config keys these settings are read from. */
    public static final Set<String> KEYS = Set.of("timeoutMs", "maxAttempts", "initialBackoffMs", "maxBackoffMs",
            "minIntervalMs", "templates");
    public static final long DEFAULT_TIMEOUT_MS = 10_000;
    public static final int DEFAULT_MAX_ATTEMPTS = 5;
    public static final long DEFAULT_INITIAL_BACKOFF_MS = 1_000;
    /** Long enough for the one-minute pauses that WeCom and Feishu ask for after a burst. */
    public static final long DEFAULT_MAX_BACKOFF_MS = 60_000;

    public ChatSettings {
        if (timeoutMs < 1) {
            throw new IllegalArgumentException("timeoutMs must be at least 1, got " + timeoutMs);
        }
        if (minIntervalMs < 0) {
            throw new IllegalArgumentException("minIntervalMs must not be negative, got " + minIntervalMs);
        }
        Objects.requireNonNull(retry, "retry");
        Objects.requireNonNull(layout, "layout");
    }

    /** Every default, with the target's own pacing and templates. */
    public static ChatSettings defaults(long minIntervalMs, Layout layout) {
        return new ChatSettings(DEFAULT_TIMEOUT_MS, new RetryPolicy(DEFAULT_MAX_ATTEMPTS, DEFAULT_INITIAL_BACKOFF_MS,
                DEFAULT_MAX_BACKOFF_MS), minIntervalMs, layout);
    }

    /**
     * The settings in {@code f}: {@code timeoutMs}, {@code maxAttempts}, {@code initialBackoffMs},
     * {@code maxBackoffMs}, {@code minIntervalMs} and {@code templates: {title, entry}}, each falling back to
     * {@code defaults}. Problems are recorded in {@code f} at their field paths; the result is then null.
     */
    public static ChatSettings read(Fields f, ChatSettings defaults) {
        int before = f.problems().size();
        long timeoutMs = f.whole("timeoutMs", defaults.timeoutMs(), 1, Long.MAX_VALUE);
        RetryPolicy retry = RetryPolicy.read(f, defaults.retry(), 100);
        long minIntervalMs = f.whole("minIntervalMs", defaults.minIntervalMs(), 0, 3_600_000);
        Layout layout = Layout.read(f, "templates", defaults.layout());
        if (f.problems().size() > before || layout == null) {
            return null;
        }
        return new ChatSettings(timeoutMs, retry, minIntervalMs, layout);
    }
}
