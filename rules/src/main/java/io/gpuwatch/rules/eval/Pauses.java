package io.gpuwatch.rules.eval;

/**
 * How long the whole process stood still (a garbage collection, any other safepoint, the host not running it)
 * within an interval of the engine's nano clock. Such a stop halts every thread; charging it to the rule that
 * happened to be evaluating would disable rules for the collector's sake (seen at 50,000 cards: 90–120 ms
 * evaluations, every one of them a young collection). Asked only when an evaluation has overrun its budget.
 */
@FunctionalInterface
public interface Pauses {
    /** Nothing ever pauses: every overrun is the rule's. */
    Pauses NONE = (from, to) -> 0;

    /** Nanoseconds of {@code [fromNanos, toNanos]} (on the engine's clock) the process spent stopped. */
    long pausedNanos(long fromNanos, long toNanos);

    /** An engine starts evaluating: stops are watched for until the matching {@link #exit()}. */
    default void enter() {
    }

    /** The engine is done with what it started at {@link #enter()}. */
    default void exit() {
    }

    /**
     * The stops of this JVM, as seen by one watchdog thread shared by every engine; the engine's clock must be
     * {@link System#nanoTime()}.
     */
    static Pauses jvm() {
        return Stalls.watchdog();
    }
}
