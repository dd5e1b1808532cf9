package io.gpuwatch.probe.app;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A strict parser of the Prometheus text exposition format 0.0.4 ({@code # HELP}, {@code # TYPE}, samples with
 * labels, values and optional millisecond timestamps), tolerating the OpenMetrics {@code # EOF} line. A line that
 * breaks the format is reported with its line and column and skipped; the rest is kept.
 */
public final class ExpositionParser {
    private static final Set<String> TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped",
            // OpenMetrics names, for endpoints that answer in that format anyway
            "unknown", "gaugehistogram", "info", "stateset");
    private static final Pattern NUMBER = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");
    private static final Pattern TIMESTAMP = Pattern.compile("-?\\d{1,19}");

    private ExpositionParser() {
    }

    /** Parses a whole exposition; never throws. */
    public static Exposition parse(String text) {
        return new Run().parse(text);
    }

    /** A label value where it was written, for errors about it. */
    private record LabelAt(String value, int column) {
    }

    /** One parse: what has been read so far. */
    private static final class Run {
        private final List<ExpositionSample> samples = new ArrayList<>();
        private final Map<String, String> types = new HashMap<>();
        private final Map<String, String> help = new HashMap<>();
        private final List<ExpositionError> errors = new ArrayList<>();
        private final Set<String> sampleNames = new HashSet<>();
        private final Map<String, Set<Map<String, String>>> series = new HashMap<>();
        private int lineNo;
        private String line;
        private int pos;

        Exposition parse(String text) {
            String[] lines = text.split("\n", -1);
            int count = lines.length;
            if (count > 0 && lines[count - 1].isEmpty()) {
                count--;
            }
            boolean eof = false;
            for (int i = 0; i < count; i++) {
                lineNo = i + 1;
                line = lines[i].endsWith("\r") ? lines[i].substring(0, lines[i].length() - 1) : lines[i];
                pos = 0;
                skipBlanks();
                if (pos == line.length()) {
                    continue;
                }
                if (eof) {
                    error(pos, "nothing may follow '# EOF'; the rest of the exposition is ignored");
                    break;
                }
                try {
                    if (line.charAt(pos) == '#') {
                        eof = comment();
                    } else {
                        sample();
                    }
                } catch (Bad bad) {
                    errors.add(new ExpositionError(lineNo, bad.column + 1, bad.getMessage()));
                }
            }
            return new Exposition(samples, types, help, errors);
        }

        /** A {@code #} line; true when it is the OpenMetrics end marker. */
        private boolean comment() {
            pos++;
            skipBlanks();
            int wordAt = pos;
            while (pos < line.length() && !isBlank(line.charAt(pos))) {
                pos++;
            }
            String word = line.substring(wordAt, pos);
            if (word.equals("EOF") && line.substring(pos).isBlank()) {
                return true;
            }
            if (!(word.equals("HELP") || word.equals("TYPE"))) {
                return false; // an ordinary comment
            }
            skipBlanks();
            int nameAt = pos;
            String name = metricName();
            if (word.equals("HELP")) {
                if (pos < line.length() && !isBlank(line.charAt(pos))) {
                    throw new Bad(pos, "unexpected '" + line.charAt(pos) + "' in the metric name of HELP");
                }
                skipOneBlank();
                String doc = unescapeHelp(line.substring(pos));
                if (help.putIfAbsent(name, doc) != null) {
                    throw new Bad(nameAt, "HELP for '" + name + "' is given twice");
                }
                return false;
            }
            requireBlank("a type after the metric name");
            skipBlanks();
            int typeAt = pos;
            while (pos < line.length() && !isBlank(line.charAt(pos))) {
                pos++;
            }
            String type = line.substring(typeAt, pos);
            if (!TYPES.contains(type)) {
                throw new Bad(typeAt, "unknown metric type '" + type
                        + "'; known types: counter, gauge, histogram, summary, untyped");
            }
            skipBlanks();
            if (pos < line.length()) {
                throw new Bad(pos, "unexpected text after the type");
            }
            if (types.containsKey(name)) {
                throw new Bad(nameAt, "TYPE for '" + name + "' is given twice");
            }
            for (String member : members(name, type)) {
                if (sampleNames.contains(member)) {
                    throw new Bad(nameAt, "TYPE for '" + name + "' comes after its samples; it must come first");
                }
            }
            types.put(name, type);
            return false;
        }

        private static List<String> members(String name, String type) {
            return switch (type) {
                case "histogram", "gaugehistogram" -> List.of(name + "_bucket", name + "_sum", name + "_count",
                        name + "_created");
                case "summary" -> List.of(name, name + "_sum", name + "_count", name + "_created");
                case "counter" -> List.of(name, name + "_total", name + "_created");
                default -> List.of(name);
            };
        }

        private void sample() {
            int nameAt = pos;
            String name = metricName();
            Map<String, LabelAt> labels = new LinkedHashMap<>();
            int labelsAt = pos;
            boolean braces = pos < line.length() && line.charAt(pos) == '{';
            if (braces) {
                labels(labels);
            }
            requireBlank("a value after " + (braces ? "the labels" : "the metric name"));
            skipBlanks();
            int valueAt = pos;
            String valueText = token();
            double value = number(valueText, valueAt);
            Long timestamp = null;
            if (pos < line.length()) {
                skipBlanks();
                if (pos < line.length()) {
                    int tsAt = pos;
                    String ts = token();
                    timestamp = timestamp(ts, tsAt);
                    skipBlanks();
                    if (pos < line.length()) {
                        throw new Bad(pos, "unexpected text after the timestamp");
                    }
                }
            }
            checkFamily(name, labels, labelsAt);
            Map<String, String> plain = new LinkedHashMap<>();
            labels.forEach((k, v) -> plain.put(k, v.value()));
            if (!series.computeIfAbsent(name, k -> new HashSet<>()).add(plain)) {
                throw new Bad(nameAt, "series " + written(name, plain) + " is given twice; the first is kept");
            }
            sampleNames.add(name);
            samples.add(new ExpositionSample(name, plain, value, timestamp));
        }

        private static String written(String name, Map<String, String> labels) {
            StringBuilder sb = new StringBuilder(name).append('{');
            labels.forEach((k, v) -> sb.append(sb.charAt(sb.length() - 1) == '{' ? "" : ",").append(k).append("=\"")
                    .append(v).append('"'));
            return sb.append('}').toString();
        }

        /** Histogram buckets need a numeric {@code le}, summary quantiles a numeric {@code quantile}. */
        private void checkFamily(String name, Map<String, LabelAt> labels, int labelsAt) {
            if (name.endsWith("_bucket")) {
                String type = types.get(name.substring(0, name.length() - "_bucket".length()));
                if ("histogram".equals(type) || "gaugehistogram".equals(type)) {
                    boundLabel(labels, "le", "a histogram bucket", labelsAt);
                }
            } else if ("summary".equals(types.get(name))) {
                boundLabel(labels, "quantile", "a summary quantile", labelsAt);
            }
        }

        private void boundLabel(Map<String, LabelAt> labels, String label, String what, int labelsAt) {
            LabelAt at = labels.get(label);
            if (at == null) {
                throw new Bad(labelsAt, what + " needs the '" + label + "' label");
            }
            String v = at.value();
            if (!(NUMBER.matcher(v).matches() || special(v) != null)) {
                throw new Bad(at.column(), "'" + label + "' must be a number, got \"" + v + "\"");
            }
        }

        private void labels(Map<String, LabelAt> labels) {
            pos++; // {
            while (true) {
                skipBlanks();
                if (pos == line.length()) {
                    throw new Bad(pos, "labels are not closed with '}'");
                }
                if (line.charAt(pos) == '}') {
                    pos++;
                    return;
                }
                int nameAt = pos;
                String name = labelName();
                skipBlanks();
                expect('=', "'=' after the label name '" + name + "'");
                skipBlanks();
                int valueAt = pos;
                String value = labelValue();
                if (labels.containsKey(name)) {
                    throw new Bad(nameAt, "label '" + name + "' is given twice");
                }
                labels.put(name, new LabelAt(value, valueAt));
                skipBlanks();
                if (pos < line.length() && line.charAt(pos) == ',') {
                    pos++;
                } else if (pos < line.length() && line.charAt(pos) != '}') {
                    throw new Bad(pos, "expected ',' or '}' after the value of label '" + name + "'");
                }
            }
        }

        private String labelValue() {
            expect('"', "a quoted label value");
            StringBuilder sb = new StringBuilder();
            while (pos < line.length()) {
                char c = line.charAt(pos);
                if (c == '"') {
                    pos++;
                    return sb.toString();
                }
                if (c == '\\') {
                    if (pos + 1 == line.length()) {
                        break;
                    }
                    char e = line.charAt(pos + 1);
                    switch (e) {
                        case '\\' -> sb.append('\\');
                        case '"' -> sb.append('"');
                        case 'n' -> sb.append('\n');
                        default -> throw new Bad(pos, "unknown escape '\\" + e
                                + "' in a label value; only \\\\, \\\" and \\n are allowed");
                    }
                    pos += 2;
                } else {
                    sb.append(c);
                    pos++;
                }
            }
            throw new Bad(pos, "the label value is not closed with '\"'");
        }

        private String metricName() {
            int start = pos;
            if (pos < line.length() && isNameStart(line.charAt(pos), true)) {
                pos++;
                while (pos < line.length() && isNamePart(line.charAt(pos), true)) {
                    pos++;
                }
            }
            if (pos == start) {
                throw new Bad(pos, pos == line.length() ? "expected a metric name" : "expected a metric name, got '"
                        + line.charAt(pos) + "'");
            }
            return line.substring(start, pos);
        }

        private String labelName() {
            int start = pos;
            if (isNameStart(line.charAt(pos), false)) {
                pos++;
                while (pos < line.length() && isNamePart(line.charAt(pos), false)) {
                    pos++;
                }
            }
            if (pos == start) {
                throw new Bad(pos, "expected a label name, got '" + line.charAt(pos) + "'");
            }
            return line.substring(start, pos);
        }

        private static boolean isNameStart(char c, boolean colon) {
            return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || colon && c == ':';
        }

        private static boolean isNamePart(char c, boolean colon) {
            return isNameStart(c, colon) || c >= '0' && c <= '9';
        }

        private double number(String text, int at) {
            Double special = special(text);
            if (special != null) {
                return special;
            }
            if (!NUMBER.matcher(text).matches()) {
                throw new Bad(at, "'" + text + "' is not a number");
            }
            return Double.parseDouble(text);
        }

        /** NaN and the infinities, spelled as Go's ParseFloat takes them, or null. */
        private static Double special(String text) {
            String t = text.toLowerCase();
            boolean negative = t.startsWith("-");
            if (negative || t.startsWith("+")) {
                t = t.substring(1);
            }
            if (t.equals("inf") || t.equals("infinity")) {
                return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
            }
            return t.equals("nan") ? Double.NaN : null;
        }

        private Long timestamp(String text, int at) {
            if (TIMESTAMP.matcher(text).matches()) {
                try {
                    return Long.parseLong(text);
                } catch (NumberFormatException e) {
                    // falls through to the error below: out of the 64-bit range
                }
            }
            throw new Bad(at, "'" + text + "' is not a timestamp (whole milliseconds since the epoch)");
        }

        private String token() {
            int start = pos;
            while (pos < line.length() && !isBlank(line.charAt(pos))) {
                pos++;
            }
            return line.substring(start, pos);
        }

        private static String unescapeHelp(String text) {
            StringBuilder sb = new StringBuilder(text.length());
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == '\\' && i + 1 < text.length() && (text.charAt(i + 1) == '\\' || text.charAt(i + 1) == 'n')) {
                    sb.append(text.charAt(++i) == 'n' ? '\n' : '\\');
                } else {
                    sb.append(c);
                }
            }
            return sb.toString();
        }

        private void expect(char c, String what) {
            if (pos == line.length() || line.charAt(pos) != c) {
                throw new Bad(pos, "expected " + what + (pos == line.length() ? ", got the end of the line"
                        : ", got '" + line.charAt(pos) + "'"));
            }
            pos++;
        }

        private void requireBlank(String what) {
            if (pos == line.length()) {
                throw new Bad(pos, "expected " + what + ", got the end of the line");
            }
            if (!isBlank(line.charAt(pos))) {
                throw new Bad(pos, "unexpected '" + line.charAt(pos) + "'; expected a space and then " + what);
            }
        }

        private void skipBlanks() {
            while (pos < line.length() && isBlank(line.charAt(pos))) {
                pos++;
            }
        }

        private void skipOneBlank() {
            if (pos < line.length() && isBlank(line.charAt(pos))) {
                pos++;
            }
        }

        private static boolean isBlank(char c) {
            return c == ' ' || c == '\t';
        }

        private void error(int column, String message) {
            errors.add(new ExpositionError(lineNo, column + 1, message));
        }
    }

    /** A broken line, at a 0-based column; caught per line. */
    private static final class Bad extends RuntimeException {
        final int column;

        Bad(int column, String message) {
            super(message, null, false, false);
            this.column = column;
        }
    }
}
