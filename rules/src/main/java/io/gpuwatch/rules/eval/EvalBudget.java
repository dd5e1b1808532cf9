package io.gpuwatch.rules.eval;

import java.time.Duration;

/**
 * How long one evaluation of one rule for one instance may take. A rule that takes longer {@code strikes}
 * times within {@code within} is disabled; more than one strike keeps a single pause of the whole process (a
 * garbage collection, class loading on the first run) from disabling whichever rule happened to be running.
 */
public record EvalBudget(Duration perEvaluation, int strikes, Duration within) {
    /** 10 ms per evaluation, disabled on the third overrun within a minute. */
    public static final EvalBudget DEFAULT = new EvalBudget(Duration.ofMillis(10), 3, Duration.ofMinutes(1));

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
