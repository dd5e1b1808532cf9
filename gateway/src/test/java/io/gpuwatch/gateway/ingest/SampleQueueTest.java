package io.gpuwatch.gateway.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Sample;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import org.junit.jupiter.api.Test;

/** The backlog between reading samples and evaluating them: turns with reads between, order, shedding when full. */
class SampleQueueTest {
    /** Tasks the loop runs next, and tasks it runs once it has read its sockets again. */
    private final Queue<Runnable> loop = new ArrayDeque<>();
    private final Queue<Runnable> afterReads = new ArrayDeque<>();
    /** What evaluating one sample costs on the fake clock. */
    private long cost;
    private final List<Long> handed = new ArrayList<>();
    private final IngestCounters counters = new IngestCounters();
    private final DecisionLatency latency = new DecisionLatency();
    private long nanos;
    private final FrameSink sink = new FrameSink() {
        @Override
        public void hello(Hello hello) {
        }

        @Override
        public void frame(String node, Frame frame) {
            handed.add(frame.seq());
            nanos += cost;
        }

        @Override
        public void shed(String node, long at, long seq) {
        }

        @Override
        public void disconnected(String node) {
        }
    };

    private static Sample sample(long seq) {
        return new Sample(seq, 1_764_700_000_000L + seq, List.of());
    }

    /** Runs what the loop has queued, then what waited for its reads, until nothing is left. */
    private void runLoop() {
        while (!loop.isEmpty() || !afterReads.isEmpty()) {
            Runnable next = loop.isEmpty() ? afterReads.poll() : loop.poll();
            next.run();
        }
    }

    @Test
    void aBacklogIsHandedOverATurnAtATimeInOrderWithReadsBetween() {
        cost = 1_000_000;
        SampleQueue q = new SampleQueue(100, 4_000_000, loop::add, afterReads::add, sink, counters, () -> nanos, latency);
        for (long seq = 1; seq <= 10; seq++) {
            assertTrue(q.offer("n1", sample(seq), 0));
        }
        assertEquals(1, loop.size(), "one task, however many samples wait");
        assertTrue(handed.isEmpty(), "nothing is evaluated while the frame is read");

        loop.poll().run();
        assertEquals(List.of(1L, 2L, 3L, 4L), handed, "4 ms of samples at 1 ms each");
        assertTrue(loop.isEmpty(), "the rest does not run straight after");
        assertEquals(1, afterReads.size(), "the rest waits for the loop to read its sockets");

        // an event read then reaches the sink ahead of the samples still queued
        sink.frame("n1", new Event(99, 1_764_700_000_000L, "GPU-0", "xid", 79, "fell off the bus", null));
        runLoop();
        assertEquals(List.of(1L, 2L, 3L, 4L, 99L, 5L, 6L, 7L, 8L, 9L, 10L), handed);
        assertEquals(10, counters.samples.get());
        assertEquals(0, q.size());
    }

    @Test
    void aQueueThatKeepsUpHandsEverythingOverInOneTurn() {
        cost = 10_000;
        SampleQueue q = new SampleQueue(100, 4_000_000, loop::add, afterReads::add, sink, counters, () -> nanos, latency);
        for (long seq = 1; seq <= 50; seq++) {
            q.offer("n1", sample(seq), 0);
        }
        loop.poll().run();
        assertEquals(50, handed.size());
        assertTrue(loop.isEmpty() && afterReads.isEmpty(), "no task left");
        assertTrue(q.offer("n1", sample(51), 0));
        assertEquals(1, loop.size(), "a new sample starts a new turn");
    }

    @Test
    void aFullQueueShedsNewSamplesAndCountsThem() {
        cost = 1_000_000;
        SampleQueue q = new SampleQueue(3, 2_000_000, loop::add, afterReads::add, sink, counters, () -> nanos, latency);
        for (long seq = 1; seq <= 3; seq++) {
            assertTrue(q.offer("n1", sample(seq), 0));
        }
        assertFalse(q.offer("n1", sample(4), 0));
        assertFalse(q.offer("n2", sample(5), 0));
        assertEquals(2, counters.shedSamples.get());
        assertEquals(2, counters.shedBacklog.get());
        assertEquals(3, counters.samples.get(), "shed samples are not counted as taken");

        loop.poll().run();
        assertTrue(q.offer("n1", sample(6), 0), "room again once a turn has gone through");
        runLoop();
        assertEquals(List.of(1L, 2L, 3L, 6L), handed);
    }

    @Test
    void theDecisionTimeOfASampleIncludesItsWaitInTheQueue() {
        SampleQueue q = new SampleQueue(100, 0, loop::add, afterReads::add, sink, counters, () -> nanos, latency);
        q.offer("n1", sample(1), 0);
        q.offer("n1", sample(2), 0);
        nanos = 3_000_000;
        loop.poll().run();
        // the second waited behind the first for another turn of the loop
        nanos = 30_000_000;
        afterReads.poll().run();

        assertEquals(2, latency.count());
        assertEquals(1, latency.atMost(index(0.005)), "the first was decided within 5 ms");
        assertEquals(1, latency.atMost(index(0.025)), "the second took longer than 25 ms");
        assertEquals(2, latency.atMost(index(0.05)));
        assertEquals(0.033, latency.sumSeconds(), 1e-9);
    }

    private static int index(double bound) {
        for (int i = 0; i < DecisionLatency.BOUNDS.length; i++) {
            if (DecisionLatency.BOUNDS[i] == bound) {
                return i;
            }
        }
        throw new IllegalArgumentException("no bucket bound " + bound);
    }

    @Test
    void aSampleSeqIsReadFromTheProbesPrefixOnly() {
        assertEquals(42, SampleQueue.sampleSeq("{\"type\":\"sample\",\"seq\":42,\"ts\":1,\"cards\":[]}"));
        assertEquals(-1, SampleQueue.sampleSeq("{\"type\":\"event\",\"seq\":42,\"ts\":1}"), "events are never shed");
        assertEquals(-1, SampleQueue.sampleSeq("{\"seq\":42,\"type\":\"sample\"}"), "another field order is decoded");
        assertEquals(-1, SampleQueue.sampleSeq("{\"type\":\"sample\",\"seq\":4x2,"));
        assertEquals(-1, SampleQueue.sampleSeq("{\"type\":\"sample\",\"seq\":,"));
        assertEquals(-1, SampleQueue.sampleSeq("{\"type\":\"sample\",\"seq\":12"), "cut short");
    }
}
