package io.gpuwatch.probe.attribution;

import io.gpuwatch.probe.yaml.YamlDocument;
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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/** Reads labels files (YAML, see docs/attribution.md); every problem comes back with its position. */
public final class LabelsLoader {
    private static final Set<String> TOP_KEYS = Set.of("defaults", "pods", "slurmJobs", "containers", "podLabels");
    private static final Set<String> FIELDS = Set.of("task", "owner", "business");
    private static final Pattern POD_UID = Pattern.compile(
            "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final Pattern JOB_ID = Pattern.compile("\\d+");
    private static final Pattern CONTAINER_PREFIX = Pattern.compile("[0-9a-f]{12,64}");
    private static final Pattern LABEL_KEY = Pattern.compile(
            "([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");

    private LabelsLoader() {
    }

    /** Loads a labels file; an unreadable file is reported as an error, not thrown. */
    public static LabelsLoad load(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException | SecurityException e) {
            return invalid(new LabelsError(file.toString(), 0, 0, "cannot read: " + e.getMessage()));
        }
        return parse(file.toString(), text);
    }

    /** Parses labels-file text; {@code source} names it in errors. */
    public static LabelsLoad parse(String source, String text) {
        YamlDocument.Composed composed = YamlDocument.compose(source, text);
        YamlDocument.Problem bad = composed.problem();
        if (bad != null) {
            return invalid(new LabelsError(source, bad.line(), bad.column(), bad.message()));
        }
        Optional<Node> root = composed.root();
        if (root.isEmpty()) {
            return new LabelsLoad.Loaded(Labels.empty());
        }
        Parser p = new Parser(source);
        Labels labels = p.labels(root.get());
        if (!p.errors.isEmpty()) {
            p.errors.sort(Comparator.comparingInt(LabelsError::line).thenComparingInt(LabelsError::column));
            return new LabelsLoad.Invalid(p.errors);
        }
        return new LabelsLoad.Loaded(labels);
    }

    private static LabelsLoad invalid(LabelsError e) {
        return new LabelsLoad.Invalid(List.of(e));
    }

    /** One parse: the errors found so far, and readers that report their own problems and return null. */
    private static final class Parser {
        private final String source;
        private final List<LabelsError> errors = new ArrayList<>();

        Parser(String source) {
            this.source = source;
        }

        Labels labels(Node root) {
            Map<String, NodeTuple> top = mapping(root, "the labels file", TOP_KEYS);
            if (top == null) {
                return null;
            }
            Attribution defaults = section(top, "defaults", Attribution.NONE, n -> attribution(n, "defaults"));
            Map<String, Attribution> pods = section(top, "pods", Map.of(), n -> entries(n, "pods", this::podUid));
            Map<String, Attribution> jobs = section(top, "slurmJobs", Map.of(),
                    n -> entries(n, "slurmJobs", this::jobId));
            Map<String, Attribution> containers = section(top, "containers", Map.of(),
                    n -> entries(n, "containers", this::containerPrefix));
            PodLabelKeys keys = section(top, "podLabels", PodLabelKeys.DEFAULT, this::podLabelKeys);
            if (!errors.isEmpty()) {
                return null;
            }
            return new Labels(pods, jobs, containers, defaults, keys);
        }

        /** A top-level section; written with nothing after the colon it is the same as left out. */
        private <T> T section(Map<String, NodeTuple> top, String key, T fallback, Function<Node, T> read) {
            NodeTuple t = top.get(key);
            if (t == null || isNull(t.getValueNode())) {
                return fallback;
            }
            return read.apply(t.getValueNode());
        }

        private Map<String, Attribution> entries(Node node, String section, Function<ScalarNode, String> key) {
            Map<String, NodeTuple> m = mapping(node, "'" + section + "'", null);
            if (m == null) {
                return null;
            }
            Map<String, Attribution> out = new LinkedHashMap<>();
            for (NodeTuple t : m.values()) {
                ScalarNode keyNode = (ScalarNode) t.getKeyNode();
                String k = key.apply(keyNode);
                Attribution a = attribution(t.getValueNode(), section + "." + keyNode.getValue());
                if (k == null || a == null) {
                    continue;
                }
                if (out.containsKey(k)) {
                    error(keyNode, "'" + keyNode.getValue() + "' is the same " + section + " entry as an earlier key");
                    continue;
                }
                out.put(k, a);
            }
            return out;
        }

        private String podUid(ScalarNode key) {
            String uid = key.getValue().strip().replace('_', '-').toLowerCase();
            if (!POD_UID.matcher(uid).matches()) {
                error(key, "'" + key.getValue() + "' is not a pod UID (like 3f1c2a9e-5b7d-4c1e-9a8f-0123456789ab)");
                return null;
            }
            return uid;
        }

        private String jobId(ScalarNode key) {
            String id = key.getValue().strip();
            if (!JOB_ID.matcher(id).matches()) {
                error(key, "'" + key.getValue() + "' is not a Slurm job id (a whole number like 88121)");
                return null;
            }
            return id;
        }

        private String containerPrefix(ScalarNode key) {
            String prefix = key.getValue().strip().toLowerCase();
            if (!CONTAINER_PREFIX.matcher(prefix).matches()) {
                error(key, "'" + key.getValue() + "' is not a container id prefix (12 to 64 hex digits, like the "
                        + "12 that 'docker ps' shows)");
                return null;
            }
            return prefix;
        }

        private Attribution attribution(Node node, String where) {
            if (isNull(node)) {
                error(node, "'" + where + "' has no value; give at least one of task, owner, business");
                return null;
            }
            int before = errors.size();
            Map<String, NodeTuple> m = mapping(node, "'" + where + "'", FIELDS);
            if (m == null) {
                return null;
            }
            if (m.isEmpty()) {
                if (errors.size() == before) {
                    error(node, "'" + where + "' needs at least one of task, owner, business");
                }
                return null;
            }
            String task = field(m, "task", where);
            String owner = field(m, "owner", where);
            String business = field(m, "business", where);
            return errors.size() > before ? null : new Attribution(task, owner, business);
        }

        private String field(Map<String, NodeTuple> m, String key, String where) {
            NodeTuple t = m.get(key);
            if (t == null) {
                return null;
            }
            String v = string(t.getValueNode(), where + "." + key);
            if (v != null && v.isBlank()) {
                error(t.getValueNode(), "'" + where + "." + key + "' must not be empty");
                return null;
            }
            return v == null ? null : v.strip();
        }

        private PodLabelKeys podLabelKeys(Node node) {
            Map<String, NodeTuple> m = mapping(node, "'podLabels'", FIELDS);
            if (m == null) {
                return null;
            }
            List<String> task = labelKeys(m, "task", PodLabelKeys.DEFAULT.task());
            List<String> owner = labelKeys(m, "owner", PodLabelKeys.DEFAULT.owner());
            List<String> business = labelKeys(m, "business", PodLabelKeys.DEFAULT.business());
            return task == null || owner == null || business == null ? null
                    : new PodLabelKeys(task, owner, business);
        }

        /** One label key or a list of them, tried in order. */
        private List<String> labelKeys(Map<String, NodeTuple> m, String field, List<String> fallback) {
            NodeTuple t = m.get(field);
            if (t == null) {
                return fallback;
            }
            Node n = t.getValueNode();
            List<Node> items = n instanceof SequenceNode seq ? seq.getValue() : List.of(n);
            if (items.isEmpty()) {
                error(n, "'podLabels." + field + "' needs at least one label key");
                return null;
            }
            List<String> out = new ArrayList<>();
            boolean ok = true;
            for (Node item : items) {
                String key = string(item, "podLabels." + field);
                if (key != null && !LABEL_KEY.matcher(key).matches()) {
                    error(item, "'" + key + "' is not a Kubernetes label key (like app.kubernetes.io/name or team)");
                    key = null;
                }
                ok &= key != null;
                out.add(key);
            }
            return ok ? out : null;
        }

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
                    error(key, "unknown key '" + key.getValue() + "'; known keys: "
                            + String.join(", ", allowed.stream().sorted().toList()));
                    continue;
                }
                out.put(key.getValue(), t);
            }
            return out;
        }

        private String string(Node n, String field) {
            if (!(n instanceof ScalarNode s)) {
                error(n, "'" + field + "' must be a single value");
                return null;
            }
            if (isNull(s)) {
                error(n, "'" + field + "' has no value");
                return null;
            }
            return s.getValue();
        }

        private static boolean isNull(Node n) {
            return n instanceof ScalarNode s && s.getTag().equals(Tag.NULL) && s.isPlain();
        }

        private void error(Node n, String message) {
            YamlDocument.Problem p = YamlDocument.at(n, message);
            errors.add(new LabelsError(source, p.line(), p.column(), p.message()));
        }
    }
}
