package io.gpuwatch.gateway.coverage;

import java.util.Arrays;

/**
 * How many frames of one card, node, task or queue arrived, and how many carried each signal, over the current
 * and the previous window of a fixed length; arrays allocated once, so counting a frame allocates nothing.
 * Read and written on the gateway's event loop only.
 */
final class Tally {
    private final long windowMs;
    private int[] now;
    private int[] before;
    private int framesNow;
    private int framesBefore;
    /** Start of the current window, aligned to {@code windowMs}; MIN_VALUE before the first frame. */
    private long start = Long.MIN_VALUE;
    private long firstAt = Long.MIN_VALUE;
    private long lastAt = Long.MIN_VALUE;

    Tally(int signals, long windowMs) {
        this.windowMs = windowMs;
        this.now = new int[signals];
        this.before = new int[signals];
    }

    /** A frame arrived at {@code at}; count its signals with {@link #signal} right after. */
    void frame(long at) {
        roll(at);
        if (firstAt == Long.MIN_VALUE) {
            firstAt = at;
        }
        lastAt = Math.max(lastAt, at);
        framesNow++;
    }

    /** The frame just counted carried signal {@code i}. */
    void signal(int i) {
        now[i]++;
    }

    /** Moves to the window holding {@code at}: the current one becomes the previous, or both empty after a gap. */
    void roll(long at) {
        long aligned = at - Math.floorMod(at, windowMs);
        if (start == Long.MIN_VALUE) {
            start = aligned;
            return;
        }
        if (aligned <= start) {
            return;
        }
        if (aligned - start == windowMs) {
            int[] t = before;
            before = now;
            now = t;
            framesBefore = framesNow;
        } else {
            Arrays.fill(before, 0);
            framesBefore = 0;
        }
        Arrays.fill(now, 0);
        framesNow = 0;
        start = aligned;
    }

    /** Frames in both windows, after {@link #roll} to the reading time. */
    int frames() {
        return framesNow + framesBefore;
    }

    /** Frames carrying signal {@code i} in both windows. */
    int count(int i) {
        return now[i] + before[i];
    }

    /** The milliseconds the two windows cover at {@code at}: from the previous window's start, or the first frame. */
    long spanMs(long at) {
        if (start == Long.MIN_VALUE) {
            return 0;
        }
        return Math.max(0, at - Math.max(start - windowMs, firstAt));
    }

    /** When the latest frame arrived; MIN_VALUE before any. */
    long lastAt() {
        return lastAt;
    }
}
