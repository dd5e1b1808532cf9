package io.gpuwatch.offline.score;

import io.gpuwatch.rules.Severity;
import io.gpuwatch.rules.scope.ScopeKind;

import java.util.Map;

/**
 * One firing notification of a replay: its rule, severity (null when the label names none of the four),
 * {@code action} label (null without one), the scope it was raised on, its scope labels ({@code node},
 * {@code uuid}, {@code task}, {@code business}, {@code queue}) and the epoch ms it fired.
 */
public record Fired(String rule, Severity severity, String action, ScopeKind scope, Map<String, String> labels,
                    long at) {
    public Fired {
        labels = Map.copyOf(labels);
    }

    /**
     * Whether this notification belongs to {@code label}: it fired inside the label's span and its scope covers
     * the label's. A card alert covers its card; a node alert its node and every card of it; a task alert the task
     * and its cards; a replica alert the replica, its task's incident where the label places it on the replica's
     * node, and the cards of its node (those of its task, where the label names one); a business alert the business, its tasks and their cards; a queue alert the queue.
     */
    public boolean covers(Label label) {
        if (at < label.at() || at > label.until()) {
            return false;
        }
        return switch (scope) {
            case CARD -> label.scope() == ScopeKind.CARD && same(label.card(), "uuid");
            case NODE -> (label.scope() == ScopeKind.CARD || label.scope() == ScopeKind.NODE)
                    && same(label.node(), "node");
            case TASK -> (label.scope() == ScopeKind.CARD || label.scope() == ScopeKind.TASK)
                    && same(label.task(), "task");
            case REPLICA -> label.scope() != ScopeKind.NODE && label.scope() != ScopeKind.BUSINESS
                    && label.scope() != ScopeKind.QUEUE && same(label.node(), "node")
                    && (label.task() == null ? label.scope() == ScopeKind.CARD : same(label.task(), "task"));
            case BUSINESS -> label.scope() != ScopeKind.NODE && label.scope() != ScopeKind.QUEUE
                    && same(label.business(), "business");
            case QUEUE -> label.scope() == ScopeKind.QUEUE && same(label.queue(), "queue");
        };
    }

    private boolean same(String labelled, String key) {
        return labelled != null && labelled.equals(labels.get(key));
    }
}
