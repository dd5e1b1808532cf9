package io.gpuwatch.rules.eval;

/** Where one rule stands for one scope instance. */
public enum AlertState {
    /** The condition does not hold. */
    INACTIVE,
    /** The condition holds, not yet for the rule's {@code for}. */
    PENDING,
    /** The condition has held for {@code for}; an alert is live. */
    FIRING,
    /** It fired, and the condition has been false for {@code keep_firing_for}. */
    RESOLVED
}
