package io.gpuwatch.rules.dsl;

/**
 * For a condition that is false now: the earliest instant at which it could hold again, whatever new samples
 * arrive, as long as no sample rewrites another and the cards stay ({@link io.gpuwatch.rules.scope.ScopeView#quietMark}).
 * Built by the compiler from the comparisons whose windows can tell ({@link Watch}); a rule need not be
 * evaluated before that instant, which spares a busy card's every sample the rules that wait on a window to empty.
 */
@FunctionalInterface
interface Quiet {
    /** The instant, or {@link Long#MIN_VALUE} when the condition holds now or nothing it reads can tell. */
    long until(EvalContext c);

    /** A conjunction is false until every false part turns: the latest of what its parts can tell, if any. */
    static Quiet all(Quiet left, Quiet right) {
        if (left == null) {
            return right;
        }
        if (right == null) {
            return left;
        }
        return c -> Math.max(left.until(c), right.until(c));
    }

    /** A disjunction is false until either part turns: the earlier, known only when both parts can tell. */
    static Quiet any(Quiet left, Quiet right) {
        if (left == null || right == null) {
            return null;
        }
        return c -> {
            long l = left.until(c);
            return l == Long.MIN_VALUE ? l : Math.min(l, right.until(c));
        };
    }
}
