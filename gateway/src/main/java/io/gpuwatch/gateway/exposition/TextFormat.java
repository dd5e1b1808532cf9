package io.gpuwatch.gateway.exposition;

import java.util.function.Consumer;

/**
 * Writes Prometheus's text exposition format (version 0.0.4): a family's {@code # HELP} and {@code # TYPE} lines,
 * then its samples, with label values and help texts escaped as the format asks. Labels are rendered once per
 * series set ({@link #labels}) and reused for every family, which is what keeps a scrape of thousands of cards
 * cheap.
 */
public final class TextFormat {
    /** The content type of this format. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    /** Text held before it is handed to the drain, if there is one. */
    static final int CHUNK_CHARS = 64 * 1024;

    private final StringBuilder out;
    private final Consumer<StringBuilder> drain;

    /** Writes into {@code out}, which keeps all of the text. */
    public TextFormat(StringBuilder out) {
        this(out, null);
    }

    /**
     * Writes into {@code out} and hands it to {@code drain} (which then empties it) whenever it holds a chunk, so a
     * large exposition is encoded as it is written rather than held whole.
     */
    TextFormat(StringBuilder out, Consumer<StringBuilder> drain) {
        this.out = out;
        this.drain = drain;
    }

    private void endLine() {
        out.append('\n');
        if (drain != null && out.length() >= CHUNK_CHARS) {
            drain.accept(out);
            out.setLength(0);
        }
    }

    /** Text written as it is: whole lines of an exposition made elsewhere, e.g. on another thread. */
    public TextFormat text(CharSequence text) {
        // in pieces of a chunk, so a drain's buffer sized for one chunk holds it
        for (int from = 0; from < text.length(); from += CHUNK_CHARS) {
            out.append(text, from, Math.min(text.length(), from + CHUNK_CHARS));
            if (drain != null && out.length() >= CHUNK_CHARS) {
                drain.accept(out);
                out.setLength(0);
            }
        }
        return this;
    }

    /** Hands what is left to the drain. */
    void finish() {
        if (drain != null && out.length() > 0) {
            drain.accept(out);
            out.setLength(0);
        }
    }

    /** Starts a family: {@code type} is counter, gauge, summary, histogram or untyped. */
    public TextFormat family(String name, String type, String help) {
        out.append("# HELP ").append(name).append(' ');
        for (int i = 0; i < help.length(); i++) {
            char c = help.charAt(i);
            if (c == '\\') {
                out.append("\\\\");
            } else if (c == '\n') {
                out.append("\\n");
            } else {
                out.append(c);
            }
        }
        out.append('\n').append("# TYPE ").append(name).append(' ').append(type).append('\n');
        return this;
    }

    /** One sample without labels. */
    public TextFormat sample(String name, double value) {
        out.append(name).append(' ');
        number(out, value);
        endLine();
        return this;
    }

    /** One sample with labels rendered by {@link #labels}; an empty string means none. */
    public TextFormat sample(String name, String labels, double value) {
        out.append(name);
        if (!labels.isEmpty()) {
            out.append('{').append(labels).append('}');
        }
        out.append(' ');
        number(out, value);
        endLine();
        return this;
    }

    /**
     * One sample whose labels are {@code first="firstValue"} followed by {@code labels}: a label that varies
     * within a family (an XID code, a receiver) ahead of the set shared with other families.
     */
    public TextFormat sample(String name, String first, String firstValue, String labels, double value) {
        out.append(name).append('{').append(first).append("=\"");
        escape(out, firstValue);
        out.append('"');
        if (!labels.isEmpty()) {
            out.append(',').append(labels);
        }
        out.append("} ");
        number(out, value);
        endLine();
        return this;
    }

    /**
     * Renders label pairs, given as name, value, name, value …, in that order, without the braces; a null or
     * empty value leaves its label out, as Prometheus treats an empty label as an absent one.
     */
    public static String labels(String... pairs) {
        if (pairs.length % 2 != 0) {
            throw new IllegalArgumentException("labels come in name, value pairs; got " + pairs.length + " strings");
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < pairs.length; i += 2) {
            String value = pairs[i + 1];
            if (value == null || value.isEmpty()) {
                continue;
            }
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(pairs[i]).append("=\"");
            escape(b, value);
            b.append('"');
        }
        return b.toString();
    }

    /** A label value as the format quotes it: backslash, double quote and line feed escaped. */
    static void escape(StringBuilder b, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> b.append("\\\\");
                case '"' -> b.append("\\\"");
                case '\n' -> b.append("\\n");
                default -> b.append(c);
            }
        }
    }

    /** A value: whole numbers without a fraction (most readings are), NaN and infinities as Prometheus spells them. */
    static void number(StringBuilder b, double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            b.append((long) v);
        } else if (Double.isNaN(v)) {
            b.append("NaN");
        } else if (Double.isInfinite(v)) {
            b.append(v > 0 ? "+Inf" : "-Inf");
        } else {
            b.append(v);
        }
    }
}
