package io.gpuwatch.rules.metric;

import io.gpuwatch.rules.scope.ScopeView;

/**
 * Computes one value of a derived series (such as the condition inside {@code fraction(cond, w)}) from a card
 * right after its raw sample was appended: 1 when the condition holds, 0 when not, NaN when a metric it reads
 * has no latest value ({@code last()} is NaN). Exceptions thrown by the view propagate to the caller.
 */
@FunctionalInterface
public interface SampleDerivation {
    double derive(ScopeView current);
}
