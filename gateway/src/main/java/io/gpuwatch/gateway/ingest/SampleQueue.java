package io.gpuwatch.gateway.ingest;

import io.gpuwatch.protocol.Sample;

import java.util.ArrayDeque;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Samples taken from probes and not yet handed to the sink. They are handed over for at most a turn's time, and
 * what is left waits until the event loop has read its sockets again: a loop that runs queued tasks back to back
 * reads nothing until the whole backlog is evaluated, and an XID read behind seconds of samples pages seconds late.
 * When {@code capacity} samples are waiting, new ones are shed and counted: a fleet-wide burst costs samples,
 * never memory or events.
 */
final class SampleQueue {
    private record Pending(String node, Sample sample, long readAtNanos) {
    }

    private final int capacity;
    private final long turnNanos;
    private final Consumer<Runnable> schedule;
    private final Consumer<Runnable> afterReads;
    private final FrameSink sink;
    private final IngestCounters counters;
    private final LongSupplier nanos;
    private final DecisionLatency latency;
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private boolean scheduled;

    /**
     * @param turnNanos how long one task hands samples over (at least one) before the loop reads again
     * @param schedule runs a task later on the owning event loop
     * @param afterReads runs a task on the owning event loop once it has next read its sockets and run its timers
     * @param nanos the clock {@code latency} is measured on, the one {@link #offer}'s read time comes from
     */
    SampleQueue(int capacity, long turnNanos, Consumer<Runnable> schedule, Consumer<Runnable> afterReads, FrameSink sink,
                IngestCounters counters, LongSupplier nanos, DecisionLatency latency) {
        if (capacity < 1 || turnNanos < 0) {
            throw new IllegalArgumentException("capacity must be positive and the turn not negative, got " + capacity
                    + ", " + turnNanos + " ns");
        }
        this.capacity = capacity;
        this.turnNanos = turnNanos;
        this.schedule = schedule;
        this.afterReads = afterReads;
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
        long until = nanos.getAsLong() + turnNanos;
        try {
            Pending p;
            while ((p = pending.poll()) != null) {
                sink.frame(p.node(), p.sample());
                long done = nanos.getAsLong();
                latency.record(done - p.readAtNanos());
                if (done >= until) {
                    break;
                }
            }
        } finally {
            if (!pending.isEmpty()) {
                scheduled = true;
                afterReads.accept(this::drain);
            }
        }
    }
}
