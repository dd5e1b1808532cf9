package io.gpuwatch.rules.eval;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
        static final Stalls WATCHDOG = start("gpuwatch-stall-watchdog");
    }

    private static final VarHandle EVALUATING;

    static {
        try {
            EVALUATING = MethodHandles.lookup().findVarHandle(Stalls.class, "evaluating", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * A watchdog on a daemon thread of its own. It beats only while an engine evaluates: beating all the time it
     * took 0.84 % of a core on a 256-card gateway, resting between evaluations 0.17 % (docs/performance.md), and
     * a stop while nothing evaluates cannot be charged to a rule.
     */
    static Stalls start(String name) {
        Stalls stalls = new Stalls();
        Thread t = new Thread(stalls::watch, name);
        t.setDaemon(true);
        stalls.thread = t;
        t.start();
        return stalls;
    }

    /** Engines evaluating now. */
    private volatile int evaluating;
    /** The watchdog is parked until an engine starts evaluating. */
    private volatile boolean resting;
    private Thread thread;
    private long beats;

    /** Ends and starts of the latest stops, oldest overwritten first. */
    private final long[] starts = new long[KEPT];
    private final long[] ends = new long[KEPT];
    private int next;
    private int count;

    private void watch() {
        long last = System.nanoTime();
        while (true) {
            if (evaluating == 0) {
                resting = true;
                // checked again after saying so: an engine that started in between saw no rest and did not unpark
                if (evaluating == 0) {
                    LockSupport.park(this);
                }
                resting = false;
                last = System.nanoTime();
                continue;
            }
            LockSupport.parkNanos(BEAT_NANOS);
            long now = System.nanoTime();
            beat(last, now);
            last = now;
        }
    }

    @Override
    public void enter() {
        if ((int) EVALUATING.getAndAdd(this, 1) == 0 && resting && thread != null) {
            LockSupport.unpark(thread);
        }
    }

    @Override
    public void exit() {
        EVALUATING.getAndAdd(this, -1);
    }

    /** Beats so far: the watchdog's wake-ups while engines evaluated. */
    synchronized long beats() {
        return beats;
    }

    /** The JVM's watchdog, started on first use. */
    static Stalls watchdog() {
        return Holder.WATCHDOG;
    }

    /** The watchdog slept from {@code sleptAt} and woke at {@code wokeAt}: anything later than due is a stop. */
    synchronized void beat(long sleptAt, long wokeAt) {
        beats++;
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
