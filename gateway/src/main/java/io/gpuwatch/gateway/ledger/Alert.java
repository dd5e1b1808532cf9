package io.gpuwatch.gateway.ledger;

import io.gpuwatch.rules.eval.AlertState;

import java.util.Map;

/**
 * One alert as the ledger holds it: a firing episode of one rule on one scope instance.
 * {@code resolvedAt} is 0 while it fires.
 */
public record Alert(String fingerprint, String rule, String severity, Map<String, String> labels,
                    Map<String, String> annotations, long activeSince, long firedAt, long resolvedAt,
                    AlertState state) {
    public Alert {
        labels = Map.copyOf(labels);
        annotations = Map.copyOf(annotations);
    }

    Alert resolved(long at) {
        return new Alert(fingerprint, rule, severity, labels, annotations, activeSince, firedAt, at,
                AlertState.RESOLVED);
    }
}
