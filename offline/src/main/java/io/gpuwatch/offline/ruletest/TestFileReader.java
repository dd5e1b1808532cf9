package io.gpuwatch.offline.ruletest;

import io.gpuwatch.gateway.state.QueueState;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.SchedTask;
import io.gpuwatch.rules.dsl.DslException;
import io.gpuwatch.rules.dsl.Durations;
import io.gpuwatch.rules.metric.DerivedMetric;
import io.gpuwatch.rules.source.Diagnostic;
import io.gpuwatch.rules.source.DidYouMean;
import io.gpuwatch.rules.source.SourceText;
import io.gpuwatch.rules.source.YamlMapping;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads a rule test file into a {@link TestFile}, collecting every problem with its file:line:column. The YAML
 * is composed into nodes, never constructed into objects, so every value keeps the place it was written.
 */
final class TestFileReader {
    private static final List<String> FILE_KEYS = List.of("rule_files", "evaluation_interval", "tests");
    private static final List<String> TEST_KEYS = List.of("name", "interval", "nodes", "input_series",
            "input_events", "alert_rule_test", "baselines", "card_hour_price", "scheduled_tasks");
    private static final List<String> SCHEDULED_KEYS = List.of("queue", "task", "owner", "business", "state",
            "requested_cards", "requested_mem", "outcome", "model", "from", "until");
    private static final List<String> MODEL_KEYS = List.of("params", "workload", "precision", "flops_per_sample");
    private static final List<String> BASELINE_KEYS = List.of("business", "queue", "metric", "mean", "std");
    private static final List<String> NODE_KEYS = List.of("name", "labels", "cards");
    private static final List<String> CARD_KEYS = List.of("uuid", "name", "index", "processes");
    private static final List<String> PROCESS_KEYS = List.of("pid", "task", "owner", "business", "from", "until");
    private static final List<String> SERIES_KEYS = List.of("card", "task", "business", "node", "queue", "metric",
            "values");
    private static final List<String> EVENT_KEYS = List.of("at", "card", "node", "kind", "xid", "text", "pid");
    private static final List<String> CHECK_KEYS = List.of("eval_time", "alertname", "exp_alerts",
            "exp_notifications");
    private static final List<String> ALERT_KEYS = List.of("exp_labels", "exp_summary", "exp_description");
    private static final List<String> COUNT_KEYS = List.of("firing", "resolved");
    private static final Pattern KIND = Pattern.compile("[a-z][a-z0-9]*(_[a-z0-9]+)*");
    private static final long DEFAULT_MS = 1_000;

    private final String file;
    private final Path dir;
    private final String text;
    private final SourceText src;
    private final List<Diagnostic> diagnostics;

    private TestFileReader(String file, Path dir, String text, List<Diagnostic> diagnostics) {
        this.file = file;
        this.dir = dir;
        this.text = text;
        this.src = new SourceText(text);
        this.diagnostics = diagnostics;
    }

    /**
     * Reads {@code text}, named {@code file} in diagnostics, its rule files relative to {@code dir}; null when
     * anything was wrong (the reasons are in {@code diagnostics}).
     */
    static TestFile read(String file, Path dir, String text, List<Diagnostic> diagnostics) {
        TestFileReader r = new TestFileReader(file, dir, text, diagnostics);
        int before = r.errors();
        TestFile out = r.run();
        return r.errors() > before ? null : out;
    }

    private TestFile run() {
        SourceText.Composed composed = SourceText.compose(file, text);
        if (composed.error() != null) {
            diagnostics.add(composed.error());
            return null;
        }
        Optional<Node> root = composed.root();
        if (root.isEmpty()) {
            diagnostics.add(Diagnostic.error(file, 0, 0,
                    "empty file: a rule test file has `rule_files:` and `tests:`"));
            return null;
        }
        if (!(root.get() instanceof MappingNode top)) {
            error(root.get(), "a rule test file is a mapping with `rule_files:` and `tests:`");
            return null;
        }
        Map<String, Node> keys = mapping(top, FILE_KEYS, "top-level");
        List<Path> ruleFiles = new ArrayList<>();
        Node rf = required(top, keys, "rule_files",
                "the rule files (or directories) the tests load, relative to this file");
        for (Node n : list(rf, "`rule_files`")) {
            String p = string(n, "a rule file");
            if (p != null) {
                ruleFiles.add(dir.resolve(p).normalize());
            }
        }
        if (rf instanceof SequenceNode s && s.getValue().isEmpty()) {
            error(rf, "`rule_files` is empty: name at least one rule file");
        }
        long evalMs = positiveDuration(keys.get("evaluation_interval"), DEFAULT_MS);
        List<TestFile.Case> tests = new ArrayList<>();
        Node t = required(top, keys, "tests", "the list of tests");
        for (Node n : list(t, "`tests`")) {
            if (n instanceof MappingNode m) {
                TestFile.Case c = test(m);
                if (c != null) {
                    tests.add(c);
                }
            } else {
                error(n, "a test is a mapping with `name:`, `nodes:`, inputs and `alert_rule_test:`");
            }
        }
        if (t instanceof SequenceNode s && s.getValue().isEmpty()) {
            error(t, "`tests` is empty");
        }
        return new TestFile(file, ruleFiles, evalMs, tests);
    }

    private TestFile.Case test(MappingNode node) {
        Map<String, Node> keys = mapping(node, TEST_KEYS, "test");
        String name = string(required(node, keys, "name", "what the test shows"), "the test's name");
        long intervalMs = positiveDuration(keys.get("interval"), DEFAULT_MS);
        List<TestFile.NodeSetup> nodes = new ArrayList<>();
        // uuid -> node, to place series and events on their node
        Map<String, String> cardNodes = new HashMap<>();
        Map<String, Node> nodeNames = new HashMap<>();
        for (Node n : list(required(node, keys, "nodes", "the nodes of the test's fleet and their cards"), "`nodes`")) {
            TestFile.NodeSetup setup = nodeSetup(n, cardNodes, nodeNames);
            if (setup != null) {
                nodes.add(setup);
            }
        }
        List<TestFile.InputSeries> series = new ArrayList<>();
        Map<String, Node> seen = new HashMap<>();
        for (Node n : list(keys.get("input_series"), "`input_series`")) {
            TestFile.InputSeries s = inputSeries(n, cardNodes, nodeNames, seen);
            if (s != null) {
                series.add(s);
            }
        }
        List<TestFile.InputEvent> events = new ArrayList<>();
        for (Node n : list(keys.get("input_events"), "`input_events`")) {
            TestFile.InputEvent e = inputEvent(n, cardNodes, nodeNames);
            if (e != null) {
                events.add(e);
            }
        }
        List<TestFile.AlertCheck> checks = new ArrayList<>();
        Node checkList = keys.get("alert_rule_test");
        for (Node n : list(checkList, "`alert_rule_test`")) {
            TestFile.AlertCheck c = check(n);
            if (c != null) {
                checks.add(c);
            }
        }
        if (checkList == null) {
            error(node, "test `" + name + "` checks nothing: add `alert_rule_test:` with `eval_time`, `alertname` "
                    + "and `exp_alerts`");
        }
        staleConflicts(series);
        List<TestFile.SeededBaseline> baselines = new ArrayList<>();
        for (Node n : list(keys.get("baselines"), "`baselines`")) {
            TestFile.SeededBaseline b = baseline(n);
            if (b != null) {
                baselines.add(b);
            }
        }
        double price = keys.containsKey("card_hour_price")
                ? real(keys.get("card_hour_price"), "`card_hour_price`", true) : Double.NaN;
        List<TestFile.ScheduledTask> scheduled = new ArrayList<>();
        for (Node n : list(keys.get("scheduled_tasks"), "`scheduled_tasks`")) {
            TestFile.ScheduledTask st = scheduled(n);
            if (st != null) {
                scheduled.add(st);
            }
        }
        return name == null ? null : new TestFile.Case(name, SourceText.of(node), intervalMs, nodes, series, events,
                checks, baselines, price, scheduled);
    }

    /** A task the test's scheduler lists: its queue, what it requested, its model, how it ended. */
    private TestFile.ScheduledTask scheduled(Node n) {
        if (!(n instanceof MappingNode m)) {
            error(n, "a scheduled task is a mapping of `queue`, `task` and optionally `owner`, `business`, `state`, "
                    + "`requested_cards`, `requested_mem`, `outcome`, `model`, `from` and `until`");
            return null;
        }
        Map<String, Node> keys = mapping(m, SCHEDULED_KEYS, "scheduled task");
        String queue = keys.containsKey("queue") ? string(keys.get("queue"), "`queue`") : null;
        String task = keys.containsKey("task") ? string(keys.get("task"), "`task`") : null;
        if (queue == null || task == null) {
            error(m, "a scheduled task needs `queue:` and `task:`");
            return null;
        }
        String owner = keys.containsKey("owner") ? string(keys.get("owner"), "`owner`") : null;
        String business = keys.containsKey("business") ? string(keys.get("business"), "`business`") : null;
        String state = keys.containsKey("state") ? string(keys.get("state"), "`state`") : "running";
        Integer requested = keys.containsKey("requested_cards")
                ? (int) whole(keys.get("requested_cards"), "`requested_cards`", 0, Integer.MAX_VALUE) : null;
        Long mem = null;
        if (keys.containsKey("requested_mem")) {
            double bytes = SeriesNotation.size(string(keys.get("requested_mem"), "`requested_mem`"));
            if (Double.isNaN(bytes) || bytes < 0) {
                error(keys.get("requested_mem"), "`requested_mem` must be a size such as 320GiB");
            } else {
                mem = (long) bytes;
            }
        }
        String outcome = keys.containsKey("outcome") ? string(keys.get("outcome"), "`outcome`") : null;
        if (outcome != null && !SchedTask.OUTCOMES.contains(outcome)) {
            error(keys.get("outcome"), "`outcome` must be one of " + String.join(", ",
                    new java.util.TreeSet<>(SchedTask.OUTCOMES)) + ", got `" + outcome + "`");
            outcome = null;
        }
        SchedTask.Model model = keys.containsKey("model") ? model(keys.get("model")) : null;
        long from = duration(keys.get("from"), 0);
        long until = duration(keys.get("until"), Long.MAX_VALUE);
        if (keys.containsKey("until") && until <= from) {
            error(keys.get("until"), "`until` must be later than `from`");
        }
        return new TestFile.ScheduledTask(queue, new SchedTask(task, owner, business, List.of(), state, requested,
                mem, outcome, model), from, until);
    }

    private SchedTask.Model model(Node n) {
        if (!(n instanceof MappingNode m)) {
            error(n, "a model is a mapping of `params` and optionally `workload`, `precision`, `flops_per_sample`");
            return null;
        }
        Map<String, Node> keys = mapping(m, MODEL_KEYS, "model");
        double params = real(keys.get("params"), "`params`", true);
        if (!keys.containsKey("params") || !(params > 0)) {
            error(keys.getOrDefault("params", m), "a model needs `params`, its parameter count, above 0");
            return null;
        }
        String workload = keys.containsKey("workload") ? string(keys.get("workload"), "`workload`")
                : SchedTask.Model.DEFAULT_WORKLOAD;
        if (!SchedTask.Model.WORKLOADS.contains(workload)) {
            error(keys.get("workload"), "`workload` must be inference or training, got `" + workload + "`");
        }
        String precision = keys.containsKey("precision") ? string(keys.get("precision"), "`precision`")
                : SchedTask.Model.DEFAULT_PRECISION;
        if (!SchedTask.Model.PRECISIONS.contains(precision)) {
            error(keys.get("precision"), "`precision` must be one of " + String.join(", ",
                    SchedTask.Model.PRECISIONS) + ", got `" + precision + "`");
        }
        Double flopsPerSample = keys.containsKey("flops_per_sample")
                ? real(keys.get("flops_per_sample"), "`flops_per_sample`", true) : null;
        return new SchedTask.Model(params, workload, precision, flopsPerSample);
    }

    private TestFile.SeededBaseline baseline(Node n) {
        if (!(n instanceof MappingNode m)) {
            error(n, "a baseline is a mapping of `business` (or `queue`), `metric`, `mean` and `std`");
            return null;
        }
        Map<String, Node> keys = mapping(m, BASELINE_KEYS, "baseline");
        String business;
        if (keys.containsKey("queue")) {
            if (keys.containsKey("business")) {
                error(keys.get("queue"), "a baseline is learned per business or per queue: give one of them");
            }
            String queue = string(keys.get("queue"), "`queue`");
            business = queue == null ? null : QueueState.baselineKey(queue);
        } else {
            business = string(required(m, keys, "business", "the business whose normal this is (or `queue`)"),
                    "`business`");
        }
        Node metricNode = required(m, keys, "metric", "the metric, as rules name it in baseline(…)");
        String metric = string(metricNode, "`metric`");
        if (metric != null && Metric.byField(metric) == null && DerivedMetric.byField(metric) == null) {
            error(metricNode, "unknown metric `" + metric + "`" + suggestion(metric));
            metric = null;
        }
        double mean = real(required(m, keys, "mean", "the normal value"), "`mean`", false);
        double std = real(required(m, keys, "std", "how far values normally stray from the mean"), "`std`", true);
        return business == null || metric == null || Double.isNaN(mean) || Double.isNaN(std) ? null
                : new TestFile.SeededBaseline(SourceText.of(m), business, metric, mean, std);
    }

    /** A finite number, not negative when {@code nonNegative}; NaN (reported) otherwise or when absent. */
    private double real(Node n, String what, boolean nonNegative) {
        String v = n == null ? null : string(n, what);
        if (v == null) {
            return Double.NaN;
        }
        try {
            double x = Double.parseDouble(v);
            if (Double.isFinite(x) && (x >= 0 || !nonNegative)) {
                return x;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        error(n, what + " must be a" + (nonNegative ? " non-negative" : "") + " number, got `" + v + "`");
        return Double.NaN;
    }

    private TestFile.NodeSetup nodeSetup(Node n, Map<String, String> cardNodes, Map<String, Node> nodeNames) {
        if (!(n instanceof MappingNode m)) {
            error(n, "a node is a mapping with `name:` and `cards:`");
            return null;
        }
        Map<String, Node> keys = mapping(m, NODE_KEYS, "node");
        Node nameNode = required(m, keys, "name", "the node's name");
        String name = string(nameNode, "the node's name");
        if (name != null && nodeNames.putIfAbsent(name, nameNode) != null) {
            error(nameNode, "node `" + name + "` is declared twice (first at " + file + ":"
                    + SourceText.of(nodeNames.get(name)) + ")");
        }
        Map<String, String> labels = stringMap(keys.get("labels"), "`labels`");
        List<TestFile.CardSetup> cards = new ArrayList<>();
        List<Node> cardNodesList = list(keys.get("cards"), "`cards`");
        for (int i = 0; i < cardNodesList.size(); i++) {
            TestFile.CardSetup c = card(cardNodesList.get(i), i, name, cardNodes);
            if (c != null) {
                cards.add(c);
            }
        }
        return name == null ? null : new TestFile.NodeSetup(name, labels, cards);
    }

    private TestFile.CardSetup card(Node n, int position, String node, Map<String, String> cardNodes) {
        if (!(n instanceof MappingNode m)) {
            error(n, "a card is a mapping with `uuid:` and optionally `name:`, `index:` and `processes:`");
            return null;
        }
        Map<String, Node> keys = mapping(m, CARD_KEYS, "card");
        Node uuidNode = required(m, keys, "uuid", "the card's uuid, which series and events name it by");
        String uuid = string(uuidNode, "the card's uuid");
        if (uuid != null && node != null && cardNodes.putIfAbsent(uuid, node) != null) {
            error(uuidNode, "card `" + uuid + "` is declared twice in this test");
        }
        String name = keys.containsKey("name") ? string(keys.get("name"), "the card's name") : null;
        int index = keys.containsKey("index") ? (int) whole(keys.get("index"), "`index`", 0, 1023) : position;
        List<TestFile.ProcessSetup> processes = new ArrayList<>();
        List<Node> ps = list(keys.get("processes"), "`processes`");
        for (int i = 0; i < ps.size(); i++) {
            TestFile.ProcessSetup p = process(ps.get(i), i);
            if (p != null) {
                processes.add(p);
            }
        }
        return uuid == null ? null : new TestFile.CardSetup(uuid, name, index, processes);
    }

    private TestFile.ProcessSetup process(Node n, int position) {
        if (!(n instanceof MappingNode m)) {
            error(n, "a process is a mapping of `pid`, `task`, `owner`, `business`, `from` and `until`");
            return null;
        }
        Map<String, Node> keys = mapping(m, PROCESS_KEYS, "process");
        long pid = keys.containsKey("pid") ? whole(keys.get("pid"), "`pid`", 1, Integer.MAX_VALUE) : 1000 + position;
        String task = keys.containsKey("task") ? string(keys.get("task"), "`task`") : null;
        String owner = keys.containsKey("owner") ? string(keys.get("owner"), "`owner`") : null;
        String business = keys.containsKey("business") ? string(keys.get("business"), "`business`") : null;
        long from = duration(keys.get("from"), 0);
        long until = duration(keys.get("until"), Long.MAX_VALUE);
        if (keys.containsKey("until") && until <= from) {
            error(keys.get("until"), "`until` must be later than `from`");
        }
        return new TestFile.ProcessSetup(pid, task, owner, business, from, until);
    }

    private TestFile.InputSeries inputSeries(Node n, Map<String, String> cardNodes, Map<String, Node> nodeNames,
                                             Map<String, Node> seen) {
        if (!(n instanceof MappingNode m)) {
            error(n, "an input series is a mapping of `card` (or `task` or `queue`), `metric` and `values`");
            return null;
        }
        Map<String, Node> keys = mapping(m, SERIES_KEYS, "input series");
        int owners = (keys.containsKey("card") ? 1 : 0) + (keys.containsKey("task") ? 1 : 0)
                + (keys.containsKey("queue") ? 1 : 0);
        if (owners > 1) {
            error(m, "an input series belongs to one `card`, `task` or `queue`, not several");
        }
        if (keys.containsKey("business") && !keys.containsKey("task")) {
            error(keys.get("business"), "`business` goes with `task`: the business the task's app frames name");
        }
        String relay = null;
        if (keys.containsKey("node")) {
            if (!keys.containsKey("task")) {
                error(keys.get("node"), "`node` goes with `task`: the node that relays the task's app frames (its "
                        + "replica); a card's node is where `nodes` declares it");
            } else {
                relay = string(keys.get("node"), "the node relaying the task's app frames");
                if (relay != null && !nodeNames.containsKey(relay)) {
                    error(keys.get("node"), "node `" + relay + "` is not declared under `nodes`");
                    relay = null;
                }
            }
        }
        String uuid = null;
        String task = null;
        String business = null;
        String queue = null;
        Metric.Source source = Metric.Source.CARD;
        if (keys.containsKey("task")) {
            task = string(keys.get("task"), "the task's name");
            business = keys.containsKey("business") ? string(keys.get("business"), "the task's business") : null;
            source = Metric.Source.APP;
        } else if (keys.containsKey("queue")) {
            queue = string(keys.get("queue"), "the queue's name");
            source = Metric.Source.SCHED;
        } else {
            uuid = knownCard(required(m, keys, "card", "the uuid of a card declared under `nodes` (or `task:` or "
                    + "`queue:`)"), cardNodes);
        }
        String owner = task != null ? "task `" + task + "`" + (relay == null ? "" : " on `" + relay + "`")
                : queue != null ? "queue `" + queue + "`"
                : "card `" + uuid + "`";
        Node metricNode = required(m, keys, "metric", "a metric, e.g. gpuUtil");
        String metric = string(metricNode, "the metric");
        if (metric != null) {
            Metric known = Metric.byField(metric);
            if (known == null || known.source() != source) {
                error(metricNode, (known == null ? "unknown metric `" + metric + "`" + suggestion(metric)
                        : "`" + metric + "` is not " + SOURCE_WORDS.get(source) + "; " + owner + " takes "
                        + SOURCE_WORDS.get(source) + "s"));
                metric = null;
            }
        }
        boolean named = uuid != null || task != null || queue != null;
        if (named && metric != null) {
            Node first = seen.putIfAbsent(owner + "/" + metric, m);
            if (first != null) {
                error(m, owner + " has a second `" + metric + "` series (first at " + file + ":"
                        + SourceText.of(first) + ")");
            }
        }
        Node valuesNode = required(m, keys, "values", "the values, e.g. \"0+10x100\"");
        SeriesNotation.Expanded values = null;
        if (valuesNode instanceof ScalarNode s && metric != null) {
            try {
                values = SeriesNotation.parse(s.getValue(), metric.equals(Metric.CLOCK_EVENT_REASONS.field()));
            } catch (SeriesNotation.NotationException e) {
                SourceText.Position p = src.inScalar(s, e.offset());
                diagnostics.add(Diagnostic.error(file, p.line(), p.column(), e.getMessage()));
            }
        } else if (valuesNode != null && !(valuesNode instanceof ScalarNode)) {
            error(valuesNode, "`values` is one string such as \"0+10x100\" or \"80 80 95 _ 97\"");
        }
        if (!named || metric == null || values == null) {
            return null;
        }
        return new TestFile.InputSeries(SourceText.of(valuesNode), uuid == null ? relay : cardNodes.get(uuid), uuid,
                task, business, queue, metric, values);
    }

    private TestFile.InputEvent inputEvent(Node n, Map<String, String> cardNodes, Map<String, Node> nodeNames) {
        if (!(n instanceof MappingNode m)) {
            error(n, "an input event is a mapping of `at`, `card` or `node`, `kind` and optionally `xid`, `text`, "
                    + "`pid`");
            return null;
        }
        Map<String, Node> keys = mapping(m, EVENT_KEYS, "input event");
        Node atNode = required(m, keys, "at", "when the event happens, from the test's start, e.g. 30s");
        long at = atNode == null ? 0 : duration(atNode, 0);
        String uuid = null;
        String node = null;
        if (keys.containsKey("card") && keys.containsKey("node")) {
            error(keys.get("node"), "give `card` for a card's event or `node` for a node-wide one, not both");
        } else if (keys.containsKey("card")) {
            uuid = knownCard(keys.get("card"), cardNodes);
            node = uuid == null ? null : cardNodes.get(uuid);
        } else if (keys.containsKey("node")) {
            node = string(keys.get("node"), "the node");
            if (node != null && !nodeNames.containsKey(node)) {
                error(keys.get("node"), "node `" + node + "` is not declared under `nodes`");
                node = null;
            }
        } else {
            error(m, "an event needs `card:` (a card's event) or `node:` (a node-wide event)");
        }
        Node kindNode = required(m, keys, "kind", "the event's kind, e.g. xid or oom");
        String kind = string(kindNode, "the kind");
        if (kind != null && !KIND.matcher(kind).matches()) {
            error(kindNode, "kind `" + kind + "` is not lower_snake_case");
            kind = null;
        }
        Integer xid = null;
        if (keys.containsKey("xid")) {
            xid = (int) whole(keys.get("xid"), "`xid`", 0, 65535);
            if (kind != null && !kind.equals("xid")) {
                error(keys.get("xid"), "only `kind: xid` events carry an `xid` code");
            }
        } else if ("xid".equals(kind)) {
            error(kindNode, "an xid event needs its code: `xid: 79`");
        }
        String eventText = keys.containsKey("text") ? string(keys.get("text"), "`text`") : null;
        Long pid = keys.containsKey("pid") ? whole(keys.get("pid"), "`pid`", 1, Integer.MAX_VALUE) : null;
        if (node == null || kind == null || atNode == null) {
            return null;
        }
        return new TestFile.InputEvent(at, node, uuid, kind, xid, eventText, pid);
    }

    private TestFile.AlertCheck check(Node n) {
        if (!(n instanceof MappingNode m)) {
            error(n, "an alert rule test is a mapping of `eval_time`, `alertname` and `exp_alerts`");
            return null;
        }
        Map<String, Node> keys = mapping(m, CHECK_KEYS, "alert rule test");
        Node evalNode = required(m, keys, "eval_time", "when to look, from the test's start, e.g. 5m");
        long evalMs = evalNode == null ? 0 : duration(evalNode, 0);
        String evalText = evalNode instanceof ScalarNode s ? s.getValue().trim() : "";
        String alertname = string(required(m, keys, "alertname", "the rule whose alerts are checked"), "`alertname`");
        List<TestFile.ExpectedAlert> alerts = new ArrayList<>();
        for (Node a : list(keys.get("exp_alerts"), "`exp_alerts`")) {
            if (!(a instanceof MappingNode am)) {
                error(a, "an expected alert is a mapping of `exp_labels` and optionally `exp_summary`, "
                        + "`exp_description`");
                continue;
            }
            Map<String, Node> ak = mapping(am, ALERT_KEYS, "expected alert");
            Map<String, String> labels = stringMap(ak.get("exp_labels"), "`exp_labels`");
            String summary = ak.containsKey("exp_summary") ? rawString(ak.get("exp_summary"), "`exp_summary`") : null;
            String description = ak.containsKey("exp_description")
                    ? rawString(ak.get("exp_description"), "`exp_description`") : null;
            alerts.add(new TestFile.ExpectedAlert(labels, summary, description));
        }
        TestFile.ExpectedNotifications counts = null;
        Node cn = keys.get("exp_notifications");
        if (cn != null) {
            if (cn instanceof MappingNode cm) {
                Map<String, Node> ck = mapping(cm, COUNT_KEYS, "exp_notifications");
                Integer firing = ck.containsKey("firing")
                        ? (int) whole(ck.get("firing"), "`firing`", 0, Integer.MAX_VALUE) : null;
                Integer resolved = ck.containsKey("resolved")
                        ? (int) whole(ck.get("resolved"), "`resolved`", 0, Integer.MAX_VALUE) : null;
                if (ck.isEmpty()) {
                    error(cm, "`exp_notifications` needs `firing:` and/or `resolved:` counts");
                }
                counts = new TestFile.ExpectedNotifications(firing, resolved);
            } else {
                error(cn, "`exp_notifications` is a mapping such as {firing: 1, resolved: 0}");
            }
        }
        if (evalNode == null || alertname == null) {
            return null;
        }
        return new TestFile.AlertCheck(SourceText.of(m), evalMs, evalText, alertname, alerts, counts);
    }

    /** A stale card has no readings at that step, so a value in another of its series there contradicts it. */
    private void staleConflicts(List<TestFile.InputSeries> series) {
        for (TestFile.InputSeries s : series) {
            for (int i = s.values().stale().nextSetBit(0); i >= 0; i = s.values().stale().nextSetBit(i + 1)) {
                for (TestFile.InputSeries o : series) {
                    if (o != s && s.uuid() != null && s.uuid().equals(o.uuid()) && !Double.isNaN(o.values().at(i))) {
                        diagnostics.add(Diagnostic.error(file, o.place().line(), o.place().column(), "card `"
                                + s.uuid() + "` is `stale` in " + s.metric() + " at value " + (i + 1) + " but "
                                + o.metric() + " has a value there; a stale card reports no readings at all"));
                        return;
                    }
                }
            }
        }
    }

    private String knownCard(Node n, Map<String, String> cardNodes) {
        String uuid = string(n, "the card's uuid");
        if (uuid != null && !cardNodes.containsKey(uuid)) {
            error(n, "card `" + uuid + "` is not declared under `nodes`");
            return null;
        }
        return uuid;
    }

    private static final Map<Metric.Source, String> SOURCE_WORDS = Map.of(Metric.Source.CARD, "a card metric",
            Metric.Source.APP, "an application metric", Metric.Source.SCHED, "a scheduling metric");

    private static String suggestion(String name) {
        return DidYouMean.hint(name, Arrays.stream(Metric.values()).map(Metric::field).toList());
    }

    // ---- YAML shapes

    private Map<String, Node> mapping(MappingNode node, List<String> allowed, String what) {
        return YamlMapping.entries(node, allowed, what, this::error);
    }

    private Node required(Node parent, Map<String, Node> keys, String key, String meaning) {
        Node n = keys.get(key);
        if (n == null) {
            error(parent, "missing `" + key + ":`, " + meaning);
        }
        return n;
    }

    /** The items of a list; an absent or null list is empty. */
    private List<Node> list(Node n, String what) {
        if (n == null || isNull(n)) {
            return List.of();
        }
        if (n instanceof SequenceNode s) {
            return s.getValue();
        }
        error(n, what + " must be a list (items start with `- `)");
        return List.of();
    }

    /** A non-empty scalar, trimmed; null (with an error) otherwise. */
    private String string(Node n, String what) {
        if (n == null) {
            return null;
        }
        String v = rawString(n, what);
        if (v == null) {
            return null;
        }
        if (v.isBlank()) {
            error(n, what + " is empty");
            return null;
        }
        return v.trim();
    }

    /** A scalar's text as written (block scalars keep their folding). */
    private String rawString(Node n, String what) {
        if (!(n instanceof ScalarNode s)) {
            error(n, what + " must be a single value, not a " + (n instanceof SequenceNode ? "list" : "mapping"));
            return null;
        }
        if (isNull(s)) {
            error(n, what + " is empty");
            return null;
        }
        return s.getValue();
    }

    private Map<String, String> stringMap(Node n, String what) {
        if (n == null || isNull(n)) {
            return Map.of();
        }
        if (!(n instanceof MappingNode m)) {
            error(n, what + " must be a mapping of names to values");
            return Map.of();
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (NodeTuple t : m.getValue()) {
            if (!(t.getKeyNode() instanceof ScalarNode key)) {
                error(t.getKeyNode(), "keys must be plain names");
                continue;
            }
            if (out.containsKey(key.getValue())) {
                error(key, "`" + key.getValue() + "` is given twice");
                continue;
            }
            String v = rawString(t.getValueNode(), "the value of `" + key.getValue() + "`");
            if (v != null) {
                out.put(key.getValue(), v);
            }
        }
        return out;
    }

    private long whole(Node n, String what, long min, long max) {
        String v = string(n, what);
        if (v == null) {
            return min;
        }
        try {
            long x = Long.parseLong(v);
            if (x >= min && x <= max) {
                return x;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        error(n, what + " must be a whole number from " + min + " to " + max + ", got `" + v + "`");
        return min;
    }

    private long duration(Node n, long absent) {
        if (n == null) {
            return absent;
        }
        if (!(n instanceof ScalarNode s) || isNull(n)) {
            error(n, "expected a duration such as 30s or 5m");
            return absent;
        }
        try {
            return Durations.parse(s.getValue());
        } catch (DslException e) {
            SourceText.Position p = src.inScalar(s, e.offset());
            diagnostics.add(Diagnostic.error(file, p.line(), p.column(), e.getMessage()));
            return absent;
        }
    }

    private long positiveDuration(Node n, long absent) {
        long v = duration(n, absent);
        if (n != null && v <= 0) {
            error(n, "the interval must be longer than 0");
            return absent;
        }
        return v;
    }

    private static boolean isNull(Node n) {
        return n instanceof ScalarNode s && s.getTag().equals(Tag.NULL);
    }

    private void error(Node n, String message) {
        SourceText.Position p = SourceText.of(n);
        diagnostics.add(Diagnostic.error(file, p.line(), p.column(), message));
    }

    private int errors() {
        return (int) diagnostics.stream().filter(d -> d.level() == Diagnostic.Level.ERROR).count();
    }
}
