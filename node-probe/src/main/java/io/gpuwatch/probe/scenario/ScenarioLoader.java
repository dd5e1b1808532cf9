package io.gpuwatch.probe.scenario;

import io.gpuwatch.probe.yaml.YamlDocument;
import io.gpuwatch.protocol.ClockEventReason;
import io.gpuwatch.protocol.Metric;
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
            "seed", "model", "duration", "labels", "nodeLabels", "incidents", "start", "scheduler");
    private static final Map<String, Kind> KINDS = kinds();
    /** How long an incident without {@code for} lasts: the rest of the run. */
    private static final Duration FOREVER = Duration.ofDays(3650);
    /** The queues of the simulated scheduler. */
    public static final List<String> QUEUES = List.of("training", "inference");
    private static final int MAX_CARDS = 64;
    private static final int MAX_NODES = 10_000;

    private ScenarioLoader() {
    }

    /** Where an incident kind happens: one card, some cards of a node (all by default), a node, or a queue. */
    private enum Target { CARD, CARDS, NODE, QUEUE }

    /** An incident kind: where it happens and the keys it takes besides at, node, card(s), kind and expect. */
    private record Kind(Target target, Set<String> keys) {
    }

    private static Map<String, Kind> kinds() {
        Map<String, Kind> m = new LinkedHashMap<>();
        m.put("xid", new Kind(Target.CARD, Set.of("code", "text", "lost")));
        m.put("xid-burst", new Kind(Target.CARDS, Set.of("codes", "count", "every")));
        m.put("thermal-throttle", new Kind(Target.CARD, Set.of("for")));
        m.put("memory-climb", new Kind(Target.CARD, Set.of("rate")));
        m.put("node-silent", new Kind(Target.NODE, Set.of("for")));
        m.put("idle-allocated", new Kind(Target.CARD, Set.of("for")));
        m.put("ecc-uncorrected", new Kind(Target.CARD, Set.of("count", "xid", "remapFailure")));
        m.put("ecc-corrected", new Kind(Target.CARD, Set.of("count")));
        m.put("clock-event", new Kind(Target.CARDS, Set.of("reasons", "for", "clock")));
        m.put("clock-blip", new Kind(Target.CARDS, Set.of("reasons", "for", "clock")));
        m.put("power-cap", new Kind(Target.CARDS, Set.of("for")));
        m.put("nvlink-down", new Kind(Target.CARD, Set.of("links", "for")));
        m.put("temp-rise", new Kind(Target.CARD, Set.of("rate", "to", "for")));
        m.put("hot-stable", new Kind(Target.CARD, Set.of("tempC", "for")));
        m.put("straggler", new Kind(Target.CARD, Set.of("for", "slowdown")));
        m.put("slow-node", new Kind(Target.NODE, Set.of("for", "slowdown")));
        m.put("checkpoint", new Kind(Target.CARDS, Set.of("every", "for", "count")));
        m.put("eval", new Kind(Target.CARDS, Set.of("for", "slowdown")));
        m.put("memory-plateau", new Kind(Target.CARD, Set.of("level", "for")));
        m.put("tokens-collapse", new Kind(Target.CARD, Set.of("for", "factor")));
        m.put("latency-regression", new Kind(Target.CARD, Set.of("for", "factor")));
        m.put("latency-spike", new Kind(Target.CARD, Set.of("for", "factor")));
        m.put("diurnal", new Kind(Target.CARDS, Set.of("for", "low")));
        m.put("collector-unsupported", new Kind(Target.CARDS, Set.of("fields", "for")));
        m.put("job-end", new Kind(Target.CARDS, Set.of("for")));
        m.put("job-start", new Kind(Target.CARDS, Set.of("ramp")));
        m.put("job-cancel", new Kind(Target.CARDS, Set.of("for", "ramp")));
        m.put("worker-respawn", new Kind(Target.CARD, Set.of("for", "ramp")));
        m.put("spare-card", new Kind(Target.CARD, Set.of("for")));
        m.put("probe-disconnect", new Kind(Target.NODE, Set.of("for")));
        m.put("node-reboot", new Kind(Target.NODE, Set.of("down")));
        m.put("queue-wait", new Kind(Target.QUEUE, Set.of("queue", "for", "pending")));
        m.put("sched-burst", new Kind(Target.QUEUE, Set.of("queue", "for", "pending")));
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
            Long start = optional(top, "start", Scenario.DEFAULT_START_MS, this::instant);
            Boolean scheduler = optional(top, "scheduler", false, n -> bool(n, "scheduler"));
            Fleet fleet = new Fleet(names, nodes != null, cards, duration, seed == null ? 1L : seed);
            Incidents incidents = optional(top, "incidents", new Incidents(List.of(), List.of()),
                    n -> incidents(n, fleet));
            if (!errors.isEmpty()) {
                return null;
            }
            // a queue's incidents need the scheduler that reports queues
            boolean queues = incidents.incidents().stream().anyMatch(i -> i instanceof Incident.QueueLoad);
            return new Scenario(name, nodes, cards, prefix, interval, seed, model, duration, labels, nodeLabels,
                    incidents.incidents(), start, scheduler || queues, incidents.expectations());
        }

        /** What incidents are checked against; {@code cards} is null when cardsPerNode itself was wrong. */
        private record Fleet(List<String> names, boolean namesKnown, Integer cards, Duration duration, long seed) {
        }

        /** The incidents of a file and the labels of those that carry {@code expect:}. */
        private record Incidents(List<Incident> incidents, List<Expectation> expectations) {
        }

        /** One incident entry: what it makes happen (one or more incidents), how long it lasts, where. */
        private record Entry(List<Incident> made, Duration extent, Integer card, String queue) {
        }

        private Incidents incidents(Node node, Fleet fleet) {
            if (!(node instanceof SequenceNode seq)) {
                error(node, "'incidents' must be a list of incidents, each starting with '-'");
                return null;
            }
            List<Incident> out = new ArrayList<>();
            List<Expectation> expectations = new ArrayList<>();
            Set<String> ids = new java.util.HashSet<>();
            int index = 0;
            for (Node item : seq.getValue()) {
                incident(item, fleet, index++, out, expectations, ids);
            }
            return new Incidents(out, expectations);
        }

        private void incident(Node item, Fleet fleet, int index, List<Incident> out, List<Expectation> expectations,
                              Set<String> ids) {
            if (!(item instanceof MappingNode)) {
                error(item, "an incident must be a mapping with 'at', 'node' and 'kind'");
                return;
            }
            Map<String, NodeTuple> m = mapping(item, "an incident", null);
            if (m == null) {
                return;
            }
            String kindName = required(m, "kind", item, n -> string(n, "kind"));
            Kind kind = kindName == null ? null : KINDS.get(kindName);
            if (kindName != null && kind == null) {
                error(m.get("kind").getValueNode(), "unknown incident kind '" + kindName + "'; known kinds: "
                        + String.join(", ", KINDS.keySet()));
            }
            if (kind != null) {
                checkKeys(m, kindName, kind);
            }
            Duration at = required(m, "at", item, n -> duration(n, "at", true));
            if (at != null && fleet.duration() != null && at.compareTo(fleet.duration()) >= 0) {
                error(m.get("at").getValueNode(), "'at' " + Quantities.format(at)
                        + " is not before the scenario's end (duration " + Quantities.format(fleet.duration()) + ")");
            }
            String node = kind != null && kind.target() == Target.QUEUE ? null
                    : required(m, "node", item, n -> nodeName(n, fleet));
            if (kind == null) {
                return;
            }
            List<Integer> cards = switch (kind.target()) {
                case CARD -> {
                    Integer card = required(m, "card", item, n -> cardIndex(n, fleet, "card"));
                    yield card == null ? null : List.of(card);
                }
                case CARDS -> cards(m, fleet, kindName.equals("xid-burst") ? null : List.of(), item);
                default -> List.of();
            };
            Entry entry = make(kindName, m, item, fleet, at, node, cards == null ? List.of() : cards, index);
            boolean ok = at != null && (node != null || kind.target() == Target.QUEUE) && cards != null;
            if (entry == null || !ok) {
                if (m.containsKey("expect")) {
                    expectation(m.get("expect").getValueNode(), kindName, m, null, null, fleet, ids);
                }
                return;
            }
            out.addAll(entry.made());
            if (m.containsKey("expect")) {
                Expectation e = expectation(m.get("expect").getValueNode(), kindName, m, entry, at, fleet, ids);
                if (e != null) {
                    expectations.add(new Expectation(e.id(), e.cls(), e.kind(), e.layer(), e.scope(), node,
                            e.card(), e.queue(), e.at(), e.span(), e.within(), e.severity(), e.tolerate(), e.must(),
                            e.holderAfter()));
                }
            }
        }

        private void checkKeys(Map<String, NodeTuple> m, String kindName, Kind kind) {
            List<String> allowed = new ArrayList<>(kind.keys());
            allowed.add("at");
            allowed.add("kind");
            allowed.add("expect");
            if (kind.target() != Target.QUEUE) {
                allowed.add("node");
            }
            if (kind.target() == Target.CARD || kind.target() == Target.CARDS) {
                allowed.add("card");
            }
            if (kind.target() == Target.CARDS) {
                allowed.add("cards");
            }
            for (NodeTuple t : m.values()) {
                String key = ((ScalarNode) t.getKeyNode()).getValue();
                if (allowed.contains(key)) {
                    continue;
                }
                if (key.equals("card") || key.equals("cards")) {
                    error(t.getKeyNode(), kindName + (kind.target() == Target.QUEUE ? " applies to a queue"
                            : " applies to the whole node") + "; remove '" + key + "'");
                } else if (key.equals("node") && kind.target() == Target.QUEUE) {
                    error(t.getKeyNode(), kindName + " applies to a queue; remove 'node'");
                } else {
                    error(t.getKeyNode(), "unknown key '" + key + "' for kind " + kindName + "; it takes "
                            + String.join(", ", allowed.stream().sorted().toList()));
                }
            }
        }

        /** The cards of a some-cards incident: {@code card}, {@code cards} (a list or {@code all}) or {@code fallback}. */
        private List<Integer> cards(Map<String, NodeTuple> m, Fleet fleet, List<Integer> fallback, Node item) {
            if (m.containsKey("card") && m.containsKey("cards")) {
                error(m.get("cards").getKeyNode(), "give either 'card' or 'cards', not both");
                return null;
            }
            if (m.containsKey("card")) {
                Integer card = cardIndex(m.get("card").getValueNode(), fleet, "card");
                return card == null ? null : List.of(card);
            }
            if (!m.containsKey("cards")) {
                return fallback == null ? new ArrayList<>() : fallback;
            }
            Node n = m.get("cards").getValueNode();
            if (n instanceof ScalarNode s && s.getValue().equals("all")) {
                return List.of();
            }
            List<Integer> cards = intList(n, "cards", i -> cardIndex(i, fleet, "cards"));
            if (cards != null && cards.isEmpty()) {
                error(n, "'cards' needs at least one card index, or 'all'");
                return null;
            }
            return cards;
        }

        /** What the kind makes happen; null after reporting what is wrong. */
        private Entry make(String kind, Map<String, NodeTuple> m, Node item, Fleet fleet, Duration at, String node,
                           List<Integer> cards, int index) {
            Integer card = cards != null && cards.size() == 1 ? cards.get(0) : null;
            Duration t0 = at == null ? Duration.ZERO : at;
            return switch (kind) {
                case "xid" -> {
                    Integer code = required(m, "code", item, n -> integer(n, "code", 1, 65_535));
                    String text = optional(m, "text", code == null ? null : XidCatalog.text(code),
                            n -> string(n, "text"));
                    Boolean lost = optional(m, "lost", code != null && code == 79, n -> bool(n, "lost"));
                    yield code == null || text == null || lost == null || card == null ? null
                            : one(new Incident.Xid(t0, node, card, code, text, lost), Duration.ZERO, card);
                }
                case "xid-burst" -> xidBurst(m, item, fleet, t0, node, cards, index);
                case "thermal-throttle" -> {
                    Duration d = required(m, "for", item, n -> duration(n, "for", false));
                    yield d == null || card == null ? null : one(new Incident.ThermalThrottle(t0, node, card, d), d, card);
                }
                case "memory-climb" -> {
                    Rate rate = required(m, "rate", item, this::rate);
                    yield rate == null || card == null ? null
                            : one(new Incident.MemoryClimb(t0, node, card, rate.bytes(), rate.per()), Duration.ZERO, card);
                }
                case "node-silent" -> {
                    Duration d = required(m, "for", item, n -> duration(n, "for", false));
                    yield d == null ? null : one(new Incident.NodeSilent(t0, node, d), d, null);
                }
                case "idle-allocated" -> {
                    Duration d = required(m, "for", item, n -> duration(n, "for", false));
                    yield d == null || card == null ? null : one(new Incident.IdleAllocated(t0, node, card, d), d, card);
                }
                case "ecc-uncorrected" -> {
                    Integer count = optional(m, "count", 1, n -> integer(n, "count", 1, 1_000_000));
                    Integer xid = optional(m, "xid", null, n -> integer(n, "xid", 1, 65_535));
                    Boolean remapFailure = optional(m, "remapFailure", false, n -> bool(n, "remapFailure"));
                    yield count == null || card == null || remapFailure == null ? null
                            : one(new Incident.EccUncorrected(t0, node, card, count, xid, remapFailure), Duration.ZERO, card);
                }
                case "ecc-corrected" -> {
                    Integer count = optional(m, "count", 1, n -> integer(n, "count", 1, 1_000_000));
                    yield count == null || card == null ? null
                            : one(new Incident.EccCorrected(t0, node, card, count), Duration.ZERO, card);
                }
                case "clock-event", "clock-blip" -> {
                    boolean blip = kind.equals("clock-blip");
                    Long reasons = blip ? optional(m, "reasons", ClockEventReason.HW_SLOWDOWN.bit(), this::reasons)
                            : required(m, "reasons", item, this::reasons);
                    Duration d = blip ? optional(m, "for", Duration.ofSeconds(3), n -> duration(n, "for", false))
                            : required(m, "for", item, n -> duration(n, "for", false));
                    Double clock = optional(m, "clock", reasons == null ? null : clockFactor(reasons),
                            n -> fraction(n, "clock"));
                    if (reasons == null || d == null || clock == null) {
                        yield null;
                    }
                    boolean capOnly = (reasons & HW_REASONS) == 0 && (reasons & ClockEventReason.SW_POWER_CAP.bit()) != 0;
                    yield spell(t0, node, cards, d, new Incident.Effect.Clock(reasons, clock,
                            Math.pow(clock, 1.6), capOnly));
                }
                case "power-cap" -> {
                    Duration d = required(m, "for", item, n -> duration(n, "for", false));
                    yield d == null ? null : spell(t0, node, cards, d,
                            new Incident.Effect.Clock(ClockEventReason.SW_POWER_CAP.bit(), 0.93, 1, true));
                }
                case "nvlink-down" -> {
                    Integer links = optional(m, "links", 1, n -> integer(n, "links", 1, 18));
                    Duration d = optional(m, "for", FOREVER, n -> duration(n, "for", false));
                    yield links == null || d == null ? null : spell(t0, node, cards, d, new Incident.Effect.Links(links));
                }
                case "temp-rise" -> {
                    Double rate = required(m, "rate", item, n -> number(n, "rate", 0.01, 60));
                    Double to = required(m, "to", item, n -> number(n, "to", 30, 120));
                    Duration d = optional(m, "for", FOREVER, n -> duration(n, "for", false));
                    yield rate == null || to == null || d == null ? null
                            : spell(t0, node, cards, d, new Incident.Effect.Heat(to, rate));
                }
                case "hot-stable" -> {
                    Double to = required(m, "tempC", item, n -> number(n, "tempC", 30, 120));
                    Duration d = optional(m, "for", FOREVER, n -> duration(n, "for", false));
                    yield to == null || d == null ? null : spell(t0, node, cards, d, new Incident.Effect.Heat(to, 0));
                }
                case "straggler", "slow-node", "eval" -> {
                    Duration d = required(m, "for", item, n -> duration(n, "for", false));
                    double fallback = kind.equals("straggler") ? 0.5 : kind.equals("slow-node") ? 0.7 : 0.4;
                    Double slow = optional(m, "slowdown", fallback, n -> fraction(n, "slowdown"));
                    yield d == null || slow == null ? null
                            : spell(t0, node, cards, d, new Incident.Effect.Load(slow, false));
                }
                case "checkpoint" -> checkpoint(m, item, fleet, t0, node, cards);
                case "diurnal" -> {
                    Duration d = required(m, "for", item, n -> duration(n, "for", false));
                    Double low = optional(m, "low", 0.3, n -> fraction(n, "low"));
                    yield d == null || low == null ? null : spell(t0, node, cards, d, new Incident.Effect.Load(low, true));
                }
                case "memory-plateau" -> {
                    Double level = optional(m, "level", 0.97, n -> fraction(n, "level"));
                    Duration d = optional(m, "for", FOREVER, n -> duration(n, "for", false));
                    yield level == null || d == null ? null : spell(t0, node, cards, d, new Incident.Effect.Memory(level));
                }
                case "tokens-collapse", "latency-regression", "latency-spike" -> {
                    boolean tokens = kind.equals("tokens-collapse");
                    Duration d = kind.equals("latency-spike")
                            ? optional(m, "for", Duration.ofSeconds(30), n -> duration(n, "for", false))
                            : required(m, "for", item, n -> duration(n, "for", false));
                    double fallback = tokens ? 0.2 : kind.equals("latency-spike") ? 4 : 3;
                    Double factor = optional(m, "factor", fallback,
                            n -> tokens ? fraction(n, "factor") : number(n, "factor", 1, 1000));
                    yield d == null || factor == null ? null : spell(t0, node, cards, d,
                            new Incident.Effect.Serving(tokens ? factor : 1, tokens ? 1 : factor));
                }
                case "collector-unsupported" -> {
                    Set<Metric> fields = required(m, "fields", item, this::cardMetrics);
                    Duration d = optional(m, "for", FOREVER, n -> duration(n, "for", false));
                    yield fields == null || d == null ? null
                            : spell(t0, node, cards, d, new Incident.Effect.Unsupported(fields));
                }
                case "job-end", "job-cancel", "worker-respawn", "spare-card" -> {
                    Duration d = kind.equals("worker-respawn")
                            ? optional(m, "for", Duration.ofSeconds(10), n -> duration(n, "for", false))
                            : optional(m, "for", FOREVER, n -> duration(n, "for", false));
                    Duration ramp = optional(m, "ramp", kind.equals("worker-respawn") ? Duration.ofSeconds(20)
                            : Duration.ofMinutes(3), n -> duration(n, "ramp", false));
                    Integer exit = switch (kind) {
                        case "job-end" -> 0;
                        case "job-cancel" -> 143;
                        case "worker-respawn" -> 1;
                        default -> null;
                    };
                    yield d == null || ramp == null ? null
                            : spell(t0, node, cards, d, new Incident.Effect.Vacant(exit, ramp));
                }
                case "job-start" -> {
                    Duration ramp = optional(m, "ramp", Duration.ofMinutes(3), n -> duration(n, "ramp", false));
                    if (ramp == null || at == null || at.isZero()) {
                        if (at != null && at.isZero()) {
                            error(m.get("at").getValueNode(), "a job-start needs an 'at' after 0s: the card is "
                                    + "empty until then");
                        }
                        yield null;
                    }
                    Entry vacant = spell(Duration.ZERO, node, cards, t0, new Incident.Effect.Vacant(null, ramp));
                    yield new Entry(vacant.made(), ramp, vacant.card(), null);
                }
                case "probe-disconnect" -> {
                    Duration d = required(m, "for", item, n -> duration(n, "for", false));
                    yield d == null ? null : one(new Incident.ProbeDisconnect(t0, node, d), d, null);
                }
                case "node-reboot" -> {
                    Duration down = optional(m, "down", Duration.ofMinutes(2), n -> duration(n, "down", false));
                    yield down == null ? null : one(new Incident.NodeReboot(t0, node, down), down, null);
                }
                default -> {
                    String queue = required(m, "queue", item, this::queue);
                    Duration d = required(m, "for", item, n -> duration(n, "for", false));
                    Integer pending = optional(m, "pending", kind.equals("queue-wait") ? 20 : 30,
                            n -> integer(n, "pending", 1, 100_000));
                    yield queue == null || d == null || pending == null ? null
                            : new Entry(List.of(new Incident.QueueLoad(t0, queue, d, pending,
                            kind.equals("sched-burst"))), d, null, queue);
                }
            };
        }

        private static final long HW_REASONS = ClockEventReason.HW_SLOWDOWN.bit()
                | ClockEventReason.HW_THERMAL_SLOWDOWN.bit() | ClockEventReason.HW_POWER_BRAKE_SLOWDOWN.bit();

        /** The SM clock share a card keeps under these reasons: the harshest one sets it. */
        private static double clockFactor(long reasons) {
            double f = 1;
            for (String name : ClockEventReason.names(reasons)) {
                f = Math.min(f, switch (ClockEventReason.valueOf(name)) {
                    case HW_POWER_BRAKE_SLOWDOWN -> 0.45;
                    case HW_SLOWDOWN -> 0.55;
                    case HW_THERMAL_SLOWDOWN -> 0.7;
                    case SW_THERMAL_SLOWDOWN -> 0.85;
                    case SW_POWER_CAP -> 0.93;
                    default -> 1.0;
                });
            }
            return f;
        }

        private static Entry one(Incident incident, Duration extent, Integer card) {
            return new Entry(List.of(incident), extent, card, null);
        }

        private static Entry spell(Duration at, String node, List<Integer> cards, Duration d, Incident.Effect effect) {
            return new Entry(List.of(new Incident.Spell(at, node, cards, d, effect)), d,
                    cards.size() == 1 ? cards.get(0) : null, null);
        }

        /** Checkpoints {@code every} apart, each {@code for} long, {@code count} times (default: to the end). */
        private Entry checkpoint(Map<String, NodeTuple> m, Node item, Fleet fleet, Duration at, String node,
                                 List<Integer> cards) {
            Duration every = required(m, "every", item, n -> duration(n, "every", false));
            Duration d = optional(m, "for", Duration.ofSeconds(90), n -> duration(n, "for", false));
            Integer count = optional(m, "count", null, n -> integer(n, "count", 1, 100_000));
            if (every == null || d == null || cards == null) {
                return null;
            }
            if (d.compareTo(every) >= 0) {
                error(m.get("every").getValueNode(), "'every' must be longer than 'for' ("
                        + Quantities.format(d) + ")");
                return null;
            }
            int n = count != null ? count : fleet.duration() == null ? 1
                    : (int) Math.max(1, Math.min(100_000, (fleet.duration().minus(at).toMillis() + every.toMillis() - 1)
                    / every.toMillis()));
            List<Incident> made = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                made.add(new Incident.Spell(at.plus(every.multipliedBy(i)), node, cards, d,
                        new Incident.Effect.Load(0.03, false)));
            }
            return new Entry(made, every.multipliedBy(n - 1).plus(d), cards.size() == 1 ? cards.get(0) : null, null);
        }

        private Entry xidBurst(Map<String, NodeTuple> m, Node item, Fleet fleet, Duration at, String node,
                               List<Integer> given, int index) {
            List<Integer> codes = required(m, "codes", item, n -> intList(n, "codes", i -> integer(i, "codes", 1, 65_535)));
            if (codes != null && codes.isEmpty()) {
                error(m.get("codes").getValueNode(), "'codes' needs at least one XID code");
                codes = null;
            }
            Integer count = optional(m, "count", codes == null ? null : codes.size(),
                    n -> integer(n, "count", 1, 10_000));
            Duration every = required(m, "every", item, n -> duration(n, "every", false));
            List<Integer> cards = given;
            if (cards != null && cards.isEmpty() && fleet.cards() != null) {
                // `cards: all`, or none given: every card, or distinct ones chosen by the seed
                cards = m.containsKey("cards") ? spread(fleet.cards(), fleet.cards(), 0)
                        : count == null ? null : spread(fleet.cards(), count, fleet.seed() + index);
                if (m.containsKey("cards")) {
                    cards = cards.stream().sorted().toList();
                }
            }
            if (codes == null || count == null || every == null || cards == null || cards.isEmpty()) {
                return null;
            }
            return new Entry(List.of(new Incident.XidBurst(at, node, cards, codes, count, every)),
                    every.multipliedBy(count - 1), cards.size() == 1 ? cards.get(0) : null, null);
        }

        // ---- expect:

        private static final Set<String> EXPECT_KEYS = Set.of("id", "class", "kind", "layer", "scope", "severity",
                "tolerate", "within", "must", "span");
        private static final List<String> CLASSES = List.of("hard", "composite", "lookalike");
        private static final List<String> LAYERS = List.of("device", "scheduling", "application", "business");
        private static final List<String> SCOPES = List.of("card", "node", "task", "business", "queue");
        private static final List<String> SEVERITIES = List.of("page", "ticket", "notice", "inspect");
        private static final List<String> MUSTS = List.of("not-page", "not-notify");
        private static final Set<String> APPLICATION_KINDS = Set.of("tokens-collapse", "latency-regression",
                "latency-spike", "diurnal");
        private static final Duration LOOKALIKE_SLACK = Duration.ofMinutes(5);

        /**
         * The label of an incident; {@code entry} null when the incident itself is wrong (the block is still
         * checked). Node and card are filled by the caller.
         */
        private Expectation expectation(Node n, String kindName, Map<String, NodeTuple> incident, Entry entry,
                                        Duration at, Fleet fleet, Set<String> ids) {
            Map<String, NodeTuple> e = mapping(n, "'expect'", EXPECT_KEYS);
            if (e == null) {
                return null;
            }
            String id = required(e, "id", n, v -> string(v, "expect.id"));
            if (id != null && !ids.add(id)) {
                error(e.get("id").getValueNode(), "expect id '" + id + "' is used by an earlier incident");
                id = null;
            }
            String cls = required(e, "class", n, v -> oneOf(v, "expect.class", CLASSES));
            String defaultKind = kindName == null ? null : kindName.equals("xid") && incident.containsKey("code")
                    ? "xid-" + ((ScalarNode) incident.get("code").getValueNode()).getValue() : kindName;
            String kind = optional(e, "kind", defaultKind, v -> string(v, "expect.kind"));
            String layer = optional(e, "layer", kindName == null ? null : KINDS.get(kindName) == null ? null
                    : KINDS.get(kindName).target() == Target.QUEUE ? "scheduling"
                    : APPLICATION_KINDS.contains(kindName) ? "application" : "device",
                    v -> oneOf(v, "expect.layer", LAYERS));
            String defaultScope = entry == null ? null : entry.queue() != null ? "queue"
                    : APPLICATION_KINDS.contains(kindName) && !kindName.equals("diurnal") ? "task"
                    : entry.card() != null ? "card" : "node";
            String scope = optional(e, "scope", defaultScope, v -> oneOf(v, "expect.scope", SCOPES));
            String severity = optional(e, "severity", null, v -> oneOf(v, "expect.severity", SEVERITIES));
            List<String> tolerate = optional(e, "tolerate", List.of(), v -> stringList(v, "expect.tolerate", SEVERITIES));
            Duration within = optional(e, "within", null, v -> duration(v, "expect.within", false));
            String must = optional(e, "must", null, v -> oneOf(v, "expect.must", MUSTS));
            Duration span = optional(e, "span", null, v -> duration(v, "expect.span", false));
            if (cls != null) {
                String given = cls;
                boolean lookalike = cls.equals("lookalike");
                for (String key : lookalike ? List.of("severity", "within", "tolerate") : List.of("must")) {
                    if (e.containsKey(key)) {
                        error(e.get(key).getKeyNode(), "'" + key + "' applies to " + (lookalike ? "incidents; a "
                                + "look-alike says what must not happen with 'must'" : "look-alikes; an incident says "
                                + "what should happen with 'severity' and 'within'"));
                        cls = null;
                    }
                }
                for (String key : lookalike ? List.of("must") : List.of("severity", "within")) {
                    if (!e.containsKey(key)) {
                        error(n, "missing 'expect." + key + "' (class " + given + ")");
                        cls = null;
                    }
                }
            }
            if (scope != null && entry != null) {
                if (scope.equals("card") && entry.card() == null) {
                    error(e.get("scope").getValueNode(), "scope card needs an incident on one card; this one is on "
                            + (entry.queue() != null ? "a queue" : "a node or several cards"));
                    scope = null;
                } else if (scope.equals("queue") != (entry.queue() != null)) {
                    error(e.get("scope").getValueNode(), entry.queue() != null
                            ? "a queue incident has scope queue" : "scope queue needs a queue incident");
                    scope = null;
                }
            }
            if (id == null || cls == null || kind == null || layer == null || scope == null || tolerate == null
                    || entry == null || at == null || hasNull(e, severity, within, must, span)) {
                return null;
            }
            Duration extent = entry.extent();
            if (extent.equals(FOREVER) || extent.compareTo(FOREVER) > 0) {
                extent = fleet.duration() == null ? Duration.ZERO : fleet.duration().minus(at);
            }
            if (span == null) {
                span = extent.plus(cls.equals("lookalike") ? LOOKALIKE_SLACK : within);
            }
            Integer card = scope.equals("card") || entry.card() != null ? entry.card() : null;
            return new Expectation(id, cls, kind, layer, scope, null, card, entry.queue(), at, span, within, severity,
                    tolerate, must, entry.made().stream().anyMatch(Incident::replacesHolder));
        }

        /** Whether an optional key that is present failed to read. */
        private static boolean hasNull(Map<String, NodeTuple> e, Object severity, Object within, Object must,
                                       Object span) {
            return e.containsKey("severity") && severity == null || e.containsKey("within") && within == null
                    || e.containsKey("must") && must == null || e.containsKey("span") && span == null;
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

        private Double number(Node n, String field, double min, double max) {
            String s = string(n, field);
            if (s == null) {
                return null;
            }
            double v;
            try {
                v = Double.parseDouble(s);
            } catch (NumberFormatException e) {
                error(n, "'" + field + "' must be a number, got '" + s + "'");
                return null;
            }
            if (!(v >= min && v <= max)) {
                error(n, "'" + field + "' must be between " + trim(min) + " and " + trim(max) + ", got " + s);
                return null;
            }
            return v;
        }

        private static String trim(double v) {
            return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
        }

        /** A share strictly between 0 and 1 (a slowdown, a level). */
        private Double fraction(Node n, String field) {
            Double v = number(n, field, 0, 1);
            if (v != null && (v <= 0 || v >= 1)) {
                error(n, "'" + field + "' must be a share between 0 and 1 (exclusive), got " + trim(v));
                return null;
            }
            return v;
        }

        private Long instant(Node n) {
            String s = string(n, "start");
            if (s == null) {
                return null;
            }
            try {
                return java.time.Instant.parse(s).toEpochMilli();
            } catch (java.time.format.DateTimeParseException e) {
                error(n, "'start' must be a UTC time like 2026-01-01T00:00:00Z, got '" + s + "'");
                return null;
            }
        }

        private String oneOf(Node n, String field, List<String> allowed) {
            String s = string(n, field);
            if (s != null && !allowed.contains(s)) {
                error(n, "'" + field + "' must be one of " + String.join(", ", allowed) + ", got '" + s + "'");
                return null;
            }
            return s;
        }

        private List<String> stringList(Node n, String field, List<String> allowed) {
            if (!(n instanceof SequenceNode seq)) {
                error(n, "'" + field + "' must be a list, like [" + allowed.get(0) + "]");
                return null;
            }
            List<String> out = new ArrayList<>();
            boolean ok = true;
            for (Node item : seq.getValue()) {
                String v = oneOf(item, field, allowed);
                ok &= v != null;
                out.add(v);
            }
            return ok ? out : null;
        }

        private String queue(Node n) {
            return oneOf(n, "queue", QUEUES);
        }

        private Long reasons(Node n) {
            List<String> names = stringList(n, "reasons", java.util.Arrays.stream(ClockEventReason.values())
                    .filter(r -> r != ClockEventReason.GPU_IDLE).map(Enum::name).toList());
            if (names == null) {
                return null;
            }
            if (names.isEmpty()) {
                error(n, "'reasons' needs at least one clock-event reason, like [HW_SLOWDOWN]");
                return null;
            }
            long mask = 0;
            for (String name : names) {
                mask |= ClockEventReason.byName(name).bit();
            }
            return mask;
        }

        /** Card readings by their protocol field names, like [smActive, memTempC]. */
        private Set<Metric> cardMetrics(Node n) {
            if (!(n instanceof SequenceNode seq) || seq.getValue().isEmpty()) {
                error(n, "'fields' must be a list of card readings, like [smActive, memTempC]");
                return null;
            }
            Set<Metric> out = new java.util.LinkedHashSet<>();
            boolean ok = true;
            for (Node item : seq.getValue()) {
                String name = string(item, "fields");
                Metric metric = name == null ? null : Metric.byField(name);
                if (name != null && (metric == null || metric.source() != Metric.Source.CARD)) {
                    error(item, "'" + name + "' is no card reading; card readings are "
                            + java.util.Arrays.stream(Metric.values()).filter(x -> x.source() == Metric.Source.CARD)
                            .map(Metric::field).collect(java.util.stream.Collectors.joining(", ")));
                    metric = null;
                }
                ok &= metric != null;
                if (metric != null) {
                    out.add(metric);
                }
            }
            return ok ? out : null;
        }

        private static List<String> sorted(Set<String> keys) {
            return keys.stream().sorted().toList();
        }

        private void error(Node n, String message) {
            YamlDocument.Problem p = YamlDocument.at(n, message);
            errors.add(new ScenarioError(source, p.line(), p.column(), p.message()));
        }
    }
}
