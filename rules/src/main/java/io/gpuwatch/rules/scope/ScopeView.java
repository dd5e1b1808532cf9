package io.gpuwatch.rules.scope;

import java.util.List;
import java.util.Map;

/**
 * What a rule may read about one scope instance (one card, one node) at the moment it is evaluated.
 * The gateway implements it over its windows; tests and the backtester implement it over their own data.
 * Implementations are read on one thread at a time and must not allocate on the steady path where avoidable.
 */
public interface ScopeView {
    /** Evaluation time, epoch milliseconds, from the caller's injected clock. */
    long now();

    /**
     * A label of the scope, or null when it has none. Keys: {@code node}, {@code card.uuid}, {@code card.name},
     * {@code card.index}, {@code task}, {@code owner}, {@code business}, and node labels from hello as
     * {@code labels.<key>} (e.g. {@code labels.cluster}).
     */
    String label(String key);

    /** The labels that identify this instance (card scope: node and uuid; node scope: node), for fingerprints. */
    Map<String, String> identity();

    /** The window over the series with this id (see {@code RuleSet.series()}); an empty series when no data. */
    Series series(int seriesId);

    /** Events of this scope of {@code kind} (and {@code code} when {@code code >= 0}) in the last {@code windowMs}. */
    int countEvents(String kind, int code, long windowMs);

    /** The distinct codes (xid numbers; kinds when {@code kind} is null) of matching events, ascending. */
    List<String> distinctEvents(String kind, int code, long windowMs);

    /** Milliseconds since the last frame of the node this scope belongs to (0 while it reports). */
    long silentForMs();

    /** True when some process runs on the card (card scope) or on any card of the node (node scope). */
    boolean allocated();
}
