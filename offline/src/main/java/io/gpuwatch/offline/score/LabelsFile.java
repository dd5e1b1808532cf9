package io.gpuwatch.offline.score;

import io.gpuwatch.rules.Severity;
import io.gpuwatch.rules.scope.ScopeKind;
import io.gpuwatch.rules.source.Diagnostic;
import io.gpuwatch.rules.source.SourceText;
import io.gpuwatch.rules.source.YamlMapping;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads a labels file (docs/alert-quality.md) into {@link Labels}, reporting every mistake at its
 * file:line:column; a file with any error gives no labels, so a typo never turns into a wrong score.
 */
public final class LabelsFile {
    private static final List<String> FILE_KEYS = List.of("trace", "scenario", "start", "items");
    private static final List<String> ITEM_KEYS = List.of("id", "class", "kind", "layer", "scope", "node", "card",
            "task", "business", "queue", "at", "until", "within", "severity", "tolerate", "must");
    private static final long LOOKALIKE_SPAN_MS = 5 * 60_000;

    /** The labels read, or the errors that stopped them. */
    public record Load(Labels labels, List<Diagnostic> diagnostics) {
        public Load {
            diagnostics = List.copyOf(diagnostics);
        }

        public boolean ok() {
            return labels != null;
        }
    }

    private final String file;
    private final List<Diagnostic> diagnostics = new ArrayList<>();

    private LabelsFile(String file) {
        this.file = file;
    }

    /** Reads {@code path}. */
    public static Load read(Path path) {
        String name = path.toString();
        try {
            return parse(name, Files.readString(path));
        } catch (NoSuchFileException e) {
            return new Load(null, List.of(Diagnostic.error(name, 0, 0, "cannot read: no such file")));
        } catch (IOException e) {
            return new Load(null, List.of(Diagnostic.error(name, 0, 0, "cannot read: " + e.getMessage())));
        }
    }

    /** Reads {@code text}, named {@code file} in diagnostics. */
    public static Load parse(String file, String text) {
        LabelsFile r = new LabelsFile(file);
        Labels labels = r.run(text);
        return new Load(r.diagnostics.isEmpty() ? labels : null, r.diagnostics);
    }

    private Labels run(String text) {
        SourceText.Composed composed = SourceText.compose(file, text);
        if (composed.error() != null) {
            diagnostics.add(composed.error());
            return null;
        }
        Optional<Node> root = composed.root();
        if (root.isEmpty() || !(root.get() instanceof MappingNode top)) {
            if (root.isPresent()) {
                error(root.get(), "a labels file is a mapping with `start:` and `items:`");
            } else {
                diagnostics.add(Diagnostic.error(file, 0, 0, "empty file: a labels file has `start:` and `items:`"));
            }
            return null;
        }
        Map<String, Node> keys = mapping(top, FILE_KEYS, "top-level");
        String trace = string(keys.get("trace"));
        String scenario = string(keys.get("scenario"));
        Node startNode = required(top, keys, "start", "the epoch ms the simulation started");
        Long start = number(startNode);
        Node itemsNode = required(top, keys, "items", "the labelled incidents and look-alikes");
        List<Label> items = new ArrayList<>();
        if (itemsNode != null && !isNull(itemsNode)) {
            if (!(itemsNode instanceof SequenceNode seq)) {
                error(itemsNode, "`items` must be a list");
            } else {
                Set<String> ids = new HashSet<>();
                for (Node n : seq.getValue()) {
                    if (!(n instanceof MappingNode m)) {
                        error(n, "an item is a mapping with `id`, `class`, `at` …");
                        continue;
                    }
                    Label l = item(m, start == null ? 0 : start, ids);
                    if (l != null) {
                        items.add(l);
                    }
                }
            }
        }
        return start == null ? null : new Labels(file, trace, scenario, start, items);
    }

    private Label item(MappingNode m, long start, Set<String> ids) {
        int before = diagnostics.size();
        Map<String, Node> k = mapping(m, ITEM_KEYS, "item");
        String id = string(required(m, k, "id", "unique within the file"));
        if (id != null && !ids.add(id)) {
            error(k.get("id"), "id `" + id + "` is given twice");
        }
        Label.Kind kind = choice(required(m, k, "class", "hard, composite or lookalike"), Label.Kind.class);
        String node = string(k.get("node"));
        String card = string(k.get("card"));
        String task = string(k.get("task"));
        String business = string(k.get("business"));
        String queue = string(k.get("queue"));
        ScopeKind scope = choice(k.get("scope"), ScopeKind.class);
        if (scope == null && (k.get("scope") == null || isNull(k.get("scope")))) {
            scope = card != null ? ScopeKind.CARD : queue != null ? ScopeKind.QUEUE : ScopeKind.NODE;
        }
        if (scope != null) {
            String target = switch (scope) {
                case CARD -> card;
                case NODE -> node;
                case TASK -> task;
                case REPLICA -> task == null ? null : node;
                case BUSINESS -> business;
                case QUEUE -> queue;
            };
            if (target == null) {
                error(k.getOrDefault("scope", m), "scope " + scope.key() + " needs `"
                        + (scope == ScopeKind.CARD ? "card" : scope == ScopeKind.REPLICA ? "task` and `node"
                        : scope.key()) + "`, the " + scope.key() + " it is about");
            }
        }
        Long at = nonNegative(required(m, k, "at", "ms from start"));
        Long until = nonNegative(k.get("until"));
        long within = 0;
        Severity severity = null;
        List<Severity> tolerate = new ArrayList<>();
        Label.Must must = null;
        if (kind == Label.Kind.LOOKALIKE) {
            must = choice(required(m, k, "must", "not-page or not-notify for a look-alike"), Label.Must.class);
        } else if (kind != null) {
            Long w = nonNegative(required(m, k, "within", "the latest acceptable detection delay in ms"));
            within = w == null ? 0 : w;
            severity = choice(required(m, k, "severity", "page, ticket, notice or inspect"), Severity.class);
            Node t = k.get("tolerate");
            if (t instanceof SequenceNode s) {
                for (Node n : s.getValue()) {
                    Severity v = choice(n, Severity.class);
                    if (v != null) {
                        tolerate.add(v);
                    }
                }
            } else if (t != null && !isNull(t)) {
                error(t, "`tolerate` must be a list of severities");
            }
        }
        if (at != null && until != null && until < at) {
            error(k.get("until"), "`until` (" + until + ") is before `at` (" + at + ")");
        }
        if (diagnostics.size() > before || kind == null || at == null) {
            return null;
        }
        long end = until != null ? until : at + (kind == Label.Kind.LOOKALIKE ? LOOKALIKE_SPAN_MS : within);
        return new Label(id, kind, string(k.get("kind")), string(k.get("layer")), scope, node, card, task, business,
                queue, start + at, start + end, within, severity, tolerate, must);
    }

    private Map<String, Node> mapping(MappingNode node, List<String> allowed, String what) {
        return YamlMapping.entries(node, allowed, what, this::error);
    }

    private Node required(MappingNode parent, Map<String, Node> keys, String key, String what) {
        Node n = keys.get(key);
        if (n == null || isNull(n)) {
            error(n == null ? parent : n, "missing `" + key + "`: " + what);
            return null;
        }
        return n;
    }

    private static boolean isNull(Node n) {
        return n instanceof ScalarNode s && s.getTag().equals(Tag.NULL);
    }

    private String string(Node n) {
        if (n == null || isNull(n)) {
            return null;
        }
        if (!(n instanceof ScalarNode s)) {
            error(n, "expected a single value");
            return null;
        }
        return s.getValue();
    }

    private Long number(Node n) {
        String v = string(n);
        if (v == null) {
            return null;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            error(n, "expected a whole number of ms, got `" + v + "`");
            return null;
        }
    }

    private Long nonNegative(Node n) {
        Long v = number(n);
        if (v != null && v < 0) {
            error(n, "must not be negative, got " + v);
            return null;
        }
        return v;
    }

    /** The constant whose lower-case name (dashes for underscores) is the value, or null after an error. */
    private <E extends Enum<E>> E choice(Node n, Class<E> type) {
        String v = string(n);
        if (v == null) {
            return null;
        }
        List<String> names = new ArrayList<>();
        for (E e : type.getEnumConstants()) {
            String name = e.name().toLowerCase(Locale.ROOT).replace('_', '-');
            if (name.equals(v)) {
                return e;
            }
            names.add(name);
        }
        error(n, "unknown value `" + v + "` (" + String.join(", ", names) + ")");
        return null;
    }

    private void error(Node n, String message) {
        SourceText.Position p = SourceText.of(n);
        diagnostics.add(Diagnostic.error(file, p.line(), p.column(), message));
    }
}
