package io.gpuwatch.gateway.route;

import java.util.List;
import java.util.Objects;

/**
 * An escalation policy of the alerting file: {@code steps} paged one after another while nobody acknowledges,
 * then all of them again {@code repeat} more times. {@code file}, {@code line} and {@code column} are where its
 * name was written.
 */
public record EscalationPolicy(String name, List<EscalationStep> steps, int repeat, String file, int line, int column) {
    public EscalationPolicy {
        Objects.requireNonNull(name, "name");
        steps = List.copyOf(steps);
        if (steps.isEmpty()) {
            throw new IllegalArgumentException("escalation policy " + name + " has no steps");
        }
        if (repeat < 0) {
            throw new IllegalArgumentException("escalation policy " + name + " repeats a negative number of times");
        }
    }

    /** How many times the steps run in all: once, and then {@code repeat} more. */
    public int rounds() {
        return repeat + 1;
    }
}
