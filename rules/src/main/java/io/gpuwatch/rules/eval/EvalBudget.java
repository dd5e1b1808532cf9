package io.gpuwatch.rules.eval;

import java.time.Duration;

/**
 * How long one evaluation of one rule for one instance may take, and what an overrun costs the rule. A rule that
 * takes longer {@code strikes} times within {@code within} is disabled for a back-off, then runs again; more than
 * one strike keeps a single pause of the whole process (a garbage collection, class loading on the first run)
 * from disabling whichever rule happened to be running. Overruns in the first {@code grace} after the rules are
 * loaded are counted but never strike, since that is when the JIT compiles every rule. The back-off starts at
 * {@code backoff}, doubles each time the rule is disabled again, stops at {@code maxBackoff}, and starts over
 * once the rule has run for {@code maxBackoff} after coming back without being disabled.
 */
public record EvalBudget(Duration perEvaluation, int strikes, Duration within, Duration grace, Duration backoff,
                         Duration maxBackoff) {
    /** The back-off of a rule's first disablement, unless a budget says otherwise. */
    public static final Duration DEFAULT_BACKOFF = Duration.ofMinutes(5);
    /** The longest back-off, unless a budget says otherwise. */
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofHours(1);

    /**
     * 50 ms per evaluation, disabled on the fifth overrun within a minute, not at all in the first two minutes,
     * for 5 minutes doubling up to an hour. An evaluation costs well under a microsecond (see
     * docs/performance.md), so 50 ms means a rule that stalls the event loop; five strikes keep a loaded machine's
     * scheduler or a collection pause from disabling a healthy rule, the grace covers JIT warm-up, and the
     * back-off makes a stall cost minutes of one rule, never the rest of the process's life.
     */
    public static final EvalBudget DEFAULT = new EvalBudget(Duration.ofMillis(50), 5, Duration.ofMinutes(1),
            Duration.ofMinutes(2), DEFAULT_BACKOFF, DEFAULT_MAX_BACKOFF);

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
        if (grace.isNegative()) {
            throw new IllegalArgumentException("the start-up grace cannot be negative, got " + grace);
        }
        if (backoff.isNegative() || backoff.isZero()) {
            throw new IllegalArgumentException("the back-off must be positive, got " + backoff);
        }
        if (maxBackoff.compareTo(backoff) < 0) {
            throw new IllegalArgumentException("the longest back-off " + maxBackoff + " is shorter than the first "
                    + backoff);
        }
    }

    /** {@code strikes} overruns within {@code within} disable a rule; no grace, the default back-offs. */
    public EvalBudget(Duration perEvaluation, int strikes, Duration within) {
        this(perEvaluation, strikes, within, Duration.ZERO, DEFAULT_BACKOFF, DEFAULT_MAX_BACKOFF);
    }

    /** A budget that disables a rule at its first overrun, without grace, for the default back-offs. */
    public static EvalBudget of(Duration perEvaluation) {
        return new EvalBudget(perEvaluation, 1, Duration.ZERO);
    }

    /** This budget with another start-up grace. */
    public EvalBudget withGrace(Duration startupGrace) {
        return new EvalBudget(perEvaluation, strikes, within, startupGrace, backoff, maxBackoff);
    }

    /** This budget with another first and longest back-off. */
    public EvalBudget withBackoff(Duration first, Duration longest) {
        return new EvalBudget(perEvaluation, strikes, within, grace, first, longest);
    }

    /** How long a rule stays disabled the {@code inARow}-th time in a row (1 for the first), in nanoseconds. */
    long backoffNanos(int inARow) {
        long max = maxBackoff.toNanos();
        long b = backoff.toNanos();
        for (int i = 1; i < inARow && b < max; i++) {
            b = b > max / 2 ? max : b * 2;
        }
        return Math.min(b, max);
    }
}
