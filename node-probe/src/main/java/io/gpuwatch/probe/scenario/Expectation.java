package io.gpuwatch.probe.scenario;

import java.time.Duration;
import java.util.List;

/**
 * What a good rule pack does about one incident of a scenario (its {@code expect:} block, see LABELS in
 * examples/scenarios/README.md), with every default resolved except what only the running fleet knows (card
 * uuids, the task on a card).
 *
 * @param cls {@code hard}, {@code composite} or {@code lookalike}
 * @param node the incident's node; null for a queue's
 * @param card the card index the label is about; null when it is about a node, task or queue as a whole
 * @param queue the queue of a scheduling incident
 * @param at when the incident starts, from the scenario's start
 * @param span how long after {@code at} a notification still belongs to this label
 * @param within latest acceptable detection delay; null for look-alikes
 * @param severity expected severity; null for look-alikes
 * @param must {@code not-page} or {@code not-notify} for look-alikes; null for incidents
 * @param holderAfter the incident puts a new holder on its card (see {@link Incident#replacesHolder}), so the label
 *                    names the task on the card from the start on rather than the one before
 */
public record Expectation(String id, String cls, String kind, String layer, String scope, String node, Integer card,
                          String queue, Duration at, Duration span, Duration within, String severity,
                          List<String> tolerate, String must, boolean holderAfter) {
    public Expectation {
        tolerate = List.copyOf(tolerate);
    }
}
