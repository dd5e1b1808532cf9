package io.gpuwatch.rules.dsl;

import io.gpuwatch.rules.metric.SampleDerivation;
import io.gpuwatch.rules.scope.ScopeView;

/** A condition evaluated once per sample into 1/0, or NaN when a metric it reads has no latest value. */
final class ConditionDerivation implements SampleDerivation {
    private final Expression condition;
    private final int[] readsLast;

    ConditionDerivation(Expression condition, int[] readsLast) {
        this.condition = condition;
        this.readsLast = readsLast.clone();
    }

    @Override
    public double derive(ScopeView current) {
        for (int id : readsLast) {
            if (Double.isNaN(current.series(id).last())) {
                return Double.NaN;
            }
        }
        return condition.test(current) ? 1 : 0;
    }

    @Override
    public String toString() {
        return condition.canonical();
    }
}
