package io.gpuwatch.probe.app;

import io.gpuwatch.probe.http.HttpGet;
import io.gpuwatch.probe.yaml.YamlDocument;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** Reads scrape config files (YAML, see docs/attribution.md); every problem comes back with its position. */
public final class ScrapeConfigLoader {
    private static final Set<String> TOP_KEYS = Set.of("interval", "timeout", "targets");
    private static final Set<String> TARGET_KEYS = Set.of("task", "business", "server", "url", "model");
    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m)");
    private static final Duration MIN_INTERVAL = Duration.ofSeconds(1);
    private static final Duration MAX_INTERVAL = Duration.ofHours(1);
    private static final String SERVERS = Arrays.stream(InferenceServer.values()).map(InferenceServer::source)
            .collect(Collectors.joining(", "));

    private ScrapeConfigLoader() {
    }

    /** Loads a scrape config file; an unreadable file is reported as an error, not thrown. */
    public static ScrapeConfigLoad load(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException | SecurityException e) {
            return invalid(new ScrapeConfigError(file.toString(), 0, 0, "cannot read: " + e.getMessage()));
        }
        return parse(file.toString(), text);
    }

    /** Parses scrape-config text; {@code source} names it in errors. */
    public static ScrapeConfigLoad parse(String source, String text) {
        YamlDocument.Composed composed = YamlDocument.compose(source, text);
        YamlDocument.Problem bad = composed.problem();
        if (bad != null) {
            return invalid(new ScrapeConfigError(source, bad.line(), bad.column(), bad.message()));
        }
        Optional<Node> root = composed.root();
        if (root.isEmpty()) {
            return invalid(new ScrapeConfigError(source, 0, 0, "the scrape config is empty; it needs 'targets'"));
        }
        Parser p = new Parser(source);
        ScrapeConfig config = p.config(root.get());
        if (!p.errors.isEmpty()) {
            p.errors.sort(Comparator.comparingInt(ScrapeConfigError::line).thenComparingInt(ScrapeConfigError::column));
            return new ScrapeConfigLoad.Invalid(p.errors);
        }
        return new ScrapeConfigLoad.Loaded(config);
    }

    private static ScrapeConfigLoad invalid(ScrapeConfigError e) {
        return new ScrapeConfigLoad.Invalid(List.of(e));
    }

    /** One parse: the errors found so far, and readers that report their own problems and return null. */
    private static final class Parser {
        private final String source;
        private final List<ScrapeConfigError> errors = new ArrayList<>();

        Parser(String source) {
            this.source = source;
        }

        ScrapeConfig config(Node root) {
            Map<String, NodeTuple> top = mapping(root, "the scrape config", TOP_KEYS);
            if (top == null) {
                return null;
            }
            Duration interval = top.containsKey("interval")
                    ? duration(top.get("interval").getValueNode(), "interval") : ScrapeConfig.DEFAULT_INTERVAL;
            if (interval != null && (interval.compareTo(MIN_INTERVAL) < 0 || interval.compareTo(MAX_INTERVAL) > 0)) {
                error(top.get("interval").getValueNode(), "'interval' must be between 1s and 60m");
                interval = null;
            }
            Duration timeout = top.containsKey("timeout") ? duration(top.get("timeout").getValueNode(), "timeout")
                    : interval == null ? null : min(ScrapeConfig.DEFAULT_TIMEOUT, interval);
            if (timeout != null && interval != null && timeout.compareTo(interval) > 0) {
                error(top.get("timeout").getValueNode(), "'timeout' must not be longer than 'interval' ("
                        + interval.toMillis() + "ms)");
            }
            List<ScrapeTarget> targets = null;
            if (!top.containsKey("targets")) {
                error(root, "missing 'targets'");
            } else {
                targets = targets(top.get("targets").getValueNode());
            }
            return errors.isEmpty() ? new ScrapeConfig(interval, timeout, targets) : null;
        }

        private static Duration min(Duration a, Duration b) {
            return a.compareTo(b) <= 0 ? a : b;
        }

        private List<ScrapeTarget> targets(Node node) {
            if (!(node instanceof SequenceNode seq)) {
                error(node, "'targets' must be a list of targets, each starting with '-'");
                return null;
            }
            if (seq.getValue().isEmpty()) {
                error(node, "'targets' needs at least one target");
                return null;
            }
            List<ScrapeTarget> out = new ArrayList<>();
            Set<String> tasks = new HashSet<>();
            for (Node item : seq.getValue()) {
                ScrapeTarget t = target(item);
                if (t == null) {
                    continue;
                }
                if (!tasks.add(t.task())) {
                    error(item, "task '" + t.task() + "' already has a target; one target per task, as the "
                            + "gateway keeps one series per task");
                    continue;
                }
                out.add(t);
            }
            return out;
        }

        private ScrapeTarget target(Node item) {
            Map<String, NodeTuple> m = mapping(item, "a target", TARGET_KEYS);
            if (m == null) {
                return null;
            }
            int before = errors.size();
            String task = required(m, "task", item);
            String business = m.containsKey("business") ? string(m.get("business").getValueNode(), "business") : null;
            String serverName = required(m, "server", item);
            InferenceServer server = null;
            if (serverName != null) {
                server = InferenceServer.bySource(serverName);
                if (server == null) {
                    error(m.get("server").getValueNode(), "unknown server '" + serverName + "'; known servers: "
                            + SERVERS);
                }
            }
            String url = required(m, "url", item);
            if (url != null) {
                url = url(m.get("url").getValueNode(), url);
            }
            String model = null;
            if (m.containsKey("model")) {
                model = string(m.get("model").getValueNode(), "model");
                if (model != null && server != null && server.modelLabel() == null) {
                    error(m.get("model").getKeyNode(), server.source() + " serves one model and labels no series "
                            + "with it; remove 'model'");
                }
            } else if (server != null && server.needsModel()) {
                error(item, server.source() + " serves several models and mixes their figures; a target needs "
                        + "'model' (one target per model, each its own task)");
            }
            return errors.size() > before ? null : new ScrapeTarget(task, business, server, url, model);
        }

        private String url(Node n, String url) {
            try {
                if (!HttpGet.fetchable(new URI(url))) {
                    error(n, "'url' must be an http:// or https:// address with a host, like "
                            + "http://127.0.0.1:8000/metrics, got '" + url + "'");
                    return null;
                }
                return url;
            } catch (URISyntaxException e) {
                error(n, "'url' is not a valid address: " + e.getReason() + " (at character " + (e.getIndex() + 1)
                        + "), got '" + url + "'");
                return null;
            }
        }

        private Duration duration(Node n, String field) {
            String s = string(n, field);
            if (s == null) {
                return null;
            }
            Matcher m = DURATION.matcher(s.strip());
            if (!m.matches()) {
                error(n, "'" + field + "' must be a duration like 10s, 500ms or 1m, got '" + s + "'");
                return null;
            }
            long v = Long.parseLong(m.group(1));
            Duration d = switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(v);
                case "s" -> Duration.ofSeconds(v);
                default -> Duration.ofMinutes(v);
            };
            if (d.isZero()) {
                error(n, "'" + field + "' must be longer than zero");
                return null;
            }
            return d;
        }

        private String required(Map<String, NodeTuple> m, String key, Node owner) {
            NodeTuple t = m.get(key);
            if (t == null) {
                error(owner, "a target needs '" + key + "'");
                return null;
            }
            return string(t.getValueNode(), key);
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
                if (!allowed.contains(key.getValue())) {
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
            if (s.getTag().equals(Tag.NULL) && s.isPlain() || s.getValue().isBlank()) {
                error(n, "'" + field + "' has no value");
                return null;
            }
            return s.getValue().strip();
        }

        private void error(Node n, String message) {
            YamlDocument.Problem p = YamlDocument.at(n, message);
            errors.add(new ScrapeConfigError(source, p.line(), p.column(), p.message()));
        }
    }
}
