package io.gpuwatch.rules.dsl;

/** One token of an expression; {@code number} and {@code unit} only for numbers, in canonical units. */
record Token(Kind kind, String text, int start, double number, Unit unit) {
    /** Token classes the parser distinguishes. */
    enum Kind { NUMBER, STRING, IDENT, OP, LPAREN, RPAREN, LBRACKET, RBRACKET, COMMA, DOT, EOF }

    boolean is(Kind k, String t) {
        return kind == k && text.equals(t);
    }

    boolean isOp(String op) {
        return is(Kind.OP, op);
    }

    /** How an error message shows the token. */
    String shown() {
        return kind == Kind.EOF ? "the end of the expression" : "`" + text + "`";
    }
}
