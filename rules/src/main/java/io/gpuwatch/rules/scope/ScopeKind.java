package io.gpuwatch.rules.scope;

import java.util.List;
import java.util.Locale;

/** What one instance of a rule watches; written lower case in rule files ({@code card}, {@code node}, …). */
public enum ScopeKind {
    /** One GPU, identified by node and uuid. */
    CARD,
    /** One node, its cards pooled. */
    NODE,
    /** One task: its application readings, and the cards attributed to it pooled. */
    TASK,
    /**
     * One replica of a task: the application readings one node relays for the task, and the task's cards on that
     * node pooled.
     */
    REPLICA,
    /** One business: the cards of its tasks pooled, and its tasks' application readings pooled. */
    BUSINESS,
    /** One scheduler queue: its scheduling readings. */
    QUEUE;

    /**
     * The labels that name an instance of this scope, as its {@code ScopeView.identity()} gives them: an alert's
     * fingerprint is its rule and these, so labels that describe the instance (a card's task) may change
     * without making a new alert. A task's business is part of its identity (and its replicas') once known.
     */
    public List<String> identityLabels() {
        return switch (this) {
            case CARD -> List.of("node", "uuid");
            case NODE -> List.of("node");
            case TASK -> List.of("task", "business");
            case REPLICA -> List.of("task", "business", "node");
            case BUSINESS -> List.of("business");
            case QUEUE -> List.of("queue");
        };
    }

    /** The name rule files use. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }
}
