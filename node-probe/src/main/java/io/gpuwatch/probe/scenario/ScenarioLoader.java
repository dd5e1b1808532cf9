package io.gpuwatch.probe.scenario;

import io.gpuwatch.probe.yaml.YamlDocument;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;

/** Reads scenario files (YAML, see examples/scenarios/README.md); every problem comes back with its position. */
public final class ScenarioLoader {
    private static final Set<String> TOP_KEYS = Set.of("name", "nodes", "cardsPerNode", "nodePrefix", "intervalMs",
            "seed", "model", "duration", "labels", "nodeLabels", "incidents");
    private static final Set<String> COMMON_KEYS = Set.of("at", "node", "card", "kind");
    private static final Map<String, Set<String>> KIND_KEYS = kindKeys();
    private static final int MAX_CARDS = 64;
    private static final int MAX_NODES = 10_000;

    private ScenarioLoader() {
    }

    private static Map<String, Set<String>> kindKeys() {
        Map<String, Set<String>> m = new LinkedHashMap<>();
        m.put("xid", Set.of("code", "text"));
        m.put("xid-burst", Set.of("codes", "count", "every", "cards"));
        m.put("thermal-throttle", Set.of("for"));
        m.put("memory-climb", Set.of("rate"));
        m.put("node-silent", Set.of("for"));
        m.put("idle-allocated", Set.of("for"));
        m.put("ecc-uncorrected", Set.of("count", "xid", "remapFailure"));
        return m;
    }

    /** Loads a scenario file; an unreadable file is reported as an error, not thrown. */
    public static ScenarioLoad load(Path file) {
        String source = file.toString();
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return new ScenarioLoad.Invalid(List.of(new ScenarioError(source, 0, 0, "cannot read: " + e.getMessage())));
        }
        String base = file.getFileName().toString().replaceFirst("\\.ya?ml$", "");
        return parse(source, base, text);
    }

    /** Parses scenario text; {@code source} names it in errors and is the default scenario name. */
    public static ScenarioLoad parse(String source, String text) {
        return parse(source, source, text);
    }

    private static ScenarioLoad parse(String source, String defaultName, String text) {
        Parser p = new Parser(source);
        YamlDocument.Composed composed = YamlDocument.compose(source, text);
        YamlDocument.Problem bad = composed.problem();
        if (bad != null) {
            return new ScenarioLoad.Invalid(List.of(new ScenarioError(source, bad.line(), bad.column(), bad.message())));
        }
        Optional<Node> root = composed.root();
        if (root.isEmpty()) {
            return new ScenarioLoad.Invalid(List.of(new ScenarioError(source, 0, 0, "the scenario file is empty")));
        }
        Scenario scenario = p.scenario(root.get(), defaultName);
        if (!p.errors.isEmpty()) {
            p.errors.sort(Comparator.comparingInt(ScenarioError::line).thenComparingInt(ScenarioError::column));
            return new ScenarioLoad.Invalid(p.errors);
        }
        return new ScenarioLoad.Loaded(scenario);
    }

    /** One parse: the errors found so far, and helpers that read typed values off nodes. */
    private static final class Parser {
        private final String source;
        private final List<ScenarioError> errors = new ArrayList<>();

        Parser(String source) {
            this.source = source;
        }

        Scenario scenario(Node root, String defaultName) {
            Map<String, NodeTuple> top = mapping(root, "the scenario", TOP_KEYS);
            if (top == null) {
                return null;
            }
            String name = optString(top, "name", defaultName);
            Integer nodes = required(top, "nodes", root, n -> integer(n, "nodes", 1, MAX_NODES));
            Integer cards = required(top, "cardsPerNode", root, n -> integer(n, "cardsPerNode", 1, MAX_CARDS));
            String prefix = optString(top, "nodePrefix", "node-");
            Integer interval = optional(top, "intervalMs", 1000, n -> integer(n, "intervalMs", 10, 3_600_000));
            Long seed = optional(top, "seed", 1L, n -> longValue(n, "seed"));
            CardModel model = optional(top, "model", CardModel.H100_SXM, this::model);
            Duration duration = optional(top, "duration", null, n -> duration(n, "duration", false));
            Map<String, String> labels = optional(top, "labels", Map.of(), n -> stringMap(n, "labels"));
            List<String> names = new ArrayList<>();
            if (nodes != null && prefix != null) {
                for (int i = 0; i < nodes; i++) {
                    names.add(prefix + i);
                }
            }
            Map<String, Map<String, String>> nodeLabels = optional(top, "nodeLabels", Map.of(),
                    n -> nodeLabels(n, names, nodes != null));
            Fleet fleet = new Fleet(names, nodes != null, cards, duration, seed == null ? 1L : seed);
            List<Incident> incidents = optional(top, "incidents", List.of(), n -> incidents(n, fleet));
            if (!errors.isEmpty()) {
                return null;
            }
            return new Scenario(name, nodes, cards, prefix, interval, seed, model, duration, labels, nodeLabels,
                    incidents);
        }

        /** What incidents are checked against; {@code cards} is null when cardsPerNode itself was wrong. */
        private record Fleet(List<String> names, boolean namesKnown, Integer cards, Duration duration, long seed) {
        }

        private List<Incident> incidents(Node node, Fleet fleet) {
            if (!(node instanceof SequenceNode seq)) {
                error(node, "'incidents' must be a list of incidents, each starting with '-'");
                return null;
            }
            List<Incident> out = new ArrayList<>();
            int index = 0;
            for (Node item : seq.getValue()) {
                Incident incident = incident(item, fleet, index++);
                if (incident != null) {
                    out.add(incident);
                }
            }
            return out;
        }

        private Incident incident(Node item, Fleet fleet, int index) {
            if (!(item instanceof MappingNode)) {
                error(item, "an incident must be a mapping with 'at', 'node' and 'kind'");
                return null;
            }
            Map<String, NodeTuple> m = mapping(item, "an incident", null);
            if (m == null) {
                return null;
            }
            String kind = required(m, "kind", item, n -> string(n, "kind"));
            if (kind != null && !KIND_KEYS.containsKey(kind)) {
                error(m.get("kind").getValueNode(), "unknown incident kind '" + kind + "'; known kinds: "
                        + String.join(", ", KIND_KEYS.keySet()));
                kind = null;
            }
            if (kind != null) {
                List<String> allowed = new ArrayList<>(KIND_KEYS.get(kind));
                allowed.addAll(COMMON_KEYS);
                if (kind.equals("node-silent")) {
                    allowed.remove("card");
                }
                for (NodeTuple t : m.values()) {
                    String key = ((ScalarNode) t.getKeyNode()).getValue();
                    if (kind.equals("node-silent") && key.equals("card")) {
                        error(t.getKeyNode(), "node-silent applies to the whole node; remove 'card'");
                    } else if (!allowed.contains(key)) {
                        error(t.getKeyNode(), "unknown key '" + key + "' for kind " + kind + "; it takes "
                                + String.join(", ", allowed.stream().sorted().toList()));
                    }
                }
            }
            Duration at = required(m, "at", item, n -> duration(n, "at", true));
            if (at != null && fleet.duration() != null && at.compareTo(fleet.duration()) >= 0) {
                error(m.get("at").getValueNode(), "'at' " + Quantities.format(at)
                        + " is not before the scenario's end (duration " + Quantities.format(fleet.duration()) + ")");
            }
            String node = required(m, "node", item, n -> nodeName(n, fleet));
            if (kind == null) {
                return null;
            }
            boolean cardRequired = !kind.equals("node-silent") && !kind.equals("xid-burst");
            Integer card = null;
            if (cardRequired) {
                card = required(m, "card", item, n -> cardIndex(n, fleet, "card"));
            } else if (kind.equals("xid-burst") && m.containsKey("card")) {
                card = cardIndex(m.get("card").getValueNode(), fleet, "card");
            }
            boolean ok = at != null && node != null && (!cardRequired || card != null);
            return switch (kind) {
                case "xid" -> {
                    Integer code = required(m, "code", item, n -> integer(n, "code", 1, 65_535));
                    String text = optional(m, "text", code == null ? null : XidCatalog.text(code),
                            n -> string(n, "text"));
                    yield !ok || code == null || text == null ? null : new Incident.Xid(at, node, card, code, text);
                }
                case "xid-burst" -> {
                    Incident burst = xidBurst(m, item, fleet, at, node, card, index);
                    yield ok ? burst : null;
                }
                case "thermal-throttle" -> {
                    Duration d = required(m, "for", item, n -> duration(n, "for", false));
                    yield !ok || d == null ? null : new Incident.ThermalThrottle(at, node, card, d);
                }
                case "memory-climb" -> {
                    Rate rate = required(m, "rate", item, this::rate);
                    yield !ok || rate == null ? null : new Incident.MemoryClimb(at, node, card, rate.bytes(), rate.per());
                }
                case "node-silent" -> {
                    Duration d = required(m, "for", item, n -> duration(n, "for", false));
                    yield !ok || d == null ? null : new Incident.NodeSilent(at, node, d);
                }
                case "idle-allocated" -> {
                    Duration d = required(m, "for", item, n -> duration(n, "for", false));
                    yield !ok || d == null ? null : new Incident.IdleAllocated(at, node, card, d);
                }
                default -> {
                    Integer count = optional(m, "count", 1, n -> integer(n, "count", 1, 1_000_000));
                    Integer xid = optional(m, "xid", null, n -> integer(n, "xid", 1, 65_535));
                    Boolean remapFailure = optional(m, "remapFailure", false, n -> bool(n, "remapFailure"));
                    yield !ok || count == null || remapFailure == null ? null
                            : new Incident.EccUncorrected(at, node, card, count, xid, remapFailure);
                }
            };
        }

        private Incident xidBurst(Map<String, NodeTuple> m, Node item, Fleet fleet, Duration at, String node,
                                  Integer card, int index) {
            List<Integer> codes = required(m, "codes", item, n -> intList(n, "codes", i -> integer(i, "codes", 1, 65_535)));
            if (codes != null && codes.isEmpty()) {
                error(m.get("codes").getValueNode(), "'codes' needs at least one XID code");
                codes = null;
            }
            Integer count = optional(m, "count", codes == null ? null : codes.size(),
                    n -> integer(n, "count", 1, 10_000));
            Duration every = required(m, "every", item, n -> duration(n, "every", false));
            List<Integer> cards = null;
            if (m.containsKey("cards")) {
                if (m.containsKey("card")) {
                    error(m.get("cards").getKeyNode(), "give either 'card' or 'cards', not both");
                }
                cards = intList(m.get("cards").getValueNode(), "cards", i -> cardIndex(i, fleet, "cards"));
                if (cards != null && cards.isEmpty()) {
                    error(m.get("cards").getValueNode(), "'cards' needs at least one card index");
                    cards = null;
                }
            } else if (card != null) {
                cards = List.of(card);
            } else if (fleet.cards() != null && count != null) {
                cards = spread(fleet.cards(), count, fleet.seed() + index);
            }
            if (codes == null || count == null || every == null || cards == null) {
                return null;
            }
            return new Incident.XidBurst(at, node, cards, codes, count, every);
        }

        /** Distinct cards (as many as there are, then repeating), chosen by the seed so a file replays the same. */
        private static List<Integer> spread(int cardsPerNode, int count, long seed) {
            List<Integer> all = new ArrayList<>();
            for (int i = 0; i < cardsPerNode; i++) {
                all.add(i);
            }
            SplittableRandom random = new SplittableRandom(seed);
            for (int i = all.size() - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                all.set(j, all.set(i, all.get(j)));
            }
            return all.subList(0, Math.min(count, cardsPerNode));
        }

        /** An amount of memory per period, like {@code 2GiB/10s}. */
        private record Rate(long bytes, Duration per) {
        }

        private Rate rate(Node where) {
            String rate = string(where, "rate");
            if (rate == null) {
                return null;
            }
            int slash = rate.indexOf('/');
            if (slash < 0) {
                error(where, "'rate' must be a size per duration, like 2GiB/10s, got '" + rate + "'");
                return null;
            }
            Long bytes = Quantities.bytes(rate.substring(0, slash).strip());
            String per = rate.substring(slash + 1).strip();
            Duration d = Quantities.duration(per.matches("ms|s|m|h") ? "1" + per : per);
            if (bytes == null || bytes <= 0 || d == null || d.isZero()) {
                error(where, "'rate' must be a size per duration, like 2GiB/10s or 512MiB/s, got '" + rate + "'");
                return null;
            }
            return new Rate(bytes, d);
        }

        private String nodeName(Node n, Fleet fleet) {
            String name = string(n, "node");
            if (name != null && fleet.namesKnown() && !fleet.names().contains(name)) {
                List<String> names = fleet.names();
                error(n, "no node '" + name + "' in this fleet; nodes are " + (names.size() <= 3
                        ? String.join(", ", names) : names.get(0) + " … " + names.get(names.size() - 1)));
                return null;
            }
            return name;
        }

        private Integer cardIndex(Node n, Fleet fleet, String field) {
            Integer card = integer(n, field, 0, Integer.MAX_VALUE);
            if (card != null && fleet.cards() != null && card >= fleet.cards()) {
                error(n, "card index " + card + " is out of range: nodes have " + fleet.cards() + " cards (0–"
                        + (fleet.cards() - 1) + ")");
                return null;
            }
            return card;
        }

        private Map<String, Map<String, String>> nodeLabels(Node node, List<String> names, boolean namesKnown) {
            Map<String, NodeTuple> m = mapping(node, "'nodeLabels'", null);
            if (m == null) {
                return null;
            }
            Map<String, Map<String, String>> out = new LinkedHashMap<>();
            m.forEach((name, t) -> {
                if (namesKnown && !names.contains(name)) {
                    error(t.getKeyNode(), "no node '" + name + "' in this fleet to label");
                    return;
                }
                Map<String, String> labels = stringMap(t.getValueNode(), "nodeLabels." + name);
                if (labels != null) {
                    out.put(name, labels);
                }
            });
            return out;
        }

        private CardModel model(Node n) {
            String name = string(n, "model");
            if (name == null) {
                return null;
            }
            CardModel model = CardModel.byName(name);
            if (model == null) {
                error(n, "unknown card model '" + name + "'; known models: " + CardModel.knownNames());
            }
            return model;
        }

        // ---- typed readers: each reports its own error and returns null

        private Map<String, NodeTuple> mapping(Node node, String what, Set<String> allowed) {
            if (!(node instanceof MappingNode mapping)) {
                error(node, what + " must be a mapping of keys to values");
                return null;
            }
            Map<String, NodeTuple> out = new LinkedHashMap<>();
            for (NodeTuple t : mapping.getValue()) {
                if (!(t.getKeyNode() instanceof ScalarNode key)) {
                    error(t.getKeyNode(), "keys must be plain names");
                    continue;
                }
                if (out.containsKey(key.getValue())) {
                    error(key, "'" + key.getValue() + "' is given twice");
                    continue;
                }
                if (allowed != null && !allowed.contains(key.getValue())) {
                    error(key, "unknown key '" + key.getValue() + "'; known keys: " + String.join(", ", sorted(allowed)));
                    continue;
                }
                out.put(key.getValue(), t);
            }
            return out;
        }

        private <T> T required(Map<String, NodeTuple> m, String key, Node owner, Function<Node, T> read) {
            NodeTuple t = m.get(key);
            if (t == null) {
                error(owner, "missing '" + key + "'");
                return null;
            }
            return read.apply(t.getValueNode());
        }

        private <T> T optional(Map<String, NodeTuple> m, String key, T fallback, Function<Node, T> read) {
            NodeTuple t = m.get(key);
            return t == null ? fallback : read.apply(t.getValueNode());
        }

        private String optString(Map<String, NodeTuple> m, String key, String fallback) {
            return optional(m, key, fallback, n -> string(n, key));
        }

        private String string(Node n, String field) {
            if (!(n instanceof ScalarNode s)) {
                error(n, "'" + field + "' must be a single value");
                return null;
            }
            if (s.getTag().equals(Tag.NULL) && s.isPlain()) {
                error(n, "'" + field + "' has no value");
                return null;
            }
            return s.getValue();
        }

        private Long longValue(Node n, String field) {
            String s = string(n, field);
            if (s == null) {
                return null;
            }
            try {
                return Long.parseLong(s);
            } catch (NumberFormatException e) {
                error(n, "'" + field + "' must be a whole number, got '" + s + "'");
                return null;
            }
        }

        private Integer integer(Node n, String field, int min, int max) {
            Long v = longValue(n, field);
            if (v == null) {
                return null;
            }
            if (v < min || v > max) {
                error(n, "'" + field + "' must be " + (max == Integer.MAX_VALUE ? "at least " + min
                        : "between " + min + " and " + max) + ", got " + v);
                return null;
            }
            return v.intValue();
        }

        private Boolean bool(Node n, String field) {
            String s = string(n, field);
            if (s == null) {
                return null;
            }
            if (!s.equals("true") && !s.equals("false")) {
                error(n, "'" + field + "' must be true or false, got '" + s + "'");
                return null;
            }
            return Boolean.valueOf(s);
        }

        private Duration duration(Node n, String field, boolean zeroAllowed) {
            String s = string(n, field);
            if (s == null) {
                return null;
            }
            Duration d = Quantities.duration(s.strip());
            if (d == null) {
                error(n, "'" + field + "' must be a duration like 20s, 1m30s or 500ms"
                        + (s.strip().matches("\\d+(\\.\\d+)?") ? " (it needs a unit: ms, s, m or h)" : "")
                        + ", got '" + s + "'");
                return null;
            }
            if (!zeroAllowed && d.isZero()) {
                error(n, "'" + field + "' must be longer than zero");
                return null;
            }
            return d;
        }

        private Map<String, String> stringMap(Node n, String field) {
            Map<String, NodeTuple> m = mapping(n, "'" + field + "'", null);
            if (m == null) {
                return null;
            }
            Map<String, String> out = new LinkedHashMap<>();
            m.forEach((k, t) -> {
                String v = string(t.getValueNode(), field + "." + k);
                if (v != null) {
                    out.put(k, v);
                }
            });
            return out;
        }

        private List<Integer> intList(Node n, String field, Function<Node, Integer> read) {
            if (!(n instanceof SequenceNode seq)) {
                error(n, "'" + field + "' must be a list, like [79, 48]");
                return null;
            }
            List<Integer> out = new ArrayList<>();
            boolean ok = true;
            for (Node item : seq.getValue()) {
                Integer v = read.apply(item);
                ok &= v != null;
                out.add(v);
            }
            return ok ? out : null;
        }

        private static List<String> sorted(Set<String> keys) {
            return keys.stream().sorted().toList();
        }

        private void error(Node n, String message) {
            Mark mark = n.getStartMark().orElse(null);
            errors.add(mark == null ? new ScenarioError(source, 0, 0, message)
                    : new ScenarioError(source, mark.getLine() + 1, mark.getColumn() + 1, message));
        }
    }
}
