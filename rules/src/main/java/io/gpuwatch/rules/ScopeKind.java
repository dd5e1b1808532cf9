package io.gpuwatch.rules;

import java.util.Locale;

/** What one instance of a rule watches; written lower case in rule files ({@code card}, {@code node}). */
public enum ScopeKind {
    /** One GPU, identified by node and uuid. */
    CARD,
    /** One node, its cards pooled. */
    NODE;

    /** The name rule files use. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }
}
