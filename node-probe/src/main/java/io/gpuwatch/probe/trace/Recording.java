package io.gpuwatch.probe.trace;

import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Records what a probe sends into a {@link TraceWriter}: each node's hello once per boot (a reconnect's hello
 * adds nothing), then every frame it sends. The probe hands its uplink unnumbered frames (seq 0), so the
 * recording numbers them per node from 1, as the uplink does; a frame that already has a seq keeps it. The
 * uplink's own {@code probe_degraded} reports never pass through here. Thread-safe.
 */
public final class Recording {
    /** One node's current boot and the seq its next unnumbered frame gets. */
    private static final class Stream {
        final String bootId;
        long nextSeq = 1;

        Stream(String bootId) {
            this.bootId = bootId;
        }
    }

    private final TraceWriter writer;
    private final Map<String, Stream> streams = new ConcurrentHashMap<>();

    public Recording(TraceWriter writer) {
        this.writer = writer;
    }

    /** Records the hello unless this node's boot is recorded already. */
    public void hello(Hello hello) {
        streams.compute(hello.node(), (node, s) -> {
            if (s != null && s.bootId.equals(hello.bootId())) {
                return s;
            }
            writer.write(hello, null);
            return new Stream(hello.bootId());
        });
    }

    /**
     * Records a sample, event, app or sched frame of a node whose hello is recorded. A reading may be shed when
     * the writer is behind (see {@link TraceWriter#write}); it still takes its seq, as a gap.
     */
    public void record(String node, Frame frame) {
        if (!FrameStamps.numbered(frame)) {
            throw new IllegalArgumentException("a recording takes sample, event, app and sched frames, not '"
                    + frame.type() + "'");
        }
        Stream s = streams.get(node);
        if (s == null) {
            throw new IllegalStateException("no hello of node '" + node + "' recorded before its '" + frame.type()
                    + "' frame");
        }
        // numbering and queueing under one lock keep the node's lines in seq order whoever calls
        synchronized (s) {
            Frame numbered = frame.seq() > 0 ? frame : FrameStamps.withSeq(frame, s.nextSeq);
            s.nextSeq = Math.max(s.nextSeq, numbered.seq() + 1);
            writer.write(numbered, node);
        }
    }

    /** Records the hello now and returns a sink that records each frame of that node, then passes it on. */
    public Consumer<Frame> tee(Hello hello, Consumer<Frame> next) {
        hello(hello);
        String node = hello.node();
        return frame -> {
            record(node, frame);
            next.accept(frame);
        };
    }
}
