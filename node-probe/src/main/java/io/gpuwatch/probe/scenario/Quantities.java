package io.gpuwatch.probe.scenario;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the durations ({@code 1m30s}) and sizes ({@code 2GiB}) of scenario files; null means malformed. */
final class Quantities {
    private static final Pattern DURATION = Pattern.compile("(?:\\d+(?:\\.\\d+)?(?:ms|h|m|s))+");
    private static final Pattern DURATION_PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|h|m|s)");
    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)");

    private Quantities() {
    }

    static Duration duration(String text) {
        if (!DURATION.matcher(text).matches()) {
            return null;
        }
        Matcher m = DURATION_PART.matcher(text);
        double ms = 0;
        while (m.find()) {
            double n = Double.parseDouble(m.group(1));
            ms += switch (m.group(2)) {
                case "ms" -> n;
                case "s" -> n * 1_000;
                case "m" -> n * 60_000;
                default -> n * 3_600_000;
            };
        }
        return Duration.ofMillis(Math.round(ms));
    }

    static Long bytes(String text) {
        Matcher m = SIZE.matcher(text);
        if (!m.matches()) {
            return null;
        }
        double unit = switch (m.group(2)) {
            case "B" -> 1;
            case "KB" -> 1e3;
            case "MB" -> 1e6;
            case "GB" -> 1e9;
            case "TB" -> 1e12;
            case "KiB" -> 1L << 10;
            case "MiB" -> 1L << 20;
            case "GiB" -> 1L << 30;
            default -> 1L << 40;
        };
        return Math.round(Double.parseDouble(m.group(1)) * unit);
    }

    /** Formats a duration the way scenario files write it, for messages. */
    static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 1000 != 0) {
            return ms + "ms";
        }
        long s = ms / 1000;
        StringBuilder b = new StringBuilder();
        if (s >= 3600) {
            b.append(s / 3600).append('h');
            s %= 3600;
        }
        if (s >= 60) {
            b.append(s / 60).append('m');
            s %= 60;
        }
        if (s > 0 || b.length() == 0) {
            b.append(s).append('s');
        }
        return b.toString();
    }
}
