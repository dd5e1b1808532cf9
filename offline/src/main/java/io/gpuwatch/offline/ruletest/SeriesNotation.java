package io.gpuwatch.offline.ruletest;

import io.gpuwatch.protocol.ClockEventReason;

import java.util.Arrays;
import java.util.BitSet;
import java.util.stream.Collectors;

/**
 * promtool's expanding notation for input series, one value per sample interval, tokens separated by blanks:
 * {@code 7} one value; {@code 0+10x100} start, step and count, giving count+1 values 0, 10, … 1000;
 * {@code 100-5x10} a negative step; {@code 1x5} six 1s; {@code _} no sample, {@code _x3} three of them;
 * {@code stale} the card reports but without readings. Numbers may carry a size unit ({@code 8GiB+2MiBx60}).
 * Series of {@code clockEventReasons} also take reason names joined by {@code |}, e.g.
 * {@code HW_SLOWDOWN|SW_THERMAL_SLOWDOWNx30}.
 */
final class SeriesNotation {
    /** More values than this in one series is surely a typo (a week at 1 s is 604,800). */
    static final int MAX_VALUES = 1_000_000;

    private static final String UNITS = "B, kB, KB, MB, GB, TB, KiB, MiB, GiB, TiB";

    private final String text;
    private final boolean reasons;
    private int pos;
    private double[] values = new double[16];
    private final BitSet stale = new BitSet();
    private int size;

    /** A series written in the notation, expanded: NaN where there is no sample. */
    record Expanded(double[] values, BitSet stale) {
        Expanded {
            values = values.clone();
            stale = (BitSet) stale.clone();
        }

        int length() {
            return values.length;
        }

        boolean isStale(int i) {
            return stale.get(i);
        }

        /** The value at step i, NaN when there is none (no sample, stale, or past the end). */
        double at(int i) {
            return i < values.length ? values[i] : Double.NaN;
        }
    }

    /** A part of the text that is not the notation; {@code offset} is the character it starts at. */
    static final class NotationException extends Exception {
        private static final long serialVersionUID = 1L;
        private final int offset;

        NotationException(int offset, String message) {
            super(message);
            this.offset = offset;
        }

        int offset() {
            return offset;
        }
    }

    private SeriesNotation(String text, boolean reasons) {
        this.text = text;
        this.reasons = reasons;
    }

    /** Expands {@code text}; {@code reasons} allows clock-event reason names as values. */
    /** One size, such as {@code 320GiB} or {@code 4e9}: NaN when it is not exactly one number. */
    static double size(String text) {
        try {
            Expanded e = parse(text, false);
            return e.values().length == 1 && !e.stale().get(0) ? e.values()[0] : Double.NaN;
        } catch (NotationException e) {
            return Double.NaN;
        }
    }

    static Expanded parse(String text, boolean reasons) throws NotationException {
        return new SeriesNotation(text, reasons).run();
    }

    private Expanded run() throws NotationException {
        skipBlanks();
        if (pos >= text.length()) {
            throw new NotationException(0, "no values; write e.g. `0+10x100` or `80 80 95 _ 97`");
        }
        while (pos < text.length()) {
            token();
            if (pos < text.length() && !blank(text.charAt(pos))) {
                throw new NotationException(pos, "unexpected `" + rest() + "`; separate values with blanks");
            }
            skipBlanks();
        }
        return new Expanded(Arrays.copyOf(values, size), stale);
    }

    private void token() throws NotationException {
        int start = pos;
        if (text.startsWith("_", pos)) {
            pos++;
            long n = 1;
            if (at('x')) {
                pos++;
                n = count();
            }
            add(start, Double.NaN, 0, n, false);
            return;
        }
        if (word("stale")) {
            add(start, Double.NaN, 0, 1, true);
            return;
        }
        if (pos < text.length() && isReasonChar(text.charAt(pos))) {
            double mask = reasonMask();
            long n = 1;
            if (at('x')) {
                pos++;
                n = count() + 1;
            }
            add(start, mask, 0, n, false);
            return;
        }
        double first = number("a value");
        if (at('+') || at('-')) {
            double sign = text.charAt(pos) == '-' ? -1 : 1;
            pos++;
            int stepAt = pos;
            double step = sign * number("a step after `" + text.substring(start, stepAt) + "`");
            if (!at('x')) {
                throw new NotationException(stepAt, "a step needs a count: write e.g. `"
                        + text.substring(start, pos) + "x10`");
            }
            pos++;
            add(start, first, step, count() + 1, false);
        } else if (at('x')) {
            pos++;
            add(start, first, 0, count() + 1, false);
        } else {
            add(start, first, 0, 1, false);
        }
    }

    private double number(String what) throws NotationException {
        int start = pos;
        if (at('-')) {
            pos++;
        }
        int digits = pos;
        while (pos < text.length() && (Character.isDigit(text.charAt(pos)) || text.charAt(pos) == '.')) {
            pos++;
        }
        if (pos == digits || pos == digits + 1 && text.charAt(digits) == '.') {
            pos = start;
            throw new NotationException(start, "expected " + what + " (a number, `_` or `stale`), found "
                    + (start >= text.length() ? "the end" : "`" + rest() + "`"));
        }
        if (pos < text.length() && (text.charAt(pos) == 'e' || text.charAt(pos) == 'E')) {
            int e = pos + 1;
            if (e < text.length() && (text.charAt(e) == '+' || text.charAt(e) == '-')) {
                e++;
            }
            if (e < text.length() && Character.isDigit(text.charAt(e))) {
                pos = e;
                while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
                    pos++;
                }
            }
        }
        double v;
        try {
            v = Double.parseDouble(text.substring(start, pos));
        } catch (NumberFormatException ex) {
            throw new NotationException(start, "`" + text.substring(start, pos) + "` is not a number");
        }
        return v * unit();
    }

    /** The multiplier of a size unit right after a number, 1 when there is none. */
    private double unit() throws NotationException {
        int start = pos;
        while (pos < text.length() && Character.isLetter(text.charAt(pos)) && text.charAt(pos) != 'x') {
            pos++;
        }
        String u = text.substring(start, pos);
        return switch (u) {
            case "" -> 1;
            case "B" -> 1;
            case "kB", "KB" -> 1e3;
            case "MB" -> 1e6;
            case "GB" -> 1e9;
            case "TB" -> 1e12;
            case "KiB" -> 1024.0;
            case "MiB" -> 1024.0 * 1024;
            case "GiB" -> 1024.0 * 1024 * 1024;
            case "TiB" -> 1024.0 * 1024 * 1024 * 1024;
            default -> throw new NotationException(start, "unknown unit `" + u + "` (" + UNITS + ")");
        };
    }

    private long count() throws NotationException {
        int start = pos;
        while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
            pos++;
        }
        if (pos == start) {
            throw new NotationException(start, "`x` needs a whole count after it, e.g. `1x5`");
        }
        try {
            return Long.parseLong(text.substring(start, pos));
        } catch (NumberFormatException e) {
            throw new NotationException(start, "count `" + text.substring(start, pos) + "` is too large");
        }
    }

    private double reasonMask() throws NotationException {
        long mask = 0;
        while (true) {
            int start = pos;
            while (pos < text.length() && isReasonChar(text.charAt(pos))) {
                pos++;
            }
            String name = text.substring(start, pos);
            ClockEventReason r = ClockEventReason.byName(name);
            if (!reasons) {
                throw new NotationException(start, "reason names such as `" + name
                        + "` are values of clockEventReasons only; this series takes numbers");
            }
            if (r == null) {
                throw new NotationException(start, "unknown clock-event reason `" + name + "` ("
                        + Arrays.stream(ClockEventReason.values()).map(Enum::name).collect(Collectors.joining(", "))
                        + ")");
            }
            mask |= r.bit();
            if (!at('|')) {
                return mask;
            }
            pos++;
        }
    }

    private void add(int at, double first, double step, long n, boolean isStale) throws NotationException {
        if (n > MAX_VALUES - size) {
            throw new NotationException(at, "`" + text.substring(at, pos) + "` makes the series longer than "
                    + MAX_VALUES + " values");
        }
        int count = (int) n;
        if (size + count > values.length) {
            values = Arrays.copyOf(values, Math.max(size + count, values.length * 2));
        }
        for (int k = 0; k < count; k++) {
            // start + k*step rather than a running sum, so long series do not drift
            values[size + k] = first + k * step;
        }
        if (isStale) {
            stale.set(size, size + count);
        }
        size += count;
    }

    private boolean word(String w) {
        if (text.startsWith(w, pos) && (pos + w.length() == text.length() || blank(text.charAt(pos + w.length())))) {
            pos += w.length();
            return true;
        }
        return false;
    }

    private boolean at(char c) {
        return pos < text.length() && text.charAt(pos) == c;
    }

    private static boolean isReasonChar(char c) {
        return c >= 'A' && c <= 'Z' || c == '_';
    }

    private String rest() {
        int end = pos;
        while (end < text.length() && !blank(text.charAt(end))) {
            end++;
        }
        return text.substring(pos, end);
    }

    private void skipBlanks() {
        while (pos < text.length() && blank(text.charAt(pos))) {
            pos++;
        }
    }

    private static boolean blank(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }
}
