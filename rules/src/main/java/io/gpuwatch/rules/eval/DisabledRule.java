package io.gpuwatch.rules.eval;

import io.gpuwatch.rules.source.Diagnostic;

import java.time.Duration;

/**
 * A rule the engine stopped running for a while because its evaluations took longer than the budget: on which
 * instance the last overrun happened, how long it took and what the budget was (nanoseconds), when it was
 * disabled and when it runs again (on the engine's nano clock), how many times in a row it has been disabled
 * (1 the first time), and the diagnostic operators see, at the rule's {@code when}. Its alerts keep the state they
 * had until it runs again.
 */
public record DisabledRule(String rule, String instanceKey, long tookNanos, long budgetNanos, long disabledAtNanos,
                           long retryAtNanos, int inARow, Diagnostic diagnostic) {

    /** How long the rule stays disabled this time. */
    public Duration backoff() {
        return Duration.ofNanos(retryAtNanos - disabledAtNanos);
    }
}
