package io.gpuwatch.rules.eval;

import io.gpuwatch.rules.Diagnostic;

/**
 * A rule the engine stopped running because its evaluations took longer than the budget: on which instance the
 * last overrun happened, how long it took and what the budget was (nanoseconds), and the diagnostic operators
 * see, at the rule's {@code when}. Its alerts keep the state they had until a reload brings it back.
 */
public record DisabledRule(String rule, String instanceKey, long tookNanos, long budgetNanos, Diagnostic diagnostic) {
}
