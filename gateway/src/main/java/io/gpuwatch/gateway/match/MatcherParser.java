package io.gpuwatch.gateway.match;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.PatternSyntaxException;

/**
 * Reads matchers as Alertmanager and amtool write them: {@code severity="page"}, {@code node!=n1},
 * {@code severity=~"page|ticket"}, and lists such as {@code {alertname="x", node=~"n[12]"}}. Values may be
 * double-quoted (with {@code \"}, {@code \\} and {@code \n} escapes) or bare up to the next comma or brace.
 */
public final class MatcherParser {
    private final String src;
    private int pos;

    private MatcherParser(String src) {
        this.src = src;
    }

    /** Exactly one matcher. */
    public static Matcher parse(String text) throws MatcherException {
        MatcherParser p = new MatcherParser(text);
        p.space();
        Matcher m = p.matcher();
        p.space();
        if (p.pos < text.length()) {
            throw new MatcherException(p.pos, "unexpected `" + text.charAt(p.pos) + "` after the matcher "
                    + "(one matcher per entry; a list is written `{a=\"1\", b=\"2\"}`)");
        }
        return m;
    }

    /** Comma-separated matchers, optionally inside braces; an empty list (or {@code {}}) is allowed. */
    public static List<Matcher> parseList(String text) throws MatcherException {
        MatcherParser p = new MatcherParser(text);
        List<Matcher> out = new ArrayList<>();
        p.space();
        boolean braced = p.pos < text.length() && text.charAt(p.pos) == '{';
        if (braced) {
            p.pos++;
        }
        p.space();
        while (p.pos < text.length() && !(braced && text.charAt(p.pos) == '}')) {
            out.add(p.matcher());
            p.space();
            if (p.pos < text.length() && text.charAt(p.pos) == ',') {
                p.pos++;
                p.space();
            } else {
                break;
            }
        }
        if (braced) {
            if (p.pos >= text.length() || text.charAt(p.pos) != '}') {
                throw new MatcherException(p.pos, "expected `,` or the closing `}`");
            }
            p.pos++;
        }
        p.space();
        if (p.pos < text.length()) {
            throw new MatcherException(p.pos, "expected `,` between matchers, found `" + text.charAt(p.pos) + "`");
        }
        return out;
    }

    private Matcher matcher() throws MatcherException {
        int nameStart = pos;
        if (pos >= src.length() || !isNameStart(src.charAt(pos))) {
            throw new MatcherException(pos, pos >= src.length() ? "expected a label name"
                    : "expected a label name, found `" + src.charAt(pos) + "`");
        }
        while (pos < src.length() && isNamePart(src.charAt(pos))) {
            pos++;
        }
        String name = src.substring(nameStart, pos);
        space();
        int opStart = pos;
        Matcher.Op op = op();
        if (op == null) {
            throw new MatcherException(opStart, "expected an operator (=, !=, =~, !~) after `" + name + "`");
        }
        space();
        int valueStart = pos;
        String value = value();
        try {
            return Matcher.of(name, op, value);
        } catch (PatternSyntaxException e) {
            int inValue = Math.max(0, e.getIndex() - 3);
            int at = valueStart + (valueStart < src.length() && src.charAt(valueStart) == '"' ? 1 : 0)
                    + Math.min(inValue, value.length());
            throw new MatcherException(at, "bad regular expression for `" + name + "`: " + e.getDescription());
        }
    }

    private Matcher.Op op() {
        if (src.startsWith("=~", pos)) {
            pos += 2;
            return Matcher.Op.REGEX;
        }
        if (src.startsWith("!~", pos)) {
            pos += 2;
            return Matcher.Op.NOT_REGEX;
        }
        if (src.startsWith("!=", pos)) {
            pos += 2;
            return Matcher.Op.NOT_EQUAL;
        }
        if (src.startsWith("=", pos)) {
            pos += 1;
            return Matcher.Op.EQUAL;
        }
        return null;
    }

    private String value() throws MatcherException {
        if (pos < src.length() && src.charAt(pos) == '"') {
            int open = pos++;
            StringBuilder b = new StringBuilder();
            while (pos < src.length()) {
                char c = src.charAt(pos++);
                if (c == '"') {
                    return b.toString();
                }
                if (c == '\\') {
                    if (pos >= src.length()) {
                        break;
                    }
                    char e = src.charAt(pos++);
                    switch (e) {
                        case '"', '\\' -> b.append(e);
                        case 'n' -> b.append('\n');
                        default -> throw new MatcherException(pos - 2, "unknown escape `\\" + e
                                + "` (\\\", \\\\ and \\n are allowed; a regex backslash is written \\\\)");
                    }
                } else {
                    b.append(c);
                }
            }
            throw new MatcherException(open, "the quoted value has no closing `\"`");
        }
        int start = pos;
        while (pos < src.length() && src.charAt(pos) != ',' && src.charAt(pos) != '}') {
            if (src.charAt(pos) == '"') {
                throw new MatcherException(pos, "a `\"` inside a bare value: quote the whole value");
            }
            pos++;
        }
        return src.substring(start, pos).strip();
    }

    private void space() {
        while (pos < src.length() && Character.isWhitespace(src.charAt(pos))) {
            pos++;
        }
    }

    private static boolean isNameStart(char c) {
        return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z';
    }

    private static boolean isNamePart(char c) {
        return isNameStart(c) || c >= '0' && c <= '9';
    }
}
