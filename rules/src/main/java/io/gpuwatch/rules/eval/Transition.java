package io.gpuwatch.rules.eval;

import io.gpuwatch.rules.Rule;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A change of one rule's state for one scope instance at {@code at} (epoch ms). {@code labels} are the alert's
 * labels: {@code alertname}, {@code severity}, {@code layer}, the scope's identity, the rule's static labels and
 * the scope's context (node labels, a card's task, owner and business), in that order; only the identity
 * names the alert ({@link io.gpuwatch.rules.scope.ScopeKind#identityLabels}). {@code activeSince} is when the episode's condition first held.
 */
public record Transition(Rule rule, Map<String, String> labels, AlertState from, AlertState to, long at,
                         long activeSince, String summary, String description) {
    public Transition {
        labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
    }
}
