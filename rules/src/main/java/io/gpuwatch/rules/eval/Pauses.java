package io.gpuwatch.rules.eval;

import com.sun.management.GarbageCollectorMXBean;
import com.sun.management.GcInfo;

import java.lang.management.ManagementFactory;
import java.lang.management.RuntimeMXBean;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * How long the whole process stood still, for a garbage collection, within an interval of the engine's nano
 * clock. A collection pauses every thread; charging it to the rule that happened to be evaluating would disable
 * rules for the collector's sake (seen at 50,000 cards: 120 ms evaluations, every one of them a young
 * collection). Asked only when an evaluation has overrun its budget, so it may be slow.
 */
@FunctionalInterface
public interface Pauses {
    /** Nothing ever pauses: every overrun is the rule's. */
    Pauses NONE = (from, to) -> 0;

    /** Nanoseconds of {@code [fromNanos, toNanos]} (on the engine's clock) the process spent paused. */
    long pausedNanos(long fromNanos, long toNanos);

    /**
     * The JVM's own collectors, read from the last collection of each ({@code GcInfo}, in milliseconds of JVM
     * uptime); {@code nanoClock} must be {@link System#nanoTime()}, the clock uptime is compared with.
     */
    static Pauses jvm(LongSupplier nanoClock) {
        List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .filter(GarbageCollectorMXBean.class::isInstance).map(GarbageCollectorMXBean.class::cast).toList();
        RuntimeMXBean runtime = ManagementFactory.getRuntimeMXBean();
        return (from, to) -> {
            long uptimeNowMs = runtime.getUptime();
            long nowNanos = nanoClock.getAsLong();
            double fromMs = uptimeNowMs - (nowNanos - from) / 1e6;
            double toMs = uptimeNowMs - (nowNanos - to) / 1e6;
            long paused = 0;
            for (GarbageCollectorMXBean c : collectors) {
                GcInfo last = c.getLastGcInfo();
                if (last == null) {
                    continue;
                }
                // uptime has millisecond steps: a collection within a millisecond of the interval counts
                double overlap = Math.min(toMs + 1, last.getEndTime()) - Math.max(fromMs - 1, last.getStartTime());
                if (overlap > 0) {
                    paused += Math.round(Math.min(overlap, last.getDuration()) * 1e6);
                }
            }
            return paused;
        };
    }
}
