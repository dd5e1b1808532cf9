package io.gpuwatch.probe.scenario;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A simulated fleet and what happens to it: {@code nodes} nodes named {@code nodePrefix + index} (from 0), each
 * with {@code cardsPerNode} cards of {@code model}, sampled every {@code intervalMs}.
 *
 * @param seed drives every random choice, so one scenario file always plays out the same way
 * @param duration how long the simulation runs; null to run until stopped
 * @param labels labels of every node
 * @param nodeLabels extra labels by node name, over {@code labels}
 * @param startMs epoch ms at which an offline recording starts (the scenario's {@code start:})
 * @param scheduler whether a scheduler adapter reports the fleet's queues ({@code sched} frames)
 * @param expectations the labels of the incidents that carry {@code expect:}, in file order
 */
public record Scenario(String name, int nodes, int cardsPerNode, String nodePrefix, long intervalMs, long seed,
                       CardModel model, Duration duration, Map<String, String> labels,
                       Map<String, Map<String, String>> nodeLabels, List<Incident> incidents, long startMs,
                       boolean scheduler, List<Expectation> expectations) {
    /** Where an offline recording starts when the scenario names no {@code start}: 2026-01-01T00:00:00Z. */
    public static final long DEFAULT_START_MS = 1_767_225_600_000L;

    public Scenario {
        expectations = List.copyOf(expectations);
        labels = Map.copyOf(labels);
        Map<String, Map<String, String>> copy = new LinkedHashMap<>();
        nodeLabels.forEach((k, v) -> copy.put(k, Map.copyOf(v)));
        nodeLabels = Map.copyOf(copy);
        incidents = List.copyOf(incidents);
    }

    /** The same scenario with another duration (null: endless) and seed. */
    public Scenario with(Duration duration, long seed) {
        return new Scenario(name, nodes, cardsPerNode, nodePrefix, intervalMs, seed, model, duration, labels,
                nodeLabels, incidents, startMs, scheduler, expectations);
    }

    /** Node names in index order. */
    public List<String> nodeNames() {
        List<String> names = new ArrayList<>(nodes);
        for (int i = 0; i < nodes; i++) {
            names.add(nodePrefix + i);
        }
        return names;
    }

    /** The labels the node reports: the fleet's, overridden by its own. */
    public Map<String, String> labelsOf(String node) {
        Map<String, String> out = new LinkedHashMap<>(labels);
        out.putAll(nodeLabels.getOrDefault(node, Map.of()));
        return out;
    }
}
