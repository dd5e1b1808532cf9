package io.gpuwatch.rules.source;

import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/** The keyed entries of a YAML mapping in a file that only allows certain keys, for the files' readers. */
public final class YamlMapping {
    private YamlMapping() {
    }

    /**
     * The values of {@code node} by key, in file order; a non-scalar, unknown or repeated key goes to {@code error}
     * with its node. An unknown key's message ({@code what} names the mapping) offers the closest allowed key, or
     * lists the {@code allowed} keys when none is close.
     */
    public static Map<String, Node> entries(MappingNode node, List<String> allowed, String what,
                                            BiConsumer<Node, String> error) {
        Map<String, Node> out = new LinkedHashMap<>();
        tuples(node, allowed, what, error).forEach((k, t) -> out.put(k, t.getValueNode()));
        return out;
    }

    /** As {@link #entries}, keeping each key's node beside its value. */
    public static Map<String, NodeTuple> tuples(MappingNode node, List<String> allowed, String what,
                                                BiConsumer<Node, String> error) {
        Map<String, NodeTuple> out = new LinkedHashMap<>();
        for (NodeTuple t : node.getValue()) {
            if (!(t.getKeyNode() instanceof ScalarNode key)) {
                error.accept(t.getKeyNode(), "keys must be plain names");
                continue;
            }
            String k = key.getValue();
            if (!allowed.contains(k)) {
                String hint = DidYouMean.hint(k, allowed);
                error.accept(key, "unknown " + what + " key `" + k + "`"
                        + (hint.isEmpty() ? " (" + String.join(", ", allowed) + ")" : hint));
            } else if (out.containsKey(k)) {
                error.accept(key, "`" + k + "` is given twice");
            } else {
                out.put(k, t);
            }
        }
        return out;
    }
}
