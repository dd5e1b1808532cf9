package io.gpuwatch.gateway.alert;

import io.gpuwatch.rules.eval.AlertState;
import io.gpuwatch.rules.eval.Transition;

import java.util.LinkedHashMap;
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

    /**
     * The alert {@code t} speaks of, as the ledger holds it in {@code state}: fired at {@code t}'s time when
     * firing, with the summary, description and runbook as annotations.
     */
    public static Alert of(Transition t, AlertState state, AlertLinks links) {
        return new Alert(Fingerprint.of(t), t.rule().name(), t.labels().getOrDefault("severity", ""), t.labels(),
                annotations(t, links), t.activeSince(), state == AlertState.FIRING ? t.at() : 0, 0, state);
    }

    private static Map<String, String> annotations(Transition t, AlertLinks links) {
        Map<String, String> a = new LinkedHashMap<>();
        if (t.summary() != null && !t.summary().isEmpty()) {
            a.put("summary", t.summary());
        }
        if (t.description() != null && !t.description().isEmpty()) {
            a.put("description", t.description());
        }
        String runbook = t.rule().runbook();
        if (runbook != null && !runbook.isEmpty()) {
            a.put("runbook", links.runbook(runbook));
        }
        return a;
    }

    /** The same alert, resolved at {@code at}. */
    public Alert resolved(long at) {
        return new Alert(fingerprint, rule, severity, labels, annotations, activeSince, firedAt, at,
                AlertState.RESOLVED);
    }
}
