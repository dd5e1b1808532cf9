package io.gpuwatch.offline.score;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.gpuwatch.gateway.backtest.TextReport;
import io.gpuwatch.rules.Severity;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/** A {@link Score} as text (summary, per-trace counts, per-item and per-rule tables) or as one JSON object. */
public final class ScoreReport {
    private static final JsonFactory JSON = new JsonFactory();
    private static final Set<String> RIGHT = Set.of("notifications", "true", "false", "precision");

    private ScoreReport() {
    }

    /** The text form, lines ending in {@code \n}. */
    public static String text(Score s) {
        StringBuilder out = new StringBuilder();
        out.append("hard faults caught on time: ").append(ratio(s.hardOnTime())).append('\n');
        out.append("composite incidents caught on time: ").append(ratio(s.compositeOnTime())).append('\n');
        out.append("severity right: ").append(ratio(s.severityRight())).append(" detected\n");
        out.append("notification precision: ").append(ratio(s.notificationPrecision())).append('\n');
        out.append("page precision: ").append(ratio(s.pagePrecision())).append('\n');
        Score.Ratio ppi = s.pagesPerPagedIncident();
        out.append("pages per paged incident: ")
                .append(ppi.value() == null ? "-" : String.format(Locale.ROOT, "%.2f", ppi.value()))
                .append(" (").append(plural(ppi.part(), "page")).append(", ")
                .append(plural(ppi.whole(), "paged incident")).append(")\n");
        out.append("look-alikes paged: ").append(ratio(s.lookalikesPaged())).append('\n');
        out.append("look-alikes notified: ").append(ratio(s.lookalikesNotified())).append(" must-not-notify\n");
        out.append("detection delay: ").append(s.delayMedianMs() == null ? "none detected"
                : "median " + TextReport.duration(s.delayMedianMs()) + " max " + TextReport.duration(s.delayMaxMs()))
                .append('\n');
        out.append('\n');
        for (Score.TraceRow t : s.traces()) {
            out.append("trace ").append(t.trace()).append(": on time ").append(t.caughtOnTime()).append(" of ")
                    .append(plural(t.incidents(), "incident")).append(", loud ").append(t.lookalikesLoud())
                    .append(" of ").append(plural(t.lookalikes(), "look-alike")).append(", true ")
                    .append(t.truePositives()).append(" of ").append(plural(t.notifications(), "notification"))
                    .append('\n');
        }
        boolean pooled = s.traces().size() > 1;
        List<List<String>> rows = new ArrayList<>();
        List<String> head = new ArrayList<>(List.of("id", "kind", "class", "expected", "got", "action", "delay",
                "notifications", "verdict"));
        if (pooled) {
            head.add(0, "trace");
        }
        rows.add(head);
        for (Score.Item i : s.items()) {
            List<String> row = new ArrayList<>(List.of(i.label().id(), orDash(i.label().name()),
                    i.label().kind().key(), expected(i.label()), i.got() == null ? "-" : i.got().key(),
                    orDash(i.action()), i.delayMs() == null ? "-" : TextReport.duration(i.delayMs()),
                    String.valueOf(i.notifications()), i.verdict().key()));
            if (pooled) {
                row.add(0, i.trace());
            }
            rows.add(row);
        }
        out.append('\n');
        table(out, rows);
        rows.clear();
        rows.add(List.of("rule", "notifications", "true", "false", "precision"));
        for (Score.RuleRow r : s.rules()) {
            rows.add(List.of(r.rule(), String.valueOf(r.notifications()), String.valueOf(r.truePositives()),
                    String.valueOf(r.falsePositives()), percent(r.precision())));
        }
        out.append('\n');
        table(out, rows);
        return out.toString();
    }

    /** The JSON form: one object with {@code summary}, {@code traces}, {@code items} and {@code rules}. */
    public static String json(Score s) {
        StringWriter out = new StringWriter(4096);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeObjectFieldStart("summary");
            ratio(g, "hardOnTime", s.hardOnTime());
            ratio(g, "compositeOnTime", s.compositeOnTime());
            ratio(g, "severityRight", s.severityRight());
            ratio(g, "notificationPrecision", s.notificationPrecision());
            ratio(g, "pagePrecision", s.pagePrecision());
            ratio(g, "pagesPerPagedIncident", s.pagesPerPagedIncident());
            ratio(g, "lookalikesPaged", s.lookalikesPaged());
            ratio(g, "lookalikesNotified", s.lookalikesNotified());
            number(g, "delayMedianMs", s.delayMedianMs());
            number(g, "delayMaxMs", s.delayMaxMs());
            g.writeEndObject();
            g.writeArrayFieldStart("traces");
            for (Score.TraceRow t : s.traces()) {
                g.writeStartObject();
                g.writeStringField("trace", t.trace());
                g.writeNumberField("incidents", t.incidents());
                g.writeNumberField("caughtOnTime", t.caughtOnTime());
                g.writeNumberField("lookalikes", t.lookalikes());
                g.writeNumberField("lookalikesNotQuiet", t.lookalikesLoud());
                g.writeNumberField("notifications", t.notifications());
                g.writeNumberField("true", t.truePositives());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("items");
            for (Score.Item i : s.items()) {
                Label l = i.label();
                g.writeStartObject();
                g.writeStringField("trace", i.trace());
                g.writeStringField("id", l.id());
                g.writeStringField("kind", l.name());
                g.writeStringField("class", l.kind().key());
                g.writeStringField("scope", l.scope().key());
                if (l.incident()) {
                    g.writeStringField("severity", l.severity().key());
                    g.writeArrayFieldStart("tolerate");
                    for (Severity t : l.tolerate()) {
                        g.writeString(t.key());
                    }
                    g.writeEndArray();
                    g.writeNumberField("withinMs", l.withinMs());
                } else {
                    g.writeStringField("must", l.must().key());
                }
                g.writeStringField("got", i.got() == null ? null : i.got().key());
                g.writeStringField("action", i.action());
                number(g, "delayMs", i.delayMs());
                g.writeNumberField("notifications", i.notifications());
                g.writeNumberField("pages", i.pages());
                g.writeStringField("verdict", i.verdict().name().toLowerCase(Locale.ROOT));
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("rules");
            for (Score.RuleRow r : s.rules()) {
                g.writeStartObject();
                g.writeStringField("rule", r.rule());
                g.writeNumberField("notifications", r.notifications());
                g.writeNumberField("true", r.truePositives());
                g.writeNumberField("false", r.falsePositives());
                Double p = r.precision().value();
                if (p == null) {
                    g.writeNullField("precision");
                } else {
                    g.writeNumberField("precision", p);
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            // a StringWriter does not fail
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private static void ratio(JsonGenerator g, String name, Score.Ratio r) throws IOException {
        g.writeObjectFieldStart(name);
        g.writeNumberField("part", r.part());
        g.writeNumberField("whole", r.whole());
        if (r.value() == null) {
            g.writeNullField("value");
        } else {
            g.writeNumberField("value", r.value());
        }
        g.writeEndObject();
    }

    private static void number(JsonGenerator g, String name, Long v) throws IOException {
        if (v == null) {
            g.writeNullField(name);
        } else {
            g.writeNumberField(name, v);
        }
    }

    /** {@code 14 of 16 (88 %)}; {@code 0 of 0} without a percentage. */
    private static String ratio(Score.Ratio r) {
        return r.part() + " of " + r.whole() + (r.whole() == 0 ? "" : " (" + percent(r) + ")");
    }

    private static String percent(Score.Ratio r) {
        return r.value() == null ? "-" : Math.round(r.value() * 100) + " %";
    }

    private static String expected(Label l) {
        if (!l.incident()) {
            return l.must().key();
        }
        String severities = l.tolerate().isEmpty() ? l.severity().key() : l.severity().key() + "/"
                + l.tolerate().stream().map(Severity::key).collect(Collectors.joining("/"));
        return severities + " in " + TextReport.duration(l.withinMs());
    }

    private static String orDash(String s) {
        return s == null || s.isEmpty() ? "-" : s;
    }

    /** Columns padded to their widest cell; counts and shares are right-aligned. */
    private static void table(StringBuilder out, List<List<String>> rows) {
        List<String> head = rows.get(0);
        int[] width = new int[head.size()];
        for (List<String> row : rows) {
            for (int c = 0; c < width.length; c++) {
                width[c] = Math.max(width[c], row.get(c).length());
            }
        }
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < width.length; c++) {
                String cell = row.get(c);
                String pad = " ".repeat(width[c] - cell.length());
                line.append(c > 0 ? "  " : "").append(RIGHT.contains(head.get(c)) ? pad + cell : cell + pad);
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
    }

    private static String plural(long n, String word) {
        return n + " " + word + (n == 1 ? "" : "s");
    }
}
