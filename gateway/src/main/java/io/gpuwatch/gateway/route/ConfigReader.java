package io.gpuwatch.gateway.route;

import io.gpuwatch.gateway.inhibit.InhibitRule;
import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.gateway.match.MatcherException;
import io.gpuwatch.gateway.match.MatcherParser;
import io.gpuwatch.rules.dsl.DslException;
import io.gpuwatch.rules.dsl.Durations;
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

import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Month;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Reads an alerting config (route tree, owners, time intervals, inhibition rules), collecting every problem with
 * its file:line:column. The YAML is composed into nodes, never constructed into objects, so each value keeps
 * the place it was written at.
 */
final class ConfigReader {
    private static final Pattern LABEL = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern CLOCK = Pattern.compile("(\\d{2}):(\\d{2})");
    /** {@code receivers} belongs to the receivers' reader (in the cli), which reads the same file. */
    private static final List<String> TOP_KEYS =
            List.of("route", "owners", "time_intervals", "inhibit_rules", "builtin_inhibit_rules", "receivers",
                    "escalation_policies");
    private static final List<String> ROUTE_KEYS = List.of("receiver", "matchers", "group_by", "group_wait",
            "group_interval", "repeat_interval", "continue", "routes", "mute_time_intervals", "active_time_intervals",
            "escalation");
    private static final List<String> POLICY_KEYS = List.of("name", "steps", "repeat");
    private static final List<String> STEP_KEYS = List.of("schedules", "people", "via", "timeout");
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]*");
    private static final List<String> INTERVAL_KEYS = List.of("name", "time_intervals");
    private static final List<String> PERIOD_KEYS =
            List.of("times", "weekdays", "days_of_month", "months", "years", "location");
    private static final List<String> TIMES_KEYS = List.of("start_time", "end_time");
    private static final List<String> INHIBIT_KEYS = List.of("name", "source_matchers", "target_matchers", "equal");
    /** Alertmanager's defaults. */
    private static final Duration GROUP_WAIT = Duration.ofSeconds(30);
    private static final Duration GROUP_INTERVAL = Duration.ofMinutes(5);
    private static final Duration REPEAT_INTERVAL = Duration.ofHours(4);

    private final String file;
    private final String text;
    private final SourceText places;
    private final Set<String> receivers;
    private final List<Diagnostic> diagnostics = new ArrayList<>();
    private final Map<String, TimeInterval> intervals = new LinkedHashMap<>();
    private final Map<String, EscalationPolicy> policies = new LinkedHashMap<>();
    /** Every policy name written, those with errors too, so a route naming one is not reported again. */
    private final Set<String> policyNames = new TreeSet<>();

    /** What a route passes down to its children. */
    private record Inherited(String receiver, GroupBy groupBy, Duration groupWait, Duration groupInterval,
                             Duration repeatInterval, List<TimeInterval> mute, List<TimeInterval> active) {
    }

    ConfigReader(String file, String text, Set<String> receivers) {
        this.file = file;
        this.text = text;
        this.places = new SourceText(text);
        this.receivers = receivers == null ? null : Set.copyOf(receivers);
    }

    RoutingLoad read() {
        RoutingConfig config = config();
        boolean failed = diagnostics.stream().anyMatch(d -> d.level() == Diagnostic.Level.ERROR);
        // in file order, as an editor lists them
        diagnostics.sort(Comparator.comparingInt(Diagnostic::line).thenComparingInt(Diagnostic::column));
        return new RoutingLoad(failed ? null : config, diagnostics);
    }

    private RoutingConfig config() {
        SourceText.Composed composed = SourceText.compose(file, text);
        if (composed.error() != null) {
            diagnostics.add(composed.error());
            return null;
        }
        Optional<Node> root = composed.root();
        if (root.isEmpty() || isNull(root.get())) {
            diagnostics.add(Diagnostic.error(file, 0, 0, "empty config: it needs at least `route:` with a receiver"));
            return null;
        }
        if (!(root.get() instanceof MappingNode top)) {
            error(root.get(), "an alerting config is a mapping with `route:` (and optionally `owners:`, "
                    + "`time_intervals:`, `inhibit_rules:`)");
            return null;
        }
        Map<String, NodeTuple> keys = mapping(top, TOP_KEYS, "top-level");
        if (keys.containsKey("time_intervals")) {
            timeIntervals(keys.get("time_intervals").getValueNode());
        }
        if (keys.containsKey("escalation_policies")) {
            policies(keys.get("escalation_policies").getValueNode());
        }
        NodeTuple routeEntry = keys.get("route");
        Route tree = null;
        if (routeEntry == null) {
            error(top, "missing `route:`, the root of the routing tree");
        } else if (!(routeEntry.getValueNode() instanceof MappingNode r)) {
            error(routeEntry.getValueNode(), "`route` must be a mapping with at least `receiver:`");
        } else {
            tree = rootRoute(r);
        }
        Map<String, Route> owners = tree == null || !keys.containsKey("owners") ? Map.of()
                : owners(keys.get("owners").getValueNode(), tree);
        List<InhibitRule> inhibit = new ArrayList<>();
        boolean builtIn = !keys.containsKey("builtin_inhibit_rules")
                || bool(keys.get("builtin_inhibit_rules").getValueNode(), "builtin_inhibit_rules", true);
        if (builtIn) {
            inhibit.addAll(InhibitRule.BUILT_IN);
        }
        if (keys.containsKey("inhibit_rules")) {
            inhibit.addAll(inhibitRules(keys.get("inhibit_rules").getValueNode()));
        }
        return tree == null ? null : new RoutingConfig(tree, owners, intervals, inhibit, policies);
    }

    // ---- routes

    private Route rootRoute(MappingNode node) {
        Map<String, NodeTuple> keys = mapping(node, ROUTE_KEYS, "route");
        if (keys.containsKey("matchers")) {
            error(keys.get("matchers").getKeyNode(), "the root route matches every alert and cannot have `matchers`");
        }
        if (keys.containsKey("continue")) {
            error(keys.get("continue").getKeyNode(), "the root route has no siblings, so `continue` means nothing");
        }
        if (!keys.containsKey("receiver")) {
            error(node, "the root route needs `receiver:`, where alerts no other route takes go");
        }
        Inherited defaults = new Inherited("", GroupBy.NONE, GROUP_WAIT, GROUP_INTERVAL, REPEAT_INTERVAL,
                List.of(), List.of());
        return route(node, keys, defaults, "route", "", true);
    }

    private Route route(MappingNode node, Map<String, NodeTuple> keys, Inherited parent, String id, String parentKey,
                        boolean isRoot) {
        List<Matcher> matchers = isRoot || !keys.containsKey("matchers") ? List.of()
                : matchers(keys.get("matchers").getValueNode(), "matchers");
        String escalation = keys.containsKey("escalation") ? policyRef(keys.get("escalation").getValueNode()) : null;
        // a route that escalates and names no receiver of its own pages through its policy only
        String receiver = keys.containsKey("escalation") && !keys.containsKey("receiver") && !isRoot ? Route.NONE
                : parent.receiver();
        if (keys.containsKey("receiver")) {
            String r = receiver(keys.get("receiver").getValueNode());
            receiver = r == null ? receiver : r;
        }
        GroupBy groupBy = keys.containsKey("group_by") ? groupBy(keys.get("group_by").getValueNode()) : null;
        Duration wait = duration(keys.get("group_wait"), false);
        Duration interval = duration(keys.get("group_interval"), true);
        Duration repeat = duration(keys.get("repeat_interval"), true);
        boolean cont = !isRoot && keys.containsKey("continue") && bool(keys.get("continue").getValueNode(),
                "continue", false);
        List<TimeInterval> mute = keys.containsKey("mute_time_intervals")
                ? intervalRefs(keys.get("mute_time_intervals").getValueNode()) : parent.mute();
        List<TimeInterval> active = keys.containsKey("active_time_intervals")
                ? intervalRefs(keys.get("active_time_intervals").getValueNode()) : parent.active();
        Inherited mine = new Inherited(receiver.equals(Route.NONE) ? parent.receiver() : receiver, groupBy == null ? parent.groupBy() : groupBy,
                wait == null ? parent.groupWait() : wait, interval == null ? parent.groupInterval() : interval,
                repeat == null ? parent.repeatInterval() : repeat, mute, active);
        String key = (isRoot ? "" : parentKey + "/") + Route.matchersKey(matchers);
        List<Route> children = new ArrayList<>();
        if (keys.containsKey("routes")) {
            Node list = keys.get("routes").getValueNode();
            if (list instanceof SequenceNode seq) {
                String catchAll = null;
                for (int i = 0; i < seq.getValue().size(); i++) {
                    Node item = seq.getValue().get(i);
                    String childId = id + ".routes[" + i + "]";
                    if (!(item instanceof MappingNode m)) {
                        error(item, "a route must be a mapping (with `matchers:`, `receiver:`, …)");
                        continue;
                    }
                    if (catchAll != null) {
                        warning(item, "this route is never reached: " + catchAll + " above it matches every alert "
                                + "and has no `continue: true`");
                    }
                    Map<String, NodeTuple> childKeys = mapping(m, ROUTE_KEYS, "route");
                    Route child = route(m, childKeys, mine, childId, key, false);
                    children.add(child);
                    if (catchAll == null && !childKeys.containsKey("matchers") && !child.continueMatching()) {
                        catchAll = childId;
                    }
                }
            } else if (!isNull(list)) {
                error(list, "`routes` must be a list of routes, each starting with `- matchers:` or `- receiver:`");
            }
        }
        return new Route(id, key, matchers, receiver, mine.groupBy(), mine.groupWait(), mine.groupInterval(),
                mine.repeatInterval(), cont, mute, active, children, escalation);
    }

    private String policyRef(Node node) {
        ScalarNode s = scalar(node, "`escalation`");
        if (s == null || isNull(s) || s.getValue().isBlank()) {
            if (s != null) {
                error(s, "`escalation` is empty; name a policy of `escalation_policies:`");
            }
            return null;
        }
        String name = s.getValue();
        if (!policies.containsKey(name)) {
            if (!policyNames.contains(name)) {
                error(s, "unknown escalation policy `" + name + "`" + DidYouMean.hint(name, policyNames)
                        + (policyNames.isEmpty() ? " (no `escalation_policies:` are defined)"
                        : " (policies: " + String.join(", ", policyNames) + ")"));
            }
            return null;
        }
        return name;
    }

    // ---- escalation policies

    private void policies(Node node) {
        for (Node item : items(node, "escalation_policies")) {
            if (!(item instanceof MappingNode m)) {
                error(item, "an escalation policy is a mapping with `name:` and `steps:`");
                continue;
            }
            Map<String, NodeTuple> keys = mapping(m, POLICY_KEYS, "escalation policy");
            ScalarNode name = keys.containsKey("name") ? scalar(keys.get("name").getValueNode(), "`name`") : null;
            if (name == null) {
                if (!keys.containsKey("name")) {
                    error(m, "an escalation policy needs `name:`, which routes name it by");
                }
                continue;
            }
            if (!NAME.matcher(name.getValue()).matches()) {
                error(name, "policy name `" + name.getValue() + "`: use lower-case letters, digits, `-` and `_`");
                continue;
            }
            if (!policyNames.add(name.getValue())) {
                error(name, "escalation policy `" + name.getValue() + "` is defined twice");
                continue;
            }
            int repeat = keys.containsKey("repeat") ? count(keys.get("repeat").getValueNode(), "repeat") : 0;
            List<EscalationStep> steps = new ArrayList<>();
            boolean ok = repeat >= 0;
            if (!keys.containsKey("steps")) {
                error(m, "escalation policy `" + name.getValue() + "` needs `steps:`");
                ok = false;
            } else {
                List<Node> stepNodes = items(keys.get("steps").getValueNode(), "steps");
                if (stepNodes.isEmpty()) {
                    error(keys.get("steps").getValueNode(), "`steps` needs at least one step");
                    ok = false;
                }
                for (Node stepNode : stepNodes) {
                    EscalationStep step = step(stepNode);
                    ok &= step != null;
                    if (step != null) {
                        steps.add(step);
                    }
                }
            }
            if (ok) {
                SourceText.Position p = SourceText.of(name);
                policies.put(name.getValue(), new EscalationPolicy(name.getValue(), steps, repeat, file, p.line(), p.column()));
            }
        }
    }

    private EscalationStep step(Node node) {
        if (!(node instanceof MappingNode m)) {
            error(node, "a step is a mapping with `via:` (receivers), `timeout:` and `schedules:` or `people:`");
            return null;
        }
        Map<String, NodeTuple> keys = mapping(m, STEP_KEYS, "escalation step");
        boolean ok = true;
        List<EscalationTarget> targets = new ArrayList<>();
        if (keys.containsKey("schedules")) {
            for (Node n : items(keys.get("schedules").getValueNode(), "schedules")) {
                ScalarNode s = scalar(n, "a schedule");
                if (s == null || s.getValue().isBlank() || s.getValue().split("/", -1).length > 2) {
                    error(n, "a schedule is `schedule` or `schedule/layer`");
                    ok = false;
                    continue;
                }
                String[] parts = s.getValue().split("/", -1);
                SourceText.Position p = SourceText.of(s);
                targets.add(EscalationTarget.layer(parts[0], parts.length == 2 ? parts[1] : null, file, p.line(), p.column()));
            }
        }
        if (keys.containsKey("people")) {
            for (Node n : items(keys.get("people").getValueNode(), "people")) {
                ScalarNode s = scalar(n, "a person");
                if (s == null || s.getValue().isBlank()) {
                    ok = false;
                    continue;
                }
                SourceText.Position p = SourceText.of(s);
                targets.add(EscalationTarget.person(s.getValue(), file, p.line(), p.column()));
            }
        }
        List<String> via = new ArrayList<>();
        if (!keys.containsKey("via")) {
            error(m, "a step needs `via:`, the receivers it pages through");
            ok = false;
        } else {
            for (Node n : items(keys.get("via").getValueNode(), "via")) {
                String r = receiver(n);
                ok &= r != null;
                if (r != null) {
                    via.add(r);
                }
            }
            if (via.isEmpty() && ok) {
                error(keys.get("via").getValueNode(), "`via` needs at least one receiver");
                ok = false;
            }
        }
        Duration timeout = null;
        if (!keys.containsKey("timeout")) {
            error(m, "a step needs `timeout:`, how long it waits for an acknowledgement before the next step");
            ok = false;
        } else {
            timeout = duration(keys.get("timeout"), true);
            ok &= timeout != null;
        }
        return ok ? new EscalationStep(targets, via, timeout) : null;
    }

    private int count(Node node, String key) {
        ScalarNode s = scalar(node, "`" + key + "`");
        if (s == null) {
            return -1;
        }
        try {
            int n = Integer.parseInt(s.getValue().strip());
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below with the value
        }
        error(s, "`" + key + "` is a whole number of times, 0 or more, not `" + s.getValue() + "`");
        return -1;
    }

    private String receiver(Node node) {
        ScalarNode s = scalar(node, "`receiver`");
        if (s == null) {
            return null;
        }
        if (isNull(s) || s.getValue().isBlank()) {
            error(s, "`receiver` is empty");
            return null;
        }
        String name = s.getValue();
        if (receivers != null && !receivers.contains(name)) {
            error(s, "unknown receiver `" + name + "`" + DidYouMean.hint(name, receivers)
                    + (receivers.isEmpty() ? " (no receivers are configured)"
                    : " (receivers: " + String.join(", ", new TreeSet<>(receivers)) + ")"));
        }
        return name;
    }

    private GroupBy groupBy(Node node) {
        if (!(node instanceof SequenceNode seq)) {
            error(node, "`group_by` must be a list of label names, `[]` for one group, or `['...']` for none");
            return null;
        }
        List<String> labels = new ArrayList<>();
        boolean all = false;
        for (Node item : seq.getValue()) {
            ScalarNode s = scalar(item, "a `group_by` entry");
            if (s == null) {
                continue;
            }
            String v = s.getValue();
            if (v.equals("...")) {
                all = true;
            } else if (!LABEL.matcher(v).matches()) {
                error(s, "`" + v + "` is not a label name (letters, digits and `_`, not starting with a digit)");
            } else if (labels.contains(v)) {
                error(s, "label `" + v + "` is given twice");
            } else {
                labels.add(v);
            }
        }
        if (all && !labels.isEmpty()) {
            error(seq, "`...` already groups by every label; list it alone");
        }
        return all ? GroupBy.ALL : GroupBy.of(labels);
    }

    private Duration duration(NodeTuple entry, boolean positive) {
        if (entry == null) {
            return null;
        }
        String key = ((ScalarNode) entry.getKeyNode()).getValue();
        ScalarNode s = scalar(entry.getValueNode(), "`" + key + "`");
        if (s == null) {
            return null;
        }
        try {
            long ms = Durations.parse(s.getValue());
            if (positive && ms <= 0) {
                error(s, "`" + key + "` must be longer than 0");
                return null;
            }
            return Duration.ofMillis(ms);
        } catch (DslException e) {
            errorAt(s, e.offset(), "`" + key + "`: " + e.getMessage());
            return null;
        }
    }

    private boolean bool(Node node, String key, boolean fallback) {
        ScalarNode s = scalar(node, "`" + key + "`");
        if (s == null) {
            return fallback;
        }
        String v = s.getValue().toLowerCase(Locale.ROOT);
        if (v.equals("true") || v.equals("false")) {
            return v.equals("true");
        }
        error(s, "`" + key + "` is true or false, not `" + s.getValue() + "`");
        return fallback;
    }

    private List<Matcher> matchers(Node node, String key) {
        List<Matcher> out = new ArrayList<>();
        if (node instanceof MappingNode map) {
            // `{severity: page}` is shorthand for equality matchers
            for (NodeTuple t : map.getValue()) {
                ScalarNode name = scalar(t.getKeyNode(), "a label name");
                ScalarNode value = scalar(t.getValueNode(), "a label value");
                if (name == null || value == null) {
                    continue;
                }
                if (!LABEL.matcher(name.getValue()).matches()) {
                    error(name, "`" + name.getValue() + "` is not a label name");
                    continue;
                }
                out.add(Matcher.equal(name.getValue(), isNull(value) ? "" : value.getValue()));
            }
            return out;
        }
        if (!(node instanceof SequenceNode seq)) {
            error(node, "`" + key + "` must be a list of matchers such as `- severity=\"page\"`");
            return out;
        }
        for (Node item : seq.getValue()) {
            ScalarNode s = scalar(item, "a matcher");
            if (s == null) {
                continue;
            }
            try {
                out.addAll(MatcherParser.parseList(s.getValue()));
            } catch (MatcherException e) {
                errorAt(s, e.offset(), e.getMessage());
            }
        }
        return out;
    }

    private List<TimeInterval> intervalRefs(Node node) {
        List<TimeInterval> out = new ArrayList<>();
        if (!(node instanceof SequenceNode seq)) {
            error(node, "a list of time interval names is expected here");
            return out;
        }
        for (Node item : seq.getValue()) {
            ScalarNode s = scalar(item, "a time interval name");
            if (s == null) {
                continue;
            }
            TimeInterval t = intervals.get(s.getValue());
            if (t == null) {
                error(s, "unknown time interval `" + s.getValue() + "`" + DidYouMean.hint(s.getValue(), intervals.keySet())
                        + (intervals.isEmpty() ? " (`time_intervals:` defines none)"
                        : " (defined: " + String.join(", ", intervals.keySet()) + ")"));
            } else {
                out.add(t);
            }
        }
        return out;
    }

    // ---- owners

    private Map<String, Route> owners(Node node, Route root) {
        Map<String, Route> out = new LinkedHashMap<>();
        if (isNull(node)) {
            return out;
        }
        if (!(node instanceof MappingNode map)) {
            error(node, "`owners` must map an owner (the `owner` label) to a receiver, e.g. `ml-team: ml-chat`");
            return out;
        }
        for (NodeTuple t : map.getValue()) {
            ScalarNode owner = scalar(t.getKeyNode(), "an owner");
            if (owner == null) {
                continue;
            }
            String receiver = receiver(t.getValueNode());
            if (receiver == null) {
                continue;
            }
            if (out.containsKey(owner.getValue())) {
                error(owner, "owner `" + owner.getValue() + "` is given twice");
                continue;
            }
            List<Matcher> matchers = List.of(Matcher.equal("owner", owner.getValue()));
            out.put(owner.getValue(), new Route("owners." + owner.getValue(),
                    root.key() + "/" + Route.matchersKey(matchers), matchers, receiver, root.groupBy(),
                    root.groupWait(), root.groupInterval(), root.repeatInterval(), true,
                    root.muteTimeIntervals(), root.activeTimeIntervals(), List.of()));
        }
        return out;
    }

    // ---- time intervals

    private void timeIntervals(Node node) {
        if (isNull(node)) {
            return;
        }
        if (!(node instanceof SequenceNode seq)) {
            error(node, "`time_intervals` must be a list, each entry with `name:` and `time_intervals:`");
            return;
        }
        for (Node item : seq.getValue()) {
            if (!(item instanceof MappingNode m)) {
                error(item, "a time interval must be a mapping with `name:` and `time_intervals:`");
                continue;
            }
            Map<String, NodeTuple> keys = mapping(m, INTERVAL_KEYS, "time interval");
            ScalarNode name = keys.containsKey("name") ? scalar(keys.get("name").getValueNode(), "`name`") : null;
            if (!keys.containsKey("name")) {
                error(m, "a time interval needs `name:`, which routes refer to");
            }
            List<TimeInterval.Period> periods = new ArrayList<>();
            NodeTuple list = keys.get("time_intervals");
            if (list == null) {
                error(m, "a time interval needs `time_intervals:`, the list of periods it covers");
            } else if (list.getValueNode() instanceof SequenceNode ps) {
                for (Node p : ps.getValue()) {
                    if (p instanceof MappingNode pm) {
                        periods.add(period(pm));
                    } else {
                        error(p, "a period must be a mapping (`weekdays:`, `times:`, `location:`, …)");
                    }
                }
            } else {
                error(list.getValueNode(), "`time_intervals` of an interval must be a list of periods");
            }
            if (name == null || isNull(name)) {
                continue;
            }
            if (intervals.containsKey(name.getValue())) {
                error(name, "time interval `" + name.getValue() + "` is defined twice");
                continue;
            }
            intervals.put(name.getValue(), new TimeInterval(name.getValue(), periods));
        }
    }

    private TimeInterval.Period period(MappingNode node) {
        Map<String, NodeTuple> keys = mapping(node, PERIOD_KEYS, "period");
        List<TimeInterval.Times> times = new ArrayList<>();
        if (keys.containsKey("times")) {
            for (Node item : items(keys.get("times").getValueNode(), "times")) {
                TimeInterval.Times t = times(item);
                if (t != null) {
                    times.add(t);
                }
            }
        }
        Set<DayOfWeek> weekdays = EnumSet.noneOf(DayOfWeek.class);
        for (TimeInterval.Range r : ranges(keys.get("weekdays"), 1, 7, false, this::weekday)) {
            for (int d = r.start(); d <= r.end(); d++) {
                weekdays.add(DayOfWeek.of(d));
            }
        }
        List<TimeInterval.Range> days = ranges(keys.get("days_of_month"), -31, 31, true, this::number);
        Set<Month> months = EnumSet.noneOf(Month.class);
        for (TimeInterval.Range r : ranges(keys.get("months"), 1, 12, false, this::month)) {
            for (int m = r.start(); m <= r.end(); m++) {
                months.add(Month.of(m));
            }
        }
        List<TimeInterval.Range> years = ranges(keys.get("years"), 1, 9999, false, this::number);
        ZoneId zone = ZoneOffset.UTC;
        if (keys.containsKey("location")) {
            ScalarNode s = scalar(keys.get("location").getValueNode(), "`location`");
            if (s != null) {
                zone = zone(s);
            }
        }
        return new TimeInterval.Period(times, weekdays, days, months, years, zone);
    }

    private ZoneId zone(ScalarNode s) {
        try {
            return ZoneId.of(s.getValue());
        } catch (DateTimeException e) {
            error(s, "unknown time zone `" + s.getValue() + "`" + DidYouMean.hint(s.getValue(), ZoneId.getAvailableZoneIds())
                    + " (an IANA name such as Europe/Berlin, or UTC)");
            return ZoneOffset.UTC;
        }
    }

    private TimeInterval.Times times(Node item) {
        if (!(item instanceof MappingNode m)) {
            error(item, "a `times` entry is a mapping `{start_time: \"09:00\", end_time: \"17:00\"}`");
            return null;
        }
        Map<String, NodeTuple> keys = mapping(m, TIMES_KEYS, "times");
        if (!keys.containsKey("start_time") || !keys.containsKey("end_time")) {
            error(m, "a `times` entry needs both `start_time` and `end_time`");
            return null;
        }
        Integer start = clock(keys.get("start_time").getValueNode(), false);
        Integer end = clock(keys.get("end_time").getValueNode(), true);
        if (start == null || end == null) {
            return null;
        }
        if (start >= end) {
            error(keys.get("end_time").getValueNode(), "`end_time` must be after `start_time` (the end is exclusive;"
                    + " a period across midnight is two entries, e.g. 22:00–24:00 and 00:00–06:00)");
            return null;
        }
        return new TimeInterval.Times(start, end);
    }

    /** Minutes of the day of {@code HH:MM}; {@code 24:00} only as an end. */
    private Integer clock(Node node, boolean isEnd) {
        ScalarNode s = scalar(node, "a time of day");
        if (s == null) {
            return null;
        }
        java.util.regex.Matcher m = CLOCK.matcher(s.getValue());
        if (m.matches()) {
            int h = Integer.parseInt(m.group(1));
            int min = Integer.parseInt(m.group(2));
            if (h < 24 && min < 60 || isEnd && h == 24 && min == 0) {
                return h * 60 + min;
            }
        }
        error(s, "`" + s.getValue() + "` is not a time of day HH:MM (00:00 to 23:59" + (isEnd ? ", or 24:00" : "")
                + ")");
        return null;
    }

    /** A parser of one bound of a range, null after reporting an error. */
    @FunctionalInterface
    private interface Bound {
        Integer parse(ScalarNode node, String text, int offset);
    }

    private List<TimeInterval.Range> ranges(NodeTuple entry, int min, int max, boolean monthDays, Bound bound) {
        List<TimeInterval.Range> out = new ArrayList<>();
        if (entry == null) {
            return out;
        }
        String key = ((ScalarNode) entry.getKeyNode()).getValue();
        for (Node item : items(entry.getValueNode(), key)) {
            ScalarNode s = scalar(item, "a `" + key + "` entry");
            if (s == null) {
                continue;
            }
            String v = s.getValue().strip();
            int colon = v.indexOf(':');
            String a = colon < 0 ? v : v.substring(0, colon);
            String b = colon < 0 ? v : v.substring(colon + 1);
            Integer start = bound.parse(s, a, 0);
            Integer end = colon < 0 ? start : bound.parse(s, b, colon + 1);
            if (start == null || end == null) {
                continue;
            }
            if (start < min || start > max || end < min || end > max || monthDays && (start == 0 || end == 0)) {
                error(s, "`" + v + "` is out of range for `" + key + "` (" + (monthDays ? "1 to 31, or -1 to -31 "
                        + "counting from the month's end" : min + " to " + max) + ")");
                continue;
            }
            if (Integer.signum(start) == Integer.signum(end) && start > end) {
                error(s, "`" + v + "` starts after it ends; ranges do not wrap around (write two entries)");
                continue;
            }
            out.add(new TimeInterval.Range(start, end));
        }
        return out;
    }

    private Integer weekday(ScalarNode s, String text, int offset) {
        try {
            return DayOfWeek.valueOf(text.strip().toUpperCase(Locale.ROOT)).getValue();
        } catch (IllegalArgumentException e) {
            List<String> names = Arrays.stream(DayOfWeek.values())
                    .map(d -> d.name().toLowerCase(Locale.ROOT)).toList();
            errorAt(s, offset, "unknown weekday `" + text.strip() + "`" + DidYouMean.hint(text.strip(), names)
                    + " (monday … sunday, or a range such as monday:friday)");
            return null;
        }
    }

    private Integer month(ScalarNode s, String text, int offset) {
        String t = text.strip();
        if (t.matches("\\d+")) {
            return number(s, t, offset);
        }
        try {
            return Month.valueOf(t.toUpperCase(Locale.ROOT)).getValue();
        } catch (IllegalArgumentException e) {
            List<String> names = Arrays.stream(Month.values()).map(m -> m.name().toLowerCase(Locale.ROOT))
                    .toList();
            errorAt(s, offset, "unknown month `" + t + "`" + DidYouMean.hint(t, names)
                    + " (january … december or 1 … 12, or a range such as june:august)");
            return null;
        }
    }

    private Integer number(ScalarNode s, String text, int offset) {
        try {
            return Integer.parseInt(text.strip());
        } catch (NumberFormatException e) {
            errorAt(s, offset, "`" + text.strip() + "` is not a whole number");
            return null;
        }
    }

    // ---- inhibition

    private List<InhibitRule> inhibitRules(Node node) {
        List<InhibitRule> out = new ArrayList<>();
        for (Node item : items(node, "inhibit_rules")) {
            if (!(item instanceof MappingNode m)) {
                error(item, "an inhibit rule must be a mapping with `source_matchers:` and `target_matchers:`");
                continue;
            }
            Map<String, NodeTuple> keys = mapping(m, INHIBIT_KEYS, "inhibit rule");
            String name = "inhibit_rules[" + out.size() + "]";
            if (keys.containsKey("name")) {
                ScalarNode s = scalar(keys.get("name").getValueNode(), "`name`");
                name = s == null || isNull(s) ? name : s.getValue();
            }
            List<Matcher> source = inhibitMatchers(m, keys, "source_matchers");
            List<Matcher> target = inhibitMatchers(m, keys, "target_matchers");
            List<String> equal = new ArrayList<>();
            if (keys.containsKey("equal")) {
                for (Node e : items(keys.get("equal").getValueNode(), "equal")) {
                    ScalarNode s = scalar(e, "an `equal` label");
                    if (s != null && !LABEL.matcher(s.getValue()).matches()) {
                        error(s, "`" + s.getValue() + "` is not a label name");
                    } else if (s != null) {
                        equal.add(s.getValue());
                    }
                }
            }
            out.add(new InhibitRule(name, source, target, equal));
        }
        return out;
    }

    private List<Matcher> inhibitMatchers(MappingNode rule, Map<String, NodeTuple> keys, String key) {
        if (!keys.containsKey(key)) {
            error(rule, "an inhibit rule needs `" + key + "` (an empty list would match every alert)");
            return List.of();
        }
        List<Matcher> out = matchers(keys.get(key).getValueNode(), key);
        if (out.isEmpty() && keys.get(key).getValueNode() instanceof SequenceNode) {
            error(keys.get(key).getValueNode(), "`" + key + "` is empty; it would match every alert");
        }
        return out;
    }

    // ---- YAML helpers

    /** The entries of a mapping by key; unknown keys (with a did-you-mean) and duplicates are errors. */
    private Map<String, NodeTuple> mapping(MappingNode node, List<String> allowed, String what) {
        return YamlMapping.tuples(node, allowed, what, this::error);
    }

    private List<Node> items(Node node, String key) {
        if (node instanceof SequenceNode seq) {
            return seq.getValue();
        }
        if (!isNull(node)) {
            error(node, "`" + key + "` must be a list");
        }
        return List.of();
    }

    private ScalarNode scalar(Node node, String what) {
        if (node instanceof ScalarNode s) {
            return s;
        }
        error(node, what + " must be a single value, not a " + (node instanceof SequenceNode ? "list" : "mapping"));
        return null;
    }

    private static boolean isNull(Node n) {
        return Tag.NULL.equals(n.getTag());
    }

    private void error(Node node, String message) {
        SourceText.Position p = SourceText.of(node);
        diagnostics.add(Diagnostic.error(file, p.line(), p.column(), message));
    }

    private void errorAt(ScalarNode node, int offset, String message) {
        SourceText.Position p = places.inScalar(node, offset);
        diagnostics.add(Diagnostic.error(file, p.line(), p.column(), message));
    }

    private void warning(Node node, String message) {
        SourceText.Position p = SourceText.of(node);
        diagnostics.add(Diagnostic.warning(file, p.line(), p.column(), message));
    }
}
