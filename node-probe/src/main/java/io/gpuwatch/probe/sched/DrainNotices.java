package io.gpuwatch.probe.sched;

import io.gpuwatch.protocol.Event;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One {@code node_drained} event when a node with cards stops taking jobs (drained, down, cordoned) or its reason
 * changes, one {@code node_undrained} when it takes jobs again; nothing while it stays as it is.
 */
public final class DrainNotices {
    private final Map<String, String> drained = new HashMap<>();

    /** The events for the nodes of this reading, from every queue (a node in two partitions is one node). */
    public List<Event> observe(List<QueueReading> readings, long nowMs) {
        Map<String, String> now = new HashMap<>();
        Set<String> seen = new HashSet<>();
        for (QueueReading r : readings) {
            for (QueueReading.NodeCards n : r.nodes()) {
                seen.add(n.node());
                if (!n.schedulable()) {
                    now.put(n.node(), n.reason() == null ? "" : n.reason());
                }
            }
        }
        List<Event> events = new ArrayList<>();
        now.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
            if (!e.getValue().equals(drained.get(e.getKey()))) {
                events.add(new Event(0, nowMs, null, "node_drained", null,
                        "node " + e.getKey() + " takes no jobs: " + e.getValue(), null));
            }
        });
        drained.keySet().stream().filter(n -> !now.containsKey(n) && seen.contains(n)).sorted().forEach(n ->
                events.add(new Event(0, nowMs, null, "node_undrained", null, "node " + n + " takes jobs again",
                        null)));
        // a node the scheduler no longer lists is forgotten without a word: it left the pool
        drained.clear();
        drained.putAll(now);
        return events;
    }
}
