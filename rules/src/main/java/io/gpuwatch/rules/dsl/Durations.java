package io.gpuwatch.rules.dsl;

/** Duration literals outside expressions, such as a rule's {@code for} and {@code keep_firing_for}. */
public final class Durations {
    private Durations() {
    }

    /** Milliseconds of {@code text}: one duration literal ({@code 30s}, {@code 2m}) or a plain {@code 0}. */
    public static long parse(String text) throws DslException {
        Lexer lexer = new Lexer(text);
        Token t = lexer.next();
        if (t.kind() == Token.Kind.EOF) {
            throw new DslException(0, "expected a duration such as 30s or 5m");
        }
        boolean zero = t.kind() == Token.Kind.NUMBER && t.unit() == Unit.NONE && t.number() == 0;
        if (t.kind() != Token.Kind.NUMBER || t.unit() != Unit.DURATION && !zero) {
            throw new DslException(t.start(), t.kind() == Token.Kind.NUMBER && t.unit() == Unit.NONE
                    ? "a duration needs a unit (" + Unit.DURATIONS + "), e.g. " + t.text() + "s"
                    : "expected a duration such as 30s or 5m, found " + t.shown());
        }
        Token rest = lexer.next();
        if (rest.kind() != Token.Kind.EOF) {
            throw new DslException(rest.start(), "expected one duration such as 30s or 5m, found " + rest.shown()
                    + " after it");
        }
        return (long) t.number();
    }
}
