package io.gpuwatch.rules.eval;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The times a thread that asks to wake every {@link #BEAT_NANOS} woke far too late: the JVM or the host had
 * stopped it. A safepoint (every collection pause among them) stops all Java threads at once, so a late beat is
 * a stop the evaluating thread shared. Read against {@link System#nanoTime()} on both sides, unlike the
 * collectors' {@code GcInfo}, whose times are counted from another origin than the runtime's uptime (tens of
 * milliseconds apart), which made the pauses they reported miss the evaluations they overlapped.
 */
final class Stalls implements Pauses {
    /** How often the watchdog asks to wake. */
    static final long BEAT_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** A beat later than this past its due time was a stop; shorter delays are ordinary scheduling. */
    static final long LATE_NANOS = TimeUnit.MILLISECONDS.toNanos(8);
    private static final int KEPT = 256;

    private static final class Holder {
        static final Stalls WATCHDOG = start();

        private static Stalls start() {
            Stalls stalls = new Stalls();
            Thread t = new Thread(() -> {
                long last = System.nanoTime();
                while (true) {
                    LockSupport.parkNanos(BEAT_NANOS);
                    long now = System.nanoTime();
                    stalls.beat(last, now);
                    last = now;
                }
            }, "gpuwatch-stall-watchdog");
            t.setDaemon(true);
            t.start();
            return stalls;
        }
    }

    /** Ends and starts of the latest stops, oldest overwritten first. */
    private final long[] starts = new long[KEPT];
    private final long[] ends = new long[KEPT];
    private int next;
    private int count;

    /** The JVM's watchdog, started on first use. */
    static Stalls watchdog() {
        return Holder.WATCHDOG;
    }

    /** The watchdog slept from {@code sleptAt} and woke at {@code wokeAt}: anything later than due is a stop. */
    synchronized void beat(long sleptAt, long wokeAt) {
        long due = sleptAt + BEAT_NANOS;
        if (wokeAt - due <= LATE_NANOS) {
            return;
        }
        starts[next] = due;
        ends[next] = wokeAt;
        next = (next + 1) % KEPT;
        count = Math.min(count + 1, KEPT);
    }

    @Override
    public synchronized long pausedNanos(long fromNanos, long toNanos) {
        long paused = 0;
        for (int i = 0; i < count; i++) {
            long overlap = Math.min(toNanos, ends[i]) - Math.max(fromNanos, starts[i]);
            if (overlap > 0) {
                paused += overlap;
            }
        }
        return Math.min(paused, Math.max(0, toNanos - fromNanos));
    }
}
