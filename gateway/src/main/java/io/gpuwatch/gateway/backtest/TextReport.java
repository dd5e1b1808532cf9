package io.gpuwatch.gateway.backtest;

import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** The backtest's text form: each alert with when, for how long and how loudly, then a table per rule. */
public final class TextReport {
    private TextReport() {
    }

    /** The whole report, lines ending in {@code \n}. */
    public static String render(Backtest.Result r) {
        StringBuilder out = new StringBuilder();
        Map<String, int[]> perRule = new TreeMap<>();
        int notifications = 0;
        for (Episode e : r.alerts()) {
            out.append(Instant.ofEpochMilli(e.from())).append("  ").append(pad(e.severity(), 7)).append(' ')
                    .append(e.rule()).append("  ").append(labels(e.labels())).append('\n');
            out.append("    ");
            if (e.stillFiring()) {
                out.append("still firing at the end of the trace, after ").append(duration(e.durationMs()));
            } else {
                out.append("fired for ").append(duration(e.durationMs())).append(", resolved ")
                        .append(Instant.ofEpochMilli(e.to()));
            }
            out.append("; ").append(plural(e.notifications(), "notification")).append('\n');
            out.append("    ").append(e.summary()).append('\n');
            int[] counts = perRule.computeIfAbsent(e.rule(), k -> new int[2]);
            counts[0]++;
            counts[1] += e.notifications();
            notifications += e.notifications();
        }
        if (!perRule.isEmpty()) {
            int width = Math.max(4, perRule.keySet().stream().mapToInt(String::length).max().orElse(0));
            out.append('\n').append(pad("rule", width)).append("  alerts  notifications\n");
            perRule.forEach((rule, c) -> out.append(pad(rule, width))
                    .append(String.format(Locale.ROOT, "  %6d  %13d\n", c[0], c[1])));
        }
        out.append(plural(r.alerts().size(), "alert")).append(", ").append(plural(notifications, "notification"))
                .append(" over ").append(duration(r.stats().spanMs())).append(" of trace (")
                .append(plural(r.stats().frames(), "frame")).append(", ")
                .append(plural(r.stats().cardReadings(), "card reading")).append(", ")
                .append(plural(r.stats().events(), "event")).append(")\n");
        return out.toString();
    }

    /** {@code 1h 2m 3s}, {@code 4.5s}, {@code 0s}; zero parts left out. */
    public static String duration(long ms) {
        if (ms <= 0) {
            return "0s";
        }
        long h = ms / 3_600_000;
        long m = ms / 60_000 % 60;
        long s = ms / 1000 % 60;
        long rest = ms % 1000;
        StringBuilder b = new StringBuilder();
        if (h > 0) {
            b.append(h).append("h ");
        }
        if (m > 0) {
            b.append(m).append("m ");
        }
        if (s > 0 || rest > 0) {
            b.append(s);
            if (rest > 0) {
                b.append('.').append(String.format(Locale.ROOT, "%03d", rest).replaceAll("0+$", ""));
            }
            b.append('s');
        }
        return b.toString().strip();
    }

    private static String labels(Map<String, String> labels) {
        return labels.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
    }

    private static String plural(long n, String word) {
        return String.format(Locale.ROOT, "%,d %s%s", n, word, n == 1 ? "" : "s");
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }
}
