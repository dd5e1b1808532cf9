package io.gpuwatch.gateway.ingest;

import io.gpuwatch.protocol.Sample;

import java.util.ArrayDeque;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Samples taken from probes and not yet handed to the sink. They are handed over a slice at a time, each slice a
 * task of its own on the event loop, so that socket reads, timers and events (which never wait here) run between
 * slices instead of behind a whole backlog. When {@code capacity} samples are waiting, new ones are shed and
 * counted: a fleet-wide burst costs samples, never memory or events.
 */
final class SampleQueue {
    private record Pending(String node, Sample sample, long readAtNanos) {
    }

    private final int capacity;
    private final int slice;
    private final Consumer<Runnable> schedule;
    private final FrameSink sink;
    private final IngestCounters counters;
    private final LongSupplier nanos;
    private final DecisionLatency latency;
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private boolean scheduled;

    /**
     * @param schedule runs a task later on the owning event loop
     * @param nanos the clock {@code latency} is measured on, the one {@link #offer}'s read time comes from
     */
    SampleQueue(int capacity, int slice, Consumer<Runnable> schedule, FrameSink sink, IngestCounters counters,
                LongSupplier nanos, DecisionLatency latency) {
        if (capacity < 1 || slice < 1) {
            throw new IllegalArgumentException("capacity and slice must be positive, got " + capacity + ", " + slice);
        }
        this.capacity = capacity;
        this.slice = slice;
        this.schedule = schedule;
        this.sink = sink;
        this.counters = counters;
        this.nanos = nanos;
        this.latency = latency;
    }

    /**
     * Queues a sample for the sink, read off the socket at {@code readAtNanos}; false, and counted as shed, when
     * the queue is full.
     */
    boolean offer(String node, Sample sample, long readAtNanos) {
        if (pending.size() >= capacity) {
            counters.shedSamples.incrementAndGet();
            counters.shedBacklog.incrementAndGet();
            return false;
        }
        pending.add(new Pending(node, sample, readAtNanos));
        counters.samples.incrementAndGet();
        counters.cardReadings.addAndGet(sample.cards().size());
        if (!scheduled) {
            scheduled = true;
            schedule.accept(this::drain);
        }
        return true;
    }

    /** True when a sample offered now would be shed. */
    boolean full() {
        return pending.size() >= capacity;
    }

    /**
     * The seq of a sample frame written the way probes write it ({@code {"type":"sample","seq":N,...}}), read
     * without decoding the frame; -1 for anything else. Lets a full queue shed a sample for the cost of a
     * prefix check rather than a JSON decode, so that reading keeps up and the events behind it are not held.
     */
    static long sampleSeq(String text) {
        String prefix = "{\"type\":\"sample\",\"seq\":";
        if (!text.startsWith(prefix)) {
            return -1;
        }
        long seq = 0;
        int i = prefix.length();
        int end = Math.min(text.length(), i + 18);
        for (; i < end; i++) {
            char c = text.charAt(i);
            if (c == ',') {
                return i == prefix.length() ? -1 : seq;
            }
            if (c < '0' || c > '9') {
                return -1;
            }
            seq = seq * 10 + (c - '0');
        }
        return -1;
    }

    /** Counts a sample shed before it was decoded. */
    void shedUnread() {
        counters.shedSamples.incrementAndGet();
        counters.shedBacklog.incrementAndGet();
    }

    /** Samples waiting now. */
    int size() {
        return pending.size();
    }

    private void drain() {
        scheduled = false;
        try {
            for (int i = 0; i < slice && !pending.isEmpty(); i++) {
                Pending p = pending.poll();
                sink.frame(p.node(), p.sample());
                latency.record(nanos.getAsLong() - p.readAtNanos());
            }
        } finally {
            if (!pending.isEmpty()) {
                scheduled = true;
                schedule.accept(this::drain);
            }
        }
    }
}
