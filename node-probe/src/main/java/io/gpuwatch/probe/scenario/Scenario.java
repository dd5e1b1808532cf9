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
 */
public record Scenario(String name, int nodes, int cardsPerNode, String nodePrefix, long intervalMs, long seed,
                       CardModel model, Duration duration, Map<String, String> labels,
                       Map<String, Map<String, String>> nodeLabels, List<Incident> incidents) {
    public Scenario {
        labels = Map.copyOf(labels);
        Map<String, Map<String, String>> copy = new LinkedHashMap<>();
        nodeLabels.forEach((k, v) -> copy.put(k, Map.copyOf(v)));
        nodeLabels = Map.copyOf(copy);
        incidents = List.copyOf(incidents);
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
