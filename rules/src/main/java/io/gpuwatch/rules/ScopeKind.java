package io.gpuwatch.rules;

import java.util.Locale;

/** What one instance of a rule watches; written lower case in rule files ({@code card}, {@code node}, …). */
public enum ScopeKind {
    /** One GPU, identified by node and uuid. */
    CARD,
    /** One node, its cards pooled. */
    NODE,
    /** One task: its application readings, and the cards attributed to it pooled. */
    TASK,
    /** One business: the cards of its tasks pooled, and its tasks' application readings pooled. */
    BUSINESS,
    /** One scheduler queue: its scheduling readings. */
    QUEUE;

    /** The name rule files use. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }
}
