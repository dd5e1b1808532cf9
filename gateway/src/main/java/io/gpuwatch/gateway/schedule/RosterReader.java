package io.gpuwatch.gateway.schedule;

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
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads an on-call file (people, schedules with layers of rotations, overrides), collecting every problem with its
 * file:line:column. The YAML is composed into nodes, never constructed into objects, so each value keeps its place.
 */
final class RosterReader {
    private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9_-]*");
    private static final Pattern HOURS = Pattern.compile("(\\d{2}:\\d{2})\\s*-\\s*(\\d{2}:\\d{2})");
    private static final List<String> TOP_KEYS = List.of("people", "schedules");
    /** What a mention on each chat channel is made of; anything else could break out of the mention's markup. */
    private static final Map<String, Pattern> ADDRESSES = Map.of(
            "slack", Pattern.compile("[UW][A-Z0-9]{2,}"),
            "feishu", Pattern.compile("[A-Za-z0-9_-]+"),
            "dingtalk", Pattern.compile("\\+?[0-9][0-9-]{4,}"),
            "wecom", Pattern.compile("[A-Za-z0-9_.@-]+"),
            // a UPN, or a Microsoft Entra object id: the two ids Teams takes in a card's mention
            "teams", Pattern.compile("[A-Za-z0-9._%+'-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}"
                    + "|[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}"));
    private static final Map<String, String> ADDRESS_EXAMPLES = Map.of("slack", "a member id such as U024BE7LH",
            "feishu", "an open_id such as ou_7d8a6e6df7621556ce0d21922b676706", "dingtalk",
            "a mobile number such as 13800000000", "wecom", "a userid such as zhangwei", "teams",
            "a UPN such as wei@example.com or an Entra object id");
    private static final List<String> PERSON_KEYS = List.of("name", "contacts");
    private static final List<String> SCHEDULE_KEYS = List.of("name", "time_zone", "layers", "overrides");
    private static final List<String> LAYER_KEYS = List.of("name", "rotations");
    private static final List<String> ROTATION_KEYS =
            List.of("name", "type", "start", "length", "members", "hours", "time_zone");
    private static final List<String> OVERRIDE_KEYS = List.of("layer", "person", "replaces", "start", "end");
    private static final Map<String, Duration> TYPES = Map.of("daily", Duration.ofDays(1),
            "weekly", Duration.ofDays(7), "custom", Duration.ZERO);

    private final String file;
    private final String text;
    private final List<Diagnostic> diagnostics = new ArrayList<>();
    private final Map<String, Person> people = new LinkedHashMap<>();

    RosterReader(String file, String text) {
        this.file = file;
        this.text = text;
    }

    RosterLoad read() {
        Roster roster = roster();
        boolean failed = diagnostics.stream().anyMatch(d -> d.level() == Diagnostic.Level.ERROR);
        diagnostics.sort(Comparator.comparingInt(Diagnostic::line).thenComparingInt(Diagnostic::column));
        return new RosterLoad(failed ? null : roster, diagnostics);
    }

    private Roster roster() {
        SourceText.Composed composed = SourceText.compose(file, text);
        if (composed.error() != null) {
            diagnostics.add(composed.error());
            return null;
        }
        Optional<Node> root = composed.root();
        if (root.isEmpty() || !(root.get() instanceof MappingNode top)) {
            SourceText.Position p = root.map(SourceText::of).orElse(new SourceText.Position(0, 0));
            diagnostics.add(Diagnostic.error(file, p.line(), p.column(),
                    "an on-call file is a mapping with `people:` and `schedules:`"));
            return null;
        }
        Map<String, Node> keys = entries(top, TOP_KEYS, "top-level");
        if (keys.containsKey("people")) {
            named(keys.get("people"), "people", this::person);
        }
        Map<String, Schedule> schedules = new LinkedHashMap<>();
        if (keys.containsKey("schedules")) {
            named(keys.get("schedules"), "schedules", (id, node) -> {
                Schedule s = schedule(id, node);
                if (s != null) {
                    schedules.put(id.getValue(), s);
                }
            });
        }
        return new Roster(people, schedules);
    }

    /** A mapping from ids to definitions, each id checked for a plain lower-case name (it goes into URLs). */
    private void named(Node node, String what, BiConsumer<ScalarNode, Node> each) {
        if (!(node instanceof MappingNode m)) {
            if (!isNull(node)) {
                error(node, "`" + what + "` is a mapping from ids to definitions");
            }
            return;
        }
        List<String> seen = new ArrayList<>();
        for (NodeTuple t : m.getValue()) {
            if (!(t.getKeyNode() instanceof ScalarNode key) || !ID.matcher(key.getValue()).matches()) {
                error(t.getKeyNode(), "an id is lower-case letters, digits, `-` and `_`, starting with a letter or "
                        + "digit");
            } else if (seen.contains(key.getValue())) {
                error(key, "`" + key.getValue() + "` is given twice");
            } else {
                seen.add(key.getValue());
                each.accept(key, t.getValueNode());
            }
        }
    }

    // ---- people

    private void person(ScalarNode id, Node node) {
        Map<String, Node> keys = node instanceof MappingNode m ? entries(m, PERSON_KEYS, "person") : Map.of();
        if (!(node instanceof MappingNode) && !isNull(node)) {
            error(node, "a person is a mapping with `name:` and `contacts:`");
            return;
        }
        String name = keys.containsKey("name") ? scalar(keys.get("name"), "name") : null;
        Map<String, String> contacts = new LinkedHashMap<>();
        Node c = keys.get("contacts");
        if (c instanceof MappingNode cm) {
            for (NodeTuple t : cm.getValue()) {
                String channel = t.getKeyNode() instanceof ScalarNode k ? k.getValue() : "";
                if (!Person.CHANNELS.contains(channel)) {
                    error(t.getKeyNode(),
                            "unknown channel `" + channel + "`" + DidYouMean.hint(channel, Person.CHANNELS));
                    continue;
                }
                String address = scalar(t.getValueNode(), "contacts." + channel);
                if (address != null && ADDRESSES.containsKey(channel)
                        && !ADDRESSES.get(channel).matcher(address).matches()) {
                    error(t.getValueNode(), "a " + channel + " contact is " + ADDRESS_EXAMPLES.get(channel) + ", got `"
                            + address + "`");
                } else if (address != null && !address.isBlank()) {
                    contacts.put(channel, address);
                }
            }
        } else if (c != null && !isNull(c)) {
            error(c, "`contacts` is a mapping from channel to address, e.g. `slack: U024BE7LH`");
        }
        people.put(id.getValue(), new Person(id.getValue(), name == null ? id.getValue() : name, contacts));
    }

    // ---- schedules

    private Schedule schedule(ScalarNode id, Node node) {
        if (!(node instanceof MappingNode m)) {
            error(node, "a schedule is a mapping with `time_zone:` and `layers:`");
            return null;
        }
        Map<String, Node> keys = entries(m, SCHEDULE_KEYS, "schedule");
        String name = keys.containsKey("name") ? scalar(keys.get("name"), "name") : null;
        ZoneId zone = null;
        if (keys.containsKey("time_zone")) {
            zone = zone(keys.get("time_zone"));
        } else {
            error(m, "schedule `" + id.getValue() + "` needs `time_zone:` (e.g. Europe/Berlin, UTC)");
        }
        List<Layer> layers = new ArrayList<>();
        if (!keys.containsKey("layers")) {
            error(m, "schedule `" + id.getValue() + "` needs `layers:` (at least one, e.g. `name: primary`)");
        } else {
            for (Node item : items(keys.get("layers"), "layers")) {
                Layer layer = layer(item, zone);
                if (layer != null) {
                    if (layers.stream().anyMatch(l -> l.name().equals(layer.name()))) {
                        error(item, "layer `" + layer.name() + "` is given twice");
                    }
                    layers.add(layer);
                }
            }
        }
        List<ShiftOverride> overrides = new ArrayList<>();
        if (keys.containsKey("overrides")) {
            List<String> layerNames = layers.stream().map(Layer::name).toList();
            for (Node item : items(keys.get("overrides"), "overrides")) {
                ShiftOverride o = override(item, zone, layerNames);
                if (o != null) {
                    overrides.add(o);
                }
            }
        }
        if (zone == null) {
            return null;
        }
        return new Schedule(id.getValue(), name == null ? id.getValue() : name, zone, layers, overrides);
    }

    private Layer layer(Node node, ZoneId zone) {
        if (!(node instanceof MappingNode m)) {
            error(node, "a layer is a mapping with `name:` and `rotations:`");
            return null;
        }
        Map<String, Node> keys = entries(m, LAYER_KEYS, "layer");
        String name = keys.containsKey("name") ? scalar(keys.get("name"), "name") : null;
        if (name == null) {
            error(m, "a layer needs `name:` (e.g. primary, secondary)");
        }
        List<Rotation> rotations = new ArrayList<>();
        if (!keys.containsKey("rotations")) {
            error(m, "a layer needs `rotations:` (at least one)");
        } else {
            for (Node item : items(keys.get("rotations"), "rotations")) {
                Rotation r = rotation(item, zone);
                if (r != null) {
                    rotations.add(r);
                }
            }
        }
        return name == null ? null : new Layer(name, rotations);
    }

    private Rotation rotation(Node node, ZoneId scheduleZone) {
        if (!(node instanceof MappingNode m)) {
            error(node, "a rotation is a mapping with `type:`, `start:` and `members:`");
            return null;
        }
        Map<String, Node> keys = entries(m, ROTATION_KEYS, "rotation");
        boolean ok = true;
        String name = keys.containsKey("name") ? scalar(keys.get("name"), "name") : null;
        ZoneId zone = keys.containsKey("time_zone") ? zone(keys.get("time_zone")) : scheduleZone;
        Duration length = null;
        Node type = keys.get("type");
        String typeName = type == null ? null : scalar(type, "type");
        if (type == null) {
            error(m, "a rotation needs `type:` (daily, weekly or custom)");
        } else if (typeName != null && !TYPES.containsKey(typeName)) {
            error(type, "unknown rotation type `" + typeName + "`" + DidYouMean.hint(typeName, TYPES.keySet())
                    + "; one of daily, weekly, custom");
        } else if (typeName != null) {
            length = TYPES.get(typeName);
        }
        Node lengthNode = keys.get("length");
        if ("custom".equals(typeName)) {
            length = lengthNode == null ? null : length(lengthNode);
            if (lengthNode == null) {
                error(m, "a custom rotation needs `length:` between hand-offs (e.g. 12h, 3d)");
            }
        } else if (lengthNode != null && typeName != null) {
            error(lengthNode, "`length` is for `type: custom`; a " + typeName + " rotation hands off every "
                    + (typeName.equals("daily") ? "day" : "week"));
        }
        LocalDateTime start = null;
        if (keys.containsKey("start")) {
            start = localTime(keys.get("start"), "start");
        } else {
            error(m, "a rotation needs `start:`, the first hand-off in its zone (e.g. 2026-11-30T09:00)");
        }
        List<String> members = new ArrayList<>();
        if (keys.containsKey("members")) {
            for (Node item : items(keys.get("members"), "members")) {
                String id = personRef(item);
                ok &= id != null;
                if (id != null) {
                    members.add(id);
                }
            }
            if (members.isEmpty() && ok) {
                error(keys.get("members"), "a rotation needs at least one member");
            }
        } else {
            error(m, "a rotation needs `members:`, the people taking turns");
        }
        Rotation.Hours hours = keys.containsKey("hours") ? hours(keys.get("hours")) : null;
        if (!ok || zone == null || length == null || start == null || members.isEmpty()
                || keys.containsKey("hours") && hours == null) {
            return null;
        }
        return new Rotation(name == null ? typeName : name, zone, start, length, members, hours);
    }

    private ShiftOverride override(Node node, ZoneId zone, List<String> layers) {
        if (!(node instanceof MappingNode m)) {
            error(node, "an override is a mapping with `layer:`, `person:`, `start:` and `end:`");
            return null;
        }
        Map<String, Node> keys = entries(m, OVERRIDE_KEYS, "override");
        for (String required : List.of("layer", "person", "start", "end")) {
            if (!keys.containsKey(required)) {
                error(m, "an override needs `" + required + ":`");
            }
        }
        String layer = keys.containsKey("layer") ? scalar(keys.get("layer"), "layer") : null;
        if (layer != null && !layers.contains(layer)) {
            error(keys.get("layer"), "no layer `" + layer + "` in this schedule" + DidYouMean.hint(layer, layers));
            layer = null;
        }
        String person = keys.containsKey("person") ? personRef(keys.get("person")) : null;
        String replaces = keys.containsKey("replaces") ? personRef(keys.get("replaces")) : null;
        Instant start = keys.containsKey("start") ? instant(keys.get("start"), zone) : null;
        Instant end = keys.containsKey("end") ? instant(keys.get("end"), zone) : null;
        if (start != null && end != null && !end.isAfter(start)) {
            error(keys.get("end"), "an override must end after it starts");
            return null;
        }
        if (layer == null || person == null || start == null || end == null
                || keys.containsKey("replaces") && replaces == null) {
            return null;
        }
        return new ShiftOverride(layer, person, replaces, start, end);
    }

    // ---- values

    private String personRef(Node node) {
        String id = scalar(node, "person");
        if (id == null) {
            return null;
        }
        if (!people.containsKey(id)) {
            error(node, "no person `" + id + "` under `people:`" + DidYouMean.hint(id, people.keySet()));
            return null;
        }
        return id;
    }

    private ZoneId zone(Node node) {
        String text = scalar(node, "time_zone");
        if (text == null) {
            return null;
        }
        try {
            return ZoneId.of(text);
        } catch (DateTimeException e) {
            error(node, "unknown time zone `" + text + "`" + DidYouMean.hint(text, ZoneId.getAvailableZoneIds())
                    + "; use an IANA name such as Europe/Berlin or UTC");
            return null;
        }
    }

    private Duration length(Node node) {
        String text = scalar(node, "length");
        if (text == null) {
            return null;
        }
        try {
            Duration d = Duration.ofMillis(Durations.parse(text));
            if (d.toMinutes() < 1 || d.toSeconds() % 60 != 0) {
                error(node, "a rotation's `length` is whole minutes, at least 1m; got " + text);
                return null;
            }
            return d;
        } catch (DslException e) {
            error(node, "`length`: " + e.getMessage());
            return null;
        }
    }

    private LocalDateTime localTime(Node node, String key) {
        String text = scalar(node, key);
        if (text == null) {
            return null;
        }
        try {
            return LocalDateTime.parse(text);
        } catch (DateTimeException e) {
            error(node, "`" + key + "` is a wall-clock date and time in the rotation's zone, like 2026-11-30T09:00; "
                    + "got " + text);
            return null;
        }
    }

    /** An instant with an offset ({@code Z}, {@code +08:00}), or a wall-clock time read in {@code zone}. */
    private Instant instant(Node node, ZoneId zone) {
        String text = scalar(node, "time");
        if (text == null) {
            return null;
        }
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeException ignoredOffset) {
            try {
                LocalDateTime local = LocalDateTime.parse(text);
                return zone == null ? null : ZonedDateTime.of(local, zone).toInstant();
            } catch (DateTimeException e) {
                error(node, "expected a date and time like 2026-12-12T09:00 (in the schedule's zone) or "
                        + "2026-12-12T09:00+01:00; got " + text);
                return null;
            }
        }
    }

    private Rotation.Hours hours(Node node) {
        String text = scalar(node, "hours");
        if (text == null) {
            return null;
        }
        Matcher hm = HOURS.matcher(text.strip());
        try {
            if (hm.matches()) {
                LocalTime from = LocalTime.parse(hm.group(1));
                LocalTime to = LocalTime.parse(hm.group(2));
                if (from.equals(to)) {
                    error(node, "`hours` that start where they end cover nothing; leave `hours` out for all day");
                    return null;
                }
                return new Rotation.Hours(from, to);
            }
        } catch (DateTimeException e) {
            // an hour past 23 or a minute past 59 gets the message below
        }
        error(node, "`hours` is a daily window like 09:00-17:00 (one that ends before it starts runs past "
                + "midnight); got " + text);
        return null;
    }

    // ---- YAML helpers

    private Map<String, Node> entries(MappingNode node, List<String> allowed, String what) {
        return YamlMapping.entries(node, allowed, what, this::error);
    }

    private List<Node> items(Node node, String key) {
        if (node instanceof SequenceNode seq) {
            return seq.getValue();
        }
        if (!isNull(node)) {
            error(node, "`" + key + "` is a list");
        }
        return List.of();
    }

    private String scalar(Node node, String key) {
        if (node instanceof ScalarNode s && !isNull(s)) {
            return s.getValue();
        }
        error(node, "`" + key + "` needs a single value");
        return null;
    }

    private static boolean isNull(Node node) {
        return node.getTag().equals(Tag.NULL);
    }

    private void error(Node node, String message) {
        SourceText.Position p = SourceText.of(node);
        diagnostics.add(Diagnostic.error(file, p.line(), p.column(), message));
    }
}
