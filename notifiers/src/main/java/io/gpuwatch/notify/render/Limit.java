package io.gpuwatch.notify.render;

import java.nio.charset.StandardCharsets;

/**
 * A target's size limit and the unit it counts in: Slack and Teams count characters (code points here, so a
 * cut never splits an emoji), WeCom counts UTF-8 bytes. {@link #cut} shortens text to fit, ending in an ellipsis.
 */
public record Limit(int max, Unit unit) {
    /** How a limit measures text. */
    public enum Unit { CHARS, UTF8_BYTES }

    public Limit {
        if (max < 1) {
            throw new IllegalArgumentException("a limit must be at least 1, got " + max);
        }
        if (unit == null) {
            throw new IllegalArgumentException("a limit needs a unit");
        }
    }

    /** At most {@code max} characters (Unicode code points). */
    public static Limit chars(int max) {
        return new Limit(max, Unit.CHARS);
    }

    /** At most {@code max} bytes once encoded as UTF-8. */
    public static Limit utf8Bytes(int max) {
        return new Limit(max, Unit.UTF8_BYTES);
    }

    /** The size of the text in this limit's unit. */
    public int size(String text) {
        return switch (unit) {
            case CHARS -> text.codePointCount(0, text.length());
            case UTF8_BYTES -> utf8Length(text);
        };
    }

    /** True when the text is within the limit. */
    public boolean fits(String text) {
        return size(text) <= max;
    }

    /** This limit less {@code used} units, or null when nothing is left. */
    public Limit less(int used) {
        return used >= max ? null : new Limit(max - used, unit);
    }

    /** The text itself when it fits, else its longest prefix that fits together with a trailing ellipsis. */
    public String cut(String text) {
        return Text.literal(text).cut(this, Markup.PLAIN);
    }

    /** One line: control characters (line breaks included) become spaces, runs of blanks collapse, then cut. */
    public String line(String text) {
        return Text.literal(text).line().cut(this, Markup.PLAIN);
    }

    private static int utf8Length(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}
