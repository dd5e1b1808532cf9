package io.gpuwatch.rules;

import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;

/** The keyed entries of a YAML mapping in a file that only allows certain keys, for the files' readers. */
public final class YamlMapping {
    private YamlMapping() {
    }

    /**
     * The values of {@code node} by key, in file order; a non-scalar, unknown ({@code what} names the mapping in
     * the message, which lists the {@code allowed} keys) or repeated key goes to {@code error} with its node.
     */
    public static Map<String, Node> entries(MappingNode node, List<String> allowed, String what,
                                            BiConsumer<Node, String> error) {
        Map<String, Node> out = new LinkedHashMap<>();
        for (NodeTuple t : node.getValue()) {
            if (!(t.getKeyNode() instanceof ScalarNode key)) {
                error.accept(t.getKeyNode(), "keys must be plain names");
                continue;
            }
            String k = key.getValue();
            if (!allowed.contains(k)) {
                error.accept(key, "unknown " + what + " key `" + k + "` (" + String.join(", ", allowed) + ")");
            } else if (out.containsKey(k)) {
                error.accept(key, "`" + k + "` is given twice");
            } else {
                out.put(k, t.getValueNode());
            }
        }
        return out;
    }

    /** {@code " (did you mean `x`?)"} for the closest known name within a small edit distance, else empty. */
    public static String suggestion(String given, Collection<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        String lower = given.toLowerCase(Locale.ROOT);
        for (String k : known) {
            int d = editDistance(lower, k.toLowerCase(Locale.ROOT));
            if (d < bestDistance || d == bestDistance && best != null && k.compareTo(best) < 0) {
                best = k;
                bestDistance = d;
            }
        }
        int allowed = given.length() <= 3 ? 1 : given.length() <= 8 ? 2 : 3;
        return best != null && bestDistance <= allowed ? " (did you mean `" + best + "`?)" : "";
    }

    /** The Levenshtein distance of {@code a} and {@code b}, as every "did you mean" of the project measures it. */
    public static int editDistance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
