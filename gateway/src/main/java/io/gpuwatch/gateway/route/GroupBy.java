package io.gpuwatch.gateway.route;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The labels that split a route's alerts into groups: a list ({@code [alertname, node]}; {@code []} puts all of
 * a route's alerts in one group) or every label ({@code ['...']}, which turns grouping off).
 */
public record GroupBy(boolean all, List<String> labels) {
    /** One group per route. */
    public static final GroupBy NONE = new GroupBy(false, List.of());
    /** One group per distinct label set. */
    public static final GroupBy ALL = new GroupBy(true, List.of());

    public GroupBy {
        labels = List.copyOf(labels);
    }

    /** Grouping by these labels. */
    public static GroupBy of(List<String> labels) {
        return new GroupBy(false, labels);
    }

    /** The labels of {@code alert} that name its group, by name; a label the alert lacks or has empty is left out. */
    public Map<String, String> groupLabels(Map<String, String> alert) {
        Map<String, String> out = new TreeMap<>();
        if (all) {
            alert.forEach((k, v) -> {
                if (!v.isEmpty()) {
                    out.put(k, v);
                }
            });
            return out;
        }
        for (String name : labels) {
            String v = alert.get(name);
            if (v != null && !v.isEmpty()) {
                out.put(name, v);
            }
        }
        return out;
    }

    /** {@code [alertname, node]} or {@code [...]}, as a config would write it. */
    @Override
    public String toString() {
        return all ? "[...]" : "[" + String.join(", ", labels) + "]";
    }
}
