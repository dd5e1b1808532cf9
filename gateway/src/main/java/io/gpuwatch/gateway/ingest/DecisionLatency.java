package io.gpuwatch.gateway.ingest;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * How long the gateway takes to decide on what a frame says: from the moment its text is read off the socket to
 * the end of the evaluation of every rule it touches (for a sample, its wait in the {@link SampleQueue} included).
 * A cumulative histogram on fixed bounds, written on the event loop and read by {@code /metrics} at any time.
 */
public final class DecisionLatency {
    /** Upper bounds of the buckets, in seconds; a last, unbounded bucket holds the rest. */
    public static final double[] BOUNDS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
    private static final long[] BOUNDS_NANOS = new long[BOUNDS.length];

    static {
        for (int i = 0; i < BOUNDS.length; i++) {
            BOUNDS_NANOS[i] = Math.round(BOUNDS[i] * 1e9);
        }
    }

    private final AtomicLongArray counts = new AtomicLongArray(BOUNDS.length + 1);
    private final LongAdder sumNanos = new LongAdder();

    /** Counts one decision that took {@code nanos}. */
    public void record(long nanos) {
        int i = 0;
        while (i < BOUNDS_NANOS.length && nanos > BOUNDS_NANOS[i]) {
            i++;
        }
        counts.incrementAndGet(i);
        sumNanos.add(Math.max(0, nanos));
    }

    /** Decisions that took at most {@code BOUNDS[i]} (cumulative), or all of them for {@code i == BOUNDS.length}. */
    public long atMost(int i) {
        long n = 0;
        for (int k = 0; k <= i; k++) {
            n += counts.get(k);
        }
        return n;
    }

    /** Decisions counted. */
    public long count() {
        return atMost(BOUNDS.length);
    }

    /** Their total time, in seconds. */
    public double sumSeconds() {
        return sumNanos.sum() / 1e9;
    }
}
