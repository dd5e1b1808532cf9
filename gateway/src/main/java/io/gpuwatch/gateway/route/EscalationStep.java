package io.gpuwatch.gateway.route;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One step of a policy: page through the receivers {@code via}, mentioning whoever is on call in
 * {@code targets} at that moment, then wait {@code timeout} for an acknowledgement before the next step.
 */
public record EscalationStep(List<EscalationTarget> targets, List<String> via, Duration timeout) {
    public EscalationStep {
        targets = List.copyOf(targets);
        via = List.copyOf(via);
        Objects.requireNonNull(timeout, "timeout");
        if (via.isEmpty()) {
            throw new IllegalArgumentException("an escalation step pages through at least one receiver");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("an escalation step waits a positive time, got " + timeout);
        }
    }
}
