package io.gpuwatch.cli.alerting;

import io.gpuwatch.gateway.digest.DigestSchedule;
import io.gpuwatch.rules.dsl.DslException;
import io.gpuwatch.rules.dsl.Durations;
import io.gpuwatch.rules.source.Diagnostic;
import io.gpuwatch.rules.source.DidYouMean;
import io.gpuwatch.rules.source.SourceText;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the {@code digest:} of a chat receiver: one schedule or a list of them, each {@code {every: 1h}} or
 * {@code {at: "09:00", time_zone: Asia/Shanghai}} ({@code time_zone} defaults to UTC and also sets the zone an
 * {@code every} digest shows its times in). Every problem is reported at the place it is written.
 */
final class DigestReader {
    static final List<String> KEYS = List.of("every", "at", "time_zone");
    private static final Pattern CLOCK = Pattern.compile("([01]\\d|2[0-3]):([0-5]\\d)");

    private final String file;
    private final List<Diagnostic> diagnostics = new ArrayList<>();

    DigestReader(String file) {
        this.file = file;
    }

    /** The schedules read, or as many as were right; problems are in {@link #diagnostics()}. */
    List<DigestSchedule> read(Node node) {
        List<DigestSchedule> out = new ArrayList<>();
        if (node instanceof SequenceNode seq) {
            if (seq.getValue().isEmpty()) {
                error(seq, "`digest` lists no schedule; write `digest: {every: 1h}` or leave it out");
            }
            for (Node item : seq.getValue()) {
                schedule(item, out);
            }
        } else {
            schedule(node, out);
        }
        return out;
    }

    List<Diagnostic> diagnostics() {
        return diagnostics;
    }

    private void schedule(Node node, List<DigestSchedule> out) {
        if (!(node instanceof MappingNode m)) {
            error(node, "a digest schedule is a mapping: `{every: 1h}` or `{at: \"09:00\", time_zone: Asia/Shanghai}`");
            return;
        }
        Map<String, NodeTuple> keys = new LinkedHashMap<>();
        for (NodeTuple t : m.getValue()) {
            if (t.getKeyNode() instanceof ScalarNode k) {
                if (!KEYS.contains(k.getValue())) {
                    error(k, "unknown digest key `" + k.getValue() + "`" + DidYouMean.hint(k.getValue(), KEYS)
                            + " (keys: " + String.join(", ", KEYS) + ")");
                } else {
                    keys.put(k.getValue(), t);
                }
            }
        }
        ZoneId zone = keys.containsKey("time_zone") ? zone(keys.get("time_zone").getValueNode()) : ZoneOffset.UTC;
        NodeTuple every = keys.get("every");
        NodeTuple at = keys.get("at");
        if (every != null && at != null) {
            error(at.getKeyNode(), "a digest schedule has `every` or `at`, not both; write two schedules in a list");
            return;
        }
        if (every == null && at == null) {
            error(m, "a digest schedule needs `every: DURATION` (e.g. 1h) or `at: \"HH:MM\"` (daily)");
            return;
        }
        if (zone == null) {
            return;
        }
        if (every != null) {
            Duration period = period(every.getValueNode());
            if (period != null) {
                out.add(new DigestSchedule.Every(period, zone));
            }
        } else {
            LocalTime time = clock(at.getValueNode());
            if (time != null) {
                out.add(new DigestSchedule.Daily(time, zone));
            }
        }
    }

    private Duration period(Node node) {
        ScalarNode s = scalar(node, "every");
        if (s == null) {
            return null;
        }
        try {
            long ms = Durations.parse(s.getValue());
            if (ms < 60_000) {
                error(s, "`every` must be at least 1m, got `" + s.getValue() + "`");
                return null;
            }
            return Duration.ofMillis(ms);
        } catch (DslException e) {
            error(s, "`every`: " + e.getMessage());
            return null;
        }
    }

    private LocalTime clock(Node node) {
        ScalarNode s = scalar(node, "at");
        if (s == null) {
            return null;
        }
        Matcher m = CLOCK.matcher(s.getValue().strip());
        if (!m.matches()) {
            error(s, "`at` is a time of day as \"HH:MM\" from 00:00 to 23:59, got `" + s.getValue() + "`"
                    + (s.getValue().matches("\\d+") ? " (quote it: YAML reads 09:00 unquoted as a number)" : ""));
            return null;
        }
        return LocalTime.of(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
    }

    private ZoneId zone(Node node) {
        ScalarNode s = scalar(node, "time_zone");
        if (s == null) {
            return null;
        }
        try {
            return ZoneId.of(s.getValue());
        } catch (DateTimeException e) {
            error(s, "unknown time zone `" + s.getValue() + "`"
                    + DidYouMean.hint(s.getValue(), ZoneId.getAvailableZoneIds())
                    + " (an IANA name such as Europe/Berlin or Asia/Shanghai)");
            return null;
        }
    }

    private ScalarNode scalar(Node node, String key) {
        if (node instanceof ScalarNode s && !s.getValue().isBlank()) {
            return s;
        }
        error(node, "`" + key + "` needs a value");
        return null;
    }

    private void error(Node node, String message) {
        SourceText.Position p = SourceText.of(node);
        diagnostics.add(Diagnostic.error(file, p.line(), p.column(), message));
    }
}
