package io.gpuwatch.rules.dsl;

import io.gpuwatch.rules.dsl.Token.Kind;

/**
 * Splits an expression into tokens on demand, so errors surface in source order. Everything outside the
 * allow-list (statement separators, blocks, assignment, comments, bitwise operators, non-ASCII) is an error
 * at the offending character.
 */
final class Lexer {
    private final String src;
    private int pos;

    Lexer(String src) {
        this.src = src;
    }

    Token next() throws DslException {
        skipSpace();
        if (pos >= src.length()) {
            return new Token(Kind.EOF, "", pos, 0, Unit.NONE);
        }
        int start = pos;
        char c = src.charAt(pos);
        if (c >= '0' && c <= '9') {
            return number();
        }
        if (Character.isLetter(c) && c < 128 || c == '_') {
            while (pos < src.length() && isIdentPart(src.charAt(pos))) {
                pos++;
            }
            return new Token(Kind.IDENT, src.substring(start, pos), start, 0, Unit.NONE);
        }
        if (c == '\'' || c == '"') {
            return string(c);
        }
        pos++;
        switch (c) {
            case '(':
                return simple(Kind.LPAREN, "(", start);
            case ')':
                return simple(Kind.RPAREN, ")", start);
            case '[':
                return simple(Kind.LBRACKET, "[", start);
            case ']':
                return simple(Kind.RBRACKET, "]", start);
            case ',':
                return simple(Kind.COMMA, ",", start);
            case '.':
                return simple(Kind.DOT, ".", start);
            case '+':
            case '-':
            case '*':
            case '%':
                return simple(Kind.OP, String.valueOf(c), start);
            case '/':
                if (peekIs('/') || peekIs('*')) {
                    throw new DslException(start, "comments are not allowed in expressions");
                }
                return simple(Kind.OP, "/", start);
            case '<':
            case '>':
                return simple(Kind.OP, peekIs('=') ? c + "=" : String.valueOf(c), start);
            case '!':
                return simple(Kind.OP, peekIs('=') ? "!=" : "!", start);
            case '=':
                if (peekIs('=')) {
                    return simple(Kind.OP, "==", start);
                }
                throw new DslException(start, "`=` assigns, which rule expressions cannot do; compare with `==`");
            case '&':
                if (peekIs('&')) {
                    return simple(Kind.OP, "&&", start);
                }
                throw new DslException(start, "`&` is not an operator here; use `&&` for and");
            case '|':
                if (peekIs('|')) {
                    return simple(Kind.OP, "||", start);
                }
                throw new DslException(start, "`|` is not an operator here; use `||` for or");
            case ';':
                throw new DslException(start, "`;` is not allowed: a rule expression is one condition, not statements");
            case '{':
            case '}':
                throw new DslException(start, "`" + c + "` is not allowed: rule expressions have no blocks");
            case '@':
                throw new DslException(start,
                        "`@` is not allowed in expressions (`@{…}` belongs in summary and description)");
            default:
                throw new DslException(start, unexpected(c));
        }
    }

    private Token simple(Kind kind, String text, int start) {
        pos = start + text.length();
        return new Token(kind, text, start, 0, Unit.NONE);
    }

    private boolean peekIs(char c) {
        return pos < src.length() && src.charAt(pos) == c;
    }

    private void skipSpace() {
        while (pos < src.length()) {
            char c = src.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private static boolean isIdentPart(char c) {
        return c < 128 && (Character.isLetterOrDigit(c) || c == '_');
    }

    private static String unexpected(char c) {
        if (c > 127) {
            return "non-ASCII character `" + c + "` is only allowed inside strings";
        }
        if (c < 32 || c == 127) {
            return String.format("control character U+%04X is not allowed", (int) c);
        }
        return "unexpected character `" + c + "`";
    }

    private Token number() throws DslException {
        int start = pos;
        while (pos < src.length() && Character.isDigit(src.charAt(pos))) {
            pos++;
        }
        if (pos + 1 < src.length() && src.charAt(pos) == '.' && Character.isDigit(src.charAt(pos + 1))) {
            pos++;
            while (pos < src.length() && Character.isDigit(src.charAt(pos))) {
                pos++;
            }
        }
        String digits = src.substring(start, pos);
        int unitStart = pos;
        while (pos < src.length() && isIdentPart(src.charAt(pos))) {
            pos++;
        }
        String suffix = src.substring(unitStart, pos);
        if (!suffix.chars().allMatch(Character::isLetter)) {
            throw new DslException(start, "malformed number `" + src.substring(start, pos)
                    + "` (one unit per literal, e.g. 90m or 512MiB)");
        }
        double value = Double.parseDouble(digits);
        if (!Double.isFinite(value)) {
            throw new DslException(start, "number `" + digits + "` is too large");
        }
        String text = src.substring(start, pos);
        if (suffix.isEmpty()) {
            return new Token(Kind.NUMBER, text, start, value, Unit.NONE);
        }
        Double ms = Unit.durationFactor(suffix);
        if (ms != null) {
            double total = value * ms;
            if (total != Math.rint(total)) {
                throw new DslException(start, "duration `" + text + "` is not a whole number of milliseconds");
            }
            return new Token(Kind.NUMBER, text, start, total, Unit.DURATION);
        }
        Double bytes = Unit.sizeFactor(suffix);
        if (bytes != null) {
            return new Token(Kind.NUMBER, text, start, value * bytes, Unit.SIZE);
        }
        throw new DslException(unitStart, "unknown unit `" + suffix + "` (durations: " + Unit.DURATIONS
                + "; sizes: " + Unit.SIZES + ")");
    }

    private Token string(char quote) throws DslException {
        int start = pos;
        pos++;
        while (pos < src.length()) {
            char c = src.charAt(pos);
            if (c == quote) {
                pos++;
                return new Token(Kind.STRING, src.substring(start + 1, pos - 1), start, 0, Unit.NONE);
            }
            if (c == '\\') {
                throw new DslException(pos, "backslash escapes are not supported in strings");
            }
            if (c == '\n' || c == '\r') {
                break;
            }
            if (c < 32 || c == 127) {
                throw new DslException(pos, String.format("control character U+%04X is not allowed", (int) c));
            }
            pos++;
        }
        throw new DslException(start, "unterminated string");
    }
}
