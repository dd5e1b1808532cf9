package io.gpuwatch.gateway.backtest;

import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Sched;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The frames the gateway received in the last hour, as a trace a rule preview replays (docs/console.md): every
 * time-stamped frame while the hour fits in {@link #budgetBytes} (estimated), fewer minutes when it does not,
 * and each node's latest hello, which a replay needs before its samples. Frames are immutable records, so a
 * snapshot is a copy of references. Owned by the gateway's event loop.
 */
public final class RecentFrames {
    /** How far back a preview looks. */
    public static final long HORIZON_MS = 3600_000L;
    /** Memory the frames may take: a reading is about 850 bytes as decoded, so some 20 cards for an hour at 1 Hz. */
    public static final long DEFAULT_BUDGET_BYTES = 64L << 20;
    /** The most of the heap the frames may take, whatever was asked: the windows and the rest need the others. */
    public static final int HEAP_SHARE_DIVISOR = 4;

    private final long budgetBytes;
    private final ArrayDeque<TraceFrame> frames = new ArrayDeque<>();
    private final ArrayDeque<Integer> sizes = new ArrayDeque<>();
    private final Map<String, Hello> hellos = new LinkedHashMap<>();
    private long bytes;
    private long newest = Long.MIN_VALUE;

    /** Frames up to about {@code budgetBytes} of memory. */
    public RecentFrames(long budgetBytes) {
        this.budgetBytes = budgetBytes;
    }

    /** A node said hello: its latest hello starts its part of every snapshot. */
    public void hello(Hello hello) {
        hellos.put(hello.node(), hello);
    }

    /** Keeps a frame {@code node} sent; one without a time stamp (a heartbeat) is not replayed and not kept. */
    public void add(String node, Frame frame) {
        if (budgetBytes == 0) {
            return;
        }
        TraceFrame f = new TraceFrame(node, frame);
        long ts = f.ts();
        if (ts == TraceFrame.NO_TS) {
            return;
        }
        int size = estimate(frame);
        frames.addLast(f);
        sizes.addLast(size);
        bytes += size;
        newest = Math.max(newest, ts);
        while (!frames.isEmpty() && (bytes > budgetBytes || frames.peekFirst().ts() < newest - HORIZON_MS)) {
            frames.removeFirst();
            bytes -= sizes.removeFirst();
        }
    }

    /** The trace to replay: each node's hello, then the frames kept, in the order they came. */
    public List<TraceFrame> snapshot() {
        List<TraceFrame> out = new ArrayList<>(hellos.size() + frames.size());
        hellos.forEach((node, h) -> out.add(new TraceFrame(node, h)));
        out.addAll(frames);
        return out;
    }

    /** The time stamp of the oldest frame kept; {@link TraceFrame#NO_TS} when none is. */
    public long from() {
        return frames.isEmpty() ? TraceFrame.NO_TS : frames.peekFirst().ts();
    }

    /** The newest time stamp seen; {@link TraceFrame#NO_TS} before any. */
    public long to() {
        return frames.isEmpty() ? TraceFrame.NO_TS : newest;
    }

    /** Frames kept now. */
    public int size() {
        return frames.size();
    }

    /** Estimated bytes the frames kept take. */
    public long bytes() {
        return bytes;
    }

    /**
     * The budget a gateway whose heap may grow to {@code maxHeapBytes} can give the frames: what was asked, at
     * most a {@link #HEAP_SHARE_DIVISOR}th of the heap, so a small heap (`--fleet-size small`) is not filled.
     */
    public static long budgetFor(long askedBytes, long maxHeapBytes) {
        return Math.min(askedBytes, maxHeapBytes / HEAP_SHARE_DIVISOR);
    }

    /**
     * About what a frame takes on the heap as decoded (compressed references, 8-byte alignment): the frame and
     * its list, per reading its record, value array and uuid, per process its record, boxed memory and three
     * strings, which the decoder makes anew for every frame. RecentFramesTest holds it to the measured heap.
     */
    static int estimate(Frame frame) {
        int values = 16 + 16 + 8 * Metric.count();
        if (frame instanceof Sample s) {
            int n = 32 + 32 + 16 + 4 * s.cards().size();
            for (CardReading r : s.cards()) {
                n += 24 + values + string(r.uuid()) + 24 + 4 * r.processes().size();
                for (ProcessInfo p : r.processes()) {
                    n += 40 + (p.usedMemBytes() == null ? 0 : 24) + string(p.task()) + string(p.owner())
                            + string(p.business());
                }
            }
            return n;
        }
        if (frame instanceof Sched s) {
            return 128 + values + 96 * s.tasks().size();
        }
        return 96 + values;
    }

    /** A Latin-1 string's header and byte array. */
    private static int string(String s) {
        return s == null ? 0 : 24 + ((16 + s.length() + 7) & ~7);
    }
}
