package io.gpuwatch.rules.eval;

import java.time.Duration;

/**
 * How long one evaluation of one rule for one instance may take. A rule that takes longer {@code strikes}
 * times within {@code within} is disabled; more than one strike keeps a single pause of the whole process (a
 * garbage collection, class loading on the first run) from disabling whichever rule happened to be running.
 */
public record EvalBudget(Duration perEvaluation, int strikes, Duration within) {
    /**
     * 50 ms per evaluation, disabled on the fifth overrun within a minute. An evaluation costs well under a
     * microsecond (see docs/performance.md), so 50 ms means a rule that stalls the event loop; five strikes keep a
     * loaded machine's scheduler, a JIT warming up or a collection pause from disabling a healthy rule.
     */
    public static final EvalBudget DEFAULT = new EvalBudget(Duration.ofMillis(50), 5, Duration.ofMinutes(1));

    public EvalBudget {
        if (perEvaluation.isNegative() || perEvaluation.isZero()) {
            throw new IllegalArgumentException("the budget per evaluation must be positive, got " + perEvaluation);
        }
        if (strikes < 1) {
            throw new IllegalArgumentException("strikes must be at least 1, got " + strikes);
        }
        if (within.isNegative()) {
            throw new IllegalArgumentException("the strike window cannot be negative, got " + within);
        }
    }

    /** A budget that disables a rule at its first overrun. */
    public static EvalBudget of(Duration perEvaluation) {
        return new EvalBudget(perEvaluation, 1, Duration.ZERO);
    }
}
