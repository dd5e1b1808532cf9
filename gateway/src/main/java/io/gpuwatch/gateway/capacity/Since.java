package io.gpuwatch.gateway.capacity;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code --since} of a capacity report: how far back it looks, as {@code 90m}, {@code 12h}, {@code 7d},
 * {@code 2w} or a sum of them ({@code 1d12h}); a value that is malformed, zero or longer than the history is kept
 * is an error naming what is expected.
 */
public final class Since {
    private static final Pattern WHOLE = Pattern.compile("(?:\\d{1,6}[mhdw])+");
    private static final Pattern PART = Pattern.compile("(\\d+)([mhdw])");

    private Since() {
    }

    /** The outcome of parsing: the window in milliseconds, or what is wrong with the text. */
    public record Parsed(long millis, String error) {
        public boolean ok() {
            return error == null;
        }
    }

    /** Parses {@code text}, refusing a window longer than {@code retentionMs}. */
    public static Parsed parse(String text, long retentionMs) {
        String t = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        if (t.length() > 40 || !WHOLE.matcher(t).matches()) {
            return new Parsed(0, "expected a duration like 90m, 12h, 7d or 2w, got '" + text + "'");
        }
        Matcher m = PART.matcher(t);
        long ms = 0;
        while (m.find()) {
            long n = Long.parseLong(m.group(1));
            long unit = switch (m.group(2)) {
                case "m" -> 60_000L;
                case "h" -> 3_600_000L;
                case "d" -> 86_400_000L;
                default -> 7 * 86_400_000L;
            };
            ms += n * unit;
        }
        if (ms <= 0) {
            return new Parsed(0, "the window must be longer than 0, got '" + text + "'");
        }
        if (ms > retentionMs) {
            return new Parsed(0, "'" + text + "' reaches further back than the " + (retentionMs / 86_400_000L)
                    + " days of history the gateway keeps (gateway --history-retention)");
        }
        return new Parsed(ms, null);
    }
}
