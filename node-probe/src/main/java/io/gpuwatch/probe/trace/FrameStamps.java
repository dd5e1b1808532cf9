package io.gpuwatch.probe.trace;

import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Sched;

/** Copies of a producer's numbered frame with another seq or timestamp; the records themselves are immutable. */
final class FrameStamps {
    private FrameStamps() {
    }

    /** True for the numbered frames a producer sends: sample, event, app, sched. */
    static boolean numbered(Frame f) {
        return f instanceof Sample || f instanceof Event || f instanceof App || f instanceof Sched;
    }

    /** True for readings, the frames a full queue may shed; events are never shed. */
    static boolean reading(Frame f) {
        return f instanceof Sample || f instanceof App || f instanceof Sched;
    }

    /** The frame's timestamp; only for {@link #numbered} frames. */
    static long ts(Frame f) {
        if (f instanceof Sample s) {
            return s.ts();
        }
        if (f instanceof Event e) {
            return e.ts();
        }
        if (f instanceof App a) {
            return a.ts();
        }
        return ((Sched) f).ts();
    }

    static Frame withSeq(Frame f, long seq) {
        return with(f, seq, ts(f));
    }

    static Frame withTs(Frame f, long ts) {
        return with(f, f.seq(), ts);
    }

    private static Frame with(Frame f, long seq, long ts) {
        if (f instanceof Sample s) {
            return new Sample(seq, ts, s.cards());
        }
        if (f instanceof Event e) {
            return new Event(seq, ts, e.uuid(), e.kind(), e.xid(), e.text(), e.pid());
        }
        if (f instanceof App a) {
            return new App(seq, ts, a.task(), a.business(), a.source(), a.values());
        }
        Sched s = (Sched) f;
        return new Sched(seq, ts, s.queue(), s.values(), s.tasks());
    }
}
