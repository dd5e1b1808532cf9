package io.gpuwatch.notify;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The routing group a batch belongs to, as Alertmanager names it: its key, the route's key then the group
 * labels ({@code {}/{severity="page"}:{alertname="X", node="n1"}}), and the labels of the route's
 * {@code group_by} that the group's alerts share. Both stay the same while alerts join and leave the group,
 * so consumers may thread by the key.
 */
public record Group(String key, Map<String, String> labels) {
    public Group {
        Objects.requireNonNull(key, "key");
        labels = Map.copyOf(labels);
    }

    /** The group of {@code labels} on the route whose key is {@code routeKey} ({@code {}} for the root). */
    public static Group of(String routeKey, Map<String, String> labels) {
        return new Group(key(routeKey, labels), labels);
    }

    /**
     * {@code routeKey:{name="value", …}} with the labels sorted by name and values quoted as Go's {@code %q}
     * quotes them, as Alertmanager's {@code LabelSet.String()} writes them.
     */
    public static String key(String routeKey, Map<String, String> labels) {
        StringBuilder sb = new StringBuilder(routeKey).append(":{");
        boolean first = true;
        for (Map.Entry<String, String> e : new TreeMap<>(labels).entrySet()) {
            sb.append(first ? "" : ", ").append(e.getKey()).append("=\"").append(quoted(e.getValue())).append('"');
            first = false;
        }
        return sb.append('}').toString();
    }

    private static String quoted(String v) {
        StringBuilder sb = new StringBuilder(v.length());
        for (char c : v.toCharArray()) {
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '"' -> sb.append("\\\"");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }
}
