package io.gpuwatch.gateway.backtest;

import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Sched;

import java.util.Objects;

/** One frame of a recorded trace and the node that sent it (a hello's own node). */
public record TraceFrame(String node, Frame frame) {
    /** {@link #ts()} of a frame that carries no time of its own, such as a hello. */
    public static final long NO_TS = Long.MIN_VALUE;

    public TraceFrame {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(frame, "frame");
    }

    /** The producer's time stamp of the frame, epoch ms, or {@link #NO_TS}. */
    public long ts() {
        if (frame instanceof Sample s) {
            return s.ts();
        }
        if (frame instanceof Event e) {
            return e.ts();
        }
        if (frame instanceof App a) {
            return a.ts();
        }
        if (frame instanceof Sched s) {
            return s.ts();
        }
        return NO_TS;
    }
}
