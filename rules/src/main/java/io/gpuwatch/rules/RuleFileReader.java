package io.gpuwatch.rules;

import io.gpuwatch.rules.dsl.DslCompiler;
import io.gpuwatch.rules.dsl.DslException;
import io.gpuwatch.rules.dsl.DslProblem;
import io.gpuwatch.rules.dsl.Durations;
import io.gpuwatch.rules.dsl.Expression;
import io.gpuwatch.rules.dsl.SeriesCatalog;
import io.gpuwatch.rules.dsl.Template;
import io.gpuwatch.rules.scope.ScopeKind;
import io.gpuwatch.rules.source.Diagnostic;
import io.gpuwatch.rules.source.SourceText;
import io.gpuwatch.rules.source.YamlMapping;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads rule files into rules, collecting every problem with its file:line:column. The YAML is composed into
 * nodes (never constructed into objects), so each value keeps the position it was written at.
 */
final class RuleFileReader {
    private static final Pattern NAME = Pattern.compile("[a-z0-9-]+");
    private static final Pattern LABEL_KEY = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final List<String> FILE_KEYS = List.of("group", "layer", "scope", "severity", "labels", "rules");
    private static final List<String> RULE_KEYS = List.of("name", "when", "severity", "layer", "scope", "for",
            "keep_firing_for", "keep_firing_while", "labels", "summary", "description", "runbook");
    private static final Set<String> RESERVED_LABELS =
            Set.of("alertname", "severity", "layer", "node", "uuid", "task", "business", "queue");

    private final SeriesCatalog catalog;
    private final List<Diagnostic> diagnostics;
    private final List<Rule> rules = new ArrayList<>();
    private final Map<String, Rule> byName = new HashMap<>();

    RuleFileReader(SeriesCatalog catalog, List<Diagnostic> diagnostics) {
        this.catalog = catalog;
        this.diagnostics = diagnostics;
    }

    /** The load so far: a rule set when no error was found anywhere. */
    RuleLoad finish() {
        boolean failed = diagnostics.stream().anyMatch(d -> d.level() == Diagnostic.Level.ERROR);
        return new RuleLoad(failed ? null : RuleSet.of(rules, catalog), diagnostics);
    }

    void read(String file, String text) {
        new FileRead(file, text).run();
    }

    /** Reading one file. */
    private final class FileRead {
        private final String file;
        private final String text;
        private final SourceText src;

        FileRead(String file, String text) {
            this.file = file;
            this.text = text;
            this.src = new SourceText(text);
        }

        void run() {
            SourceText.Composed composed = SourceText.compose(file, text);
            if (composed.error() != null) {
                diagnostics.add(composed.error());
                return;
            }
            Optional<Node> root = composed.root();
            if (root.isEmpty()) {
                diagnostics.add(Diagnostic.warning(file, 0, 0, "empty file, no rules"));
                return;
            }
            if (!(root.get() instanceof MappingNode top)) {
                error(root.get(), "a rule file is a mapping with `group:` and `rules:`");
                return;
            }
            Map<String, NodeTuple> keys = mapping(top, FILE_KEYS, "top-level");
            Defaults defaults = defaults(top, keys);
            NodeTuple rulesEntry = keys.get("rules");
            if (rulesEntry == null) {
                error(top, "missing `rules:`, the list of rules");
                return;
            }
            Node list = rulesEntry.getValueNode();
            if (isNull(list) || list instanceof SequenceNode seq && seq.getValue().isEmpty()) {
                diagnostics.add(warning(list, "`rules:` is empty"));
                return;
            }
            if (!(list instanceof SequenceNode seq)) {
                error(list, "`rules:` must be a list of rules, each starting with `- name:`");
                return;
            }
            for (Node item : seq.getValue()) {
                if (item instanceof MappingNode m) {
                    rule(m, defaults);
                } else {
                    error(item, "a rule must be a mapping with `name:` and `when:`");
                }
            }
        }

        /** What the top of a file sets for all of its rules; null fields are unset. */
        private record Defaults(String group, Layer layer, ScopeKind scope, Severity severity,
                                Map<String, String> labels, Set<String> given) {
        }

        private Defaults defaults(MappingNode top, Map<String, NodeTuple> keys) {
            String group = null;
            NodeTuple g = keys.get("group");
            if (g == null) {
                error(top, "missing `group:`, the name of this file's group of rules");
            } else {
                group = name(g.getValueNode(), "group");
            }
            return new Defaults(group, layer(keys.get("layer")), scope(keys.get("scope")),
                    severity(keys.get("severity")), labels(keys.get("labels"), Map.of()), Set.copyOf(keys.keySet()));
        }

        private void rule(MappingNode node, Defaults defaults) {
            long errorsBefore = errorCount();
            Map<String, NodeTuple> keys = mapping(node, RULE_KEYS, "rule");
            NodeTuple nameEntry = keys.get("name");
            String name = nameEntry == null ? null : name(nameEntry.getValueNode(), "rule");
            String shown = name == null ? "this rule" : "rule `" + name + "`";
            if (nameEntry == null) {
                error(node, "a rule needs `name:`");
            }
            Layer layer = or(layer(keys.get("layer")), defaults.layer());
            ScopeKind scope = or(scope(keys.get("scope")), defaults.scope(), ScopeKind.CARD);
            Severity severity = or(severity(keys.get("severity")), defaults.severity());
            if (layer == null && !keys.containsKey("layer") && !defaults.given().contains("layer")) {
                error(node, shown + " has no layer: set `layer:` on it or at the top of the file "
                        + "(device, scheduling, application, business)");
            }
            if (severity == null && !keys.containsKey("severity") && !defaults.given().contains("severity")) {
                error(node, shown + " has no severity: set `severity:` on it or at the top of the file "
                        + "(page, ticket, notice, inspect)");
            }
            long forMs = duration(keys.get("for"));
            long keepMs = duration(keys.get("keep_firing_for"));
            Map<String, String> labels = labels(keys.get("labels"), defaults.labels());
            DslCompiler compiler = new DslCompiler(scope, catalog);
            NodeTuple whenEntry = keys.get("when");
            Expression when = null;
            SourceText.Position whenAt = SourceText.of(node);
            if (whenEntry == null) {
                error(node, shown + " needs `when:`, the condition it alerts on");
            } else {
                ScalarNode w = text(whenEntry.getValueNode(), "`when`");
                if (w != null && isNull(w)) {
                    error(w, "`when` is empty");
                } else if (w != null) {
                    whenAt = src.inScalar(w, 0);
                    when = condition(compiler, w);
                }
            }
            Expression keepWhile = keepFiringWhile(compiler, keys.get("keep_firing_while"));
            Template summary = template(compiler, keys.get("summary"));
            Template description = template(compiler, keys.get("description"));
            String runbook = "";
            if (keys.containsKey("runbook")) {
                ScalarNode r = text(keys.get("runbook").getValueNode(), "`runbook`");
                runbook = r == null || isNull(r) ? "" : r.getValue().trim();
            }
            if (when != null && severity == Severity.PAGE && forMs > 0 && when.readsOnlyEvents()) {
                diagnostics.add(warning(keys.get("for").getValueNode(), "`for` delays a hard-fault page: `when` "
                        + "only counts events, which are facts the moment they arrive"));
            }
            if (name != null) {
                Rule first = byName.get(name);
                if (first != null) {
                    error(nameEntry.getValueNode(), "duplicate rule name `" + name + "` (first defined at "
                            + first.file() + ":" + first.line() + ")");
                }
            }
            if (errorCount() > errorsBefore || name == null || when == null) {
                return;
            }
            SourceText.Position at = SourceText.of(node);
            Rule rule = new Rule(name, defaults.group(), layer, scope, severity, forMs, keepMs, labels, runbook,
                    file, at.line(), whenAt.line(), whenAt.column(), when, keepWhile, summary, description);
            rules.add(rule);
            byName.put(name, rule);
        }

        /**
         * {@code keep_firing_while}: a condition that keeps a firing alert open while it holds, whatever {@code when}
         * says; null when absent. Evaluated only while firing, so it cannot count runs ({@code consecutive}).
         */
        private Expression keepFiringWhile(DslCompiler compiler, NodeTuple entry) {
            if (entry == null) {
                return null;
            }
            ScalarNode k = text(entry.getValueNode(), "`keep_firing_while`");
            if (k == null || isNull(k)) {
                if (k != null) {
                    error(k, "`keep_firing_while` is empty: leave it out, or give the condition that keeps the "
                            + "alert open");
                }
                return null;
            }
            Expression e = condition(compiler, k);
            if (e != null && e.streaks() > 0) {
                error(k, "`consecutive` can only be used in `when`: `keep_firing_while` is evaluated only while "
                        + "the alert fires");
                return null;
            }
            return e;
        }

        private Expression condition(DslCompiler compiler, ScalarNode w) {
            List<DslProblem> warnings = new ArrayList<>();
            try {
                Expression e = compiler.condition(w.getValue(), warnings);
                warnings.forEach(p -> diagnostics.add(at(w, p, Diagnostic.Level.WARNING)));
                return e;
            } catch (DslException e) {
                warnings.forEach(p -> diagnostics.add(at(w, p, Diagnostic.Level.WARNING)));
                diagnostics.add(at(w, e.problem(), Diagnostic.Level.ERROR));
                return null;
            }
        }

        private Template template(DslCompiler compiler, NodeTuple entry) {
            if (entry == null) {
                return Template.empty();
            }
            ScalarNode t = text(entry.getValueNode(), "`" + ((ScalarNode) entry.getKeyNode()).getValue() + "`");
            if (t == null || isNull(t)) {
                return Template.empty();
            }
            List<DslProblem> warnings = new ArrayList<>();
            try {
                Template out = Template.compile(t.getValue(), compiler, warnings);
                warnings.forEach(p -> diagnostics.add(at(t, p, Diagnostic.Level.WARNING)));
                return out;
            } catch (DslException e) {
                warnings.forEach(p -> diagnostics.add(at(t, p, Diagnostic.Level.WARNING)));
                diagnostics.add(at(t, e.problem(), Diagnostic.Level.ERROR));
                return Template.empty();
            }
        }

        private Diagnostic at(ScalarNode node, DslProblem p, Diagnostic.Level level) {
            SourceText.Position pos = src.inScalar(node, p.offset());
            return new Diagnostic(file, pos.line(), pos.column(), level, p.message());
        }

        /** The entries of a mapping by key; unknown, duplicate and non-scalar keys are errors. */
        private Map<String, NodeTuple> mapping(MappingNode node, List<String> allowed, String what) {
            return YamlMapping.tuples(node, allowed, what, this::error);
        }

        private String name(Node node, String what) {
            ScalarNode s = text(node, "the " + what + " name");
            if (s == null) {
                return null;
            }
            String v = s.getValue();
            if (isNull(s) || !NAME.matcher(v).matches()) {
                error(s, what + " name `" + v + "` must be lower-case letters, digits and `-`");
                return null;
            }
            return v;
        }

        private Layer layer(NodeTuple entry) {
            return choice(entry, "layer", Layer.values(), Layer::key);
        }

        private Severity severity(NodeTuple entry) {
            return choice(entry, "severity", Severity.values(), Severity::key);
        }

        private ScopeKind scope(NodeTuple entry) {
            return choice(entry, "scope", ScopeKind.values(), ScopeKind::key);
        }

        private <E> E choice(NodeTuple entry, String what, E[] values, java.util.function.Function<E, String> key) {
            if (entry == null) {
                return null;
            }
            ScalarNode s = text(entry.getValueNode(), "`" + what + "`");
            if (s == null) {
                return null;
            }
            for (E v : values) {
                if (key.apply(v).equals(s.getValue())) {
                    return v;
                }
            }
            List<String> names = new ArrayList<>();
            for (E v : values) {
                names.add(key.apply(v));
            }
            error(s, "unknown " + what + " `" + s.getValue() + "` (" + String.join(", ", names) + ")");
            return null;
        }

        private long duration(NodeTuple entry) {
            if (entry == null) {
                return 0;
            }
            String key = ((ScalarNode) entry.getKeyNode()).getValue();
            ScalarNode s = text(entry.getValueNode(), "`" + key + "`");
            if (s == null) {
                return 0;
            }
            try {
                return Durations.parse(s.getValue());
            } catch (DslException e) {
                diagnostics.add(at(s, new DslProblem(e.offset(), "`" + key + "`: " + e.getMessage()),
                        Diagnostic.Level.ERROR));
                return 0;
            }
        }

        private Map<String, String> labels(NodeTuple entry, Map<String, String> base) {
            Map<String, String> out = new LinkedHashMap<>(base);
            if (entry == null || isNull(entry.getValueNode())) {
                return out;
            }
            if (!(entry.getValueNode() instanceof MappingNode m)) {
                error(entry.getValueNode(), "`labels` must be a mapping of names to values");
                return out;
            }
            for (NodeTuple t : m.getValue()) {
                if (!(t.getKeyNode() instanceof ScalarNode key) || !LABEL_KEY.matcher(key.getValue()).matches()) {
                    error(t.getKeyNode(), "label names are letters, digits and `_`, not starting with a digit");
                    continue;
                }
                if (RESERVED_LABELS.contains(key.getValue())) {
                    error(key, "label `" + key.getValue() + "` is set by gpuwatch and cannot be given here");
                    continue;
                }
                ScalarNode value = text(t.getValueNode(), "label `" + key.getValue() + "`");
                if (value != null) {
                    out.put(key.getValue(), isNull(value) ? "" : value.getValue());
                }
            }
            return out;
        }

        /** The node as a scalar, or null after reporting that it is a list or mapping. */
        private ScalarNode text(Node node, String what) {
            if (node instanceof ScalarNode s) {
                String tag = s.getTag().getValue();
                if (!tag.startsWith(Tag.PREFIX)) {
                    // `when: !allocated` reads as the YAML tag `!allocated` on an empty value
                    error(s, "YAML reads `" + tag + "` as a tag: quote " + what + " when it starts with `!`");
                    return null;
                }
                return s;
            }
            error(node, what + " must be a single value, not a " + (node instanceof SequenceNode ? "list"
                    : "mapping"));
            return null;
        }

        private boolean isNull(Node n) {
            return Tag.NULL.equals(n.getTag());
        }

        private void error(Node node, String message) {
            SourceText.Position p = SourceText.of(node);
            diagnostics.add(Diagnostic.error(file, p.line(), p.column(), message));
        }

        private Diagnostic warning(Node node, String message) {
            SourceText.Position p = SourceText.of(node);
            return Diagnostic.warning(file, p.line(), p.column(), message);
        }
    }

    private long errorCount() {
        return diagnostics.stream().filter(d -> d.level() == Diagnostic.Level.ERROR).count();
    }

    @SafeVarargs
    private static <T> T or(T... choices) {
        for (T c : choices) {
            if (c != null) {
                return c;
            }
        }
        return null;
    }
}
