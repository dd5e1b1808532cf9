package io.gpuwatch.notify.render;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;

/**
 * Rendered text before escaping: the characters, and which of them came from slot values (and so are escaped
 * for the target) rather than from the template's own markup. Keeping the two apart until the end lets a cut
 * fall between characters first and the escaping follow, so an escape such as {@code &amp;} is never split.
 */
public final class Text {
    static final String ELLIPSIS = "…";

    private final String chars;
    private final BitSet escaped;

    private Text(String chars, BitSet escaped) {
        this.chars = chars;
        this.escaped = escaped;
    }

    /** Text that is gpuwatch's own: shown as it is. */
    public static Text literal(String s) {
        return new Text(Objects.requireNonNull(s, "text"), new BitSet());
    }

    /** Text whose every character is escaped for the target. */
    public static Text value(String s) {
        BitSet b = new BitSet();
        b.set(0, s.length());
        return new Text(s, b);
    }

    /** Assembles a text from literal and value pieces. */
    public static final class Builder {
        private final StringBuilder sb = new StringBuilder();
        private final BitSet escaped = new BitSet();

        /** Appends gpuwatch's own markup. */
        public Builder literal(String s) {
            sb.append(s);
            return this;
        }

        /** Appends a slot value, to be escaped. */
        public Builder value(String s) {
            escaped.set(sb.length(), sb.length() + s.length());
            sb.append(s);
            return this;
        }

        /** The text assembled so far. */
        public Text build() {
            return new Text(sb.toString(), (BitSet) escaped.clone());
        }
    }

    /** The characters, unescaped. */
    public String raw() {
        return chars;
    }

    /** True when the text is empty or only white space. */
    public boolean isBlank() {
        return chars.isBlank();
    }

    /** The text as sent in {@code markup}: slot values escaped, literals as they are. */
    public String in(Markup markup) {
        StringBuilder sb = new StringBuilder(chars.length());
        for (int i = 0; i < chars.length(); ) {
            int cp = chars.codePointAt(i);
            sb.append(escaped.get(i) ? markup.escape(cp) : new String(Character.toChars(cp)));
            i += Character.charCount(cp);
        }
        return sb.toString();
    }

    /** The number of code points. */
    public int codePoints() {
        return chars.codePointCount(0, chars.length());
    }

    /** The first {@code n} code points. */
    public Text prefix(int n) {
        int end = chars.offsetByCodePoints(0, Math.min(n, codePoints()));
        return new Text(chars.substring(0, end), escaped.get(0, end));
    }

    /**
     * The text in {@code markup}, whole when it fits {@code limit}, else its longest prefix whose escaped form fits
     * together with a trailing ellipsis: the cut falls between source characters, never inside an escape or a
     * UTF-8 sequence. Empty when not even the ellipsis fits.
     */
    public String cut(Limit limit, Markup markup) {
        String whole = in(markup);
        if (limit.fits(whole)) {
            return whole;
        }
        int budget = limit.max() - limit.size(ELLIPSIS);
        if (budget < 0) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        int used = 0;
        for (int i = 0; i < chars.length(); ) {
            int cp = chars.codePointAt(i);
            String shown = escaped.get(i) ? markup.escape(cp) : new String(Character.toChars(cp));
            int n = limit.size(shown);
            if (used + n > budget) {
                break;
            }
            sb.append(shown);
            used += n;
            i += Character.charCount(cp);
        }
        return sb + ELLIPSIS;
    }

    /** One line: control characters (line breaks included) become spaces, runs of blanks collapse, ends stripped. */
    public Text line() {
        Builder b = new Builder();
        boolean blank = true;
        for (int i = 0; i < chars.length(); ) {
            int cp = chars.codePointAt(i);
            boolean space = cp == ' ' || Character.isISOControl(cp);
            if (space) {
                if (!blank) {
                    b.literal(" ");
                }
            } else {
                String s = new String(Character.toChars(cp));
                if (escaped.get(i)) {
                    b.value(s);
                } else {
                    b.literal(s);
                }
            }
            blank = space;
            i += Character.charCount(cp);
        }
        Text t = b.build();
        return t.chars.endsWith(" ") ? t.prefix(t.codePoints() - 1) : t;
    }

    /** The text split at line breaks. */
    public List<Text> lines() {
        List<Text> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= chars.length(); i++) {
            if (i == chars.length() || chars.charAt(i) == '\n') {
                out.add(new Text(chars.substring(start, i), escaped.get(start, i)));
                start = i + 1;
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return chars;
    }
}
