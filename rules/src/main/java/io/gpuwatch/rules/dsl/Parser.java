package io.gpuwatch.rules.dsl;

import io.gpuwatch.rules.dsl.Token.Kind;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Recursive-descent parser of the rule language. Precedence, loosest first: {@code ||}, {@code &&},
 * {@code == !=}, {@code < <= > >=}, {@code + -}, {@code * / %}, unary {@code ! -}. Words that would reach Java or
 * MVEL features are rejected where they appear, before anything else is checked.
 */
final class Parser {
    static final int MAX_LENGTH = 4096;
    static final int MAX_DEPTH = 64;

    private static final String STATEMENTS = "a rule expression is one condition, without statements or loops";
    private static final String JAVA = "rule expressions cannot reach Java classes or reflection";
    private static final String MVEL_OPERATOR = "it is an MVEL operator, not part of the rule language";
    private static final String NO_NULL = "missing data reads as NaN, which makes comparisons false";
    private static final Map<String, String> FORBIDDEN = forbidden();
    private static final List<Set<String>> LEVELS = List.of(
            Set.of("||"), Set.of("&&"), Set.of("==", "!="), Set.of("<", "<=", ">", ">="), Set.of("+", "-"),
            Set.of("*", "/", "%"));

    private final Lexer lexer;
    private Token token;
    private int depth;

    private Parser(String src) throws DslException {
        if (src.length() > MAX_LENGTH) {
            throw new DslException(MAX_LENGTH, "expression is longer than " + MAX_LENGTH + " characters");
        }
        lexer = new Lexer(src);
        token = lexer.next();
    }

    static Syntax parse(String src) throws DslException {
        Parser p = new Parser(src);
        if (p.token.kind() == Kind.EOF) {
            throw new DslException(0, "empty expression");
        }
        Syntax s = p.expression();
        if (p.token.kind() != Kind.EOF) {
            throw p.unexpected("an operator or the end of the expression");
        }
        return s;
    }

    private static Map<String, String> forbidden() {
        Map<String, String> m = new java.util.HashMap<>();
        m.put("new", "rule expressions cannot create objects");
        for (String w : List.of("import", "import_static", "package")) {
            m.put(w, "rule expressions cannot load classes");
        }
        for (String w : List.of("def", "function", "var", "if", "else", "for", "foreach", "while", "do", "until",
                "return", "switch", "case", "with", "assert", "try", "catch", "throw", "break", "continue")) {
            m.put(w, STATEMENTS);
        }
        for (String w : List.of("class", "getClass", "forName", "System", "Runtime", "Thread", "Class",
                "ClassLoader", "Array", "Object", "String", "Math", "MVEL", "java", "javax", "jdk", "sun", "org",
                "com", "super")) {
            m.put(w, JAVA);
        }
        for (String w : List.of("is", "instanceof", "contains", "soundslike", "strsim", "convertable_to", "isdef",
                "in")) {
            m.put(w, MVEL_OPERATOR);
        }
        for (String w : List.of("null", "nil", "empty", "this")) {
            m.put(w, NO_NULL);
        }
        return Map.copyOf(m);
    }

    private Token advance() throws DslException {
        Token t = token;
        token = lexer.next();
        return t;
    }

    private DslException unexpected(String expected) {
        String reason = token.kind() == Kind.IDENT ? FORBIDDEN.get(token.text()) : null;
        if (reason != null) {
            return new DslException(token.start(), "`" + token.text() + "` is not allowed: " + reason);
        }
        return new DslException(token.start(), "expected " + expected + ", found " + token.shown());
    }

    private Syntax expression() throws DslException {
        if (++depth > MAX_DEPTH) {
            throw new DslException(token.start(), "expression is nested more than " + MAX_DEPTH + " levels deep");
        }
        Syntax s = binary(0);
        depth--;
        return s;
    }

    private Syntax binary(int level) throws DslException {
        if (level == LEVELS.size()) {
            return unary();
        }
        Syntax left = binary(level + 1);
        while (token.kind() == Kind.OP && LEVELS.get(level).contains(token.text())) {
            Token op = advance();
            Syntax right = binary(level + 1);
            left = new Syntax.Binary(op.text(), left, right, left.pos(), op.start());
        }
        return left;
    }

    private Syntax unary() throws DslException {
        if (token.isOp("!") || token.isOp("-")) {
            if (++depth > MAX_DEPTH) {
                throw new DslException(token.start(), "expression is nested more than " + MAX_DEPTH + " levels deep");
            }
            Token op = advance();
            Syntax operand = unary();
            depth--;
            return new Syntax.Unary(op.text(), operand, op.start());
        }
        Syntax s = primary();
        if (s instanceof Syntax.Call c && (c.name().equals("baseline") || c.name().equals("peers"))
                && token.kind() == Kind.DOT) {
            s = member(c);
        }
        if (token.kind() == Kind.DOT) {
            throw new DslException(token.start(),
                    "`.` is not allowed here: rule expressions cannot call methods or read fields");
        }
        if (token.kind() == Kind.LBRACKET) {
            throw new DslException(token.start(), "`[` is only allowed as labels['key']");
        }
        if (token.kind() == Kind.LPAREN) {
            throw new DslException(token.start(), "only functions can be called, and this is not a function name");
        }
        return s;
    }

    private Syntax primary() throws DslException {
        Token t = token;
        switch (t.kind()) {
            case NUMBER:
                advance();
                return number(t);
            case STRING:
                advance();
                return new Syntax.Str(t.text(), t.start());
            case LPAREN: {
                advance();
                Syntax inner = expression();
                if (token.kind() != Kind.RPAREN) {
                    throw unexpected("`)`");
                }
                advance();
                return inner;
            }
            case IDENT:
                return identifier();
            default:
                throw unexpected("a value");
        }
    }

    /** A size directly divided by a duration is one rate literal, in bytes per second. */
    private Syntax number(Token t) throws DslException {
        Syntax.Num num = new Syntax.Num(t.number(), t.unit(), t.text(), t.start());
        if (t.unit() != Unit.SIZE || !token.isOp("/")) {
            return num;
        }
        Token slash = advance();
        if (token.kind() == Kind.NUMBER && token.unit() == Unit.DURATION) {
            Token per = advance();
            if (per.number() == 0) {
                throw new DslException(per.start(), "a rate per 0 ms is undefined");
            }
            return new Syntax.Num(t.number() * 1000.0 / per.number(), Unit.RATE,
                    t.text() + "/" + per.text(), t.start());
        }
        return new Syntax.Binary("/", num, unary(), t.start(), slash.start());
    }

    private void checkWord(Token t) throws DslException {
        String reason = FORBIDDEN.get(t.text());
        if (reason != null) {
            throw new DslException(t.start(), "`" + t.text() + "` is not allowed: " + reason);
        }
    }

    private Syntax identifier() throws DslException {
        Token t = token;
        checkWord(t);
        advance();
        String name = t.text();
        if (name.equals("true") || name.equals("false")) {
            return new Syntax.Bool(name.equals("true"), t.start());
        }
        if (token.kind() == Kind.LPAREN) {
            return call(t);
        }
        if ((name.equals("card") || name.equals("labels")) && token.kind() == Kind.DOT) {
            advance();
            if (token.kind() != Kind.IDENT) {
                throw unexpected("a label name after `" + name + ".`");
            }
            Token key = token;
            checkWord(key);
            advance();
            return new Syntax.Path(name, key.text(), t.start(), key.start());
        }
        if (name.equals("labels") && token.kind() == Kind.LBRACKET) {
            advance();
            if (token.kind() != Kind.STRING) {
                throw unexpected("a quoted label name");
            }
            Token key = advance();
            if (token.kind() != Kind.RBRACKET) {
                throw unexpected("`]`");
            }
            advance();
            return new Syntax.Path(name, key.text(), t.start(), key.start());
        }
        if (name.equals("cards") && token.kind() == Kind.IDENT && token.text().equals("where")) {
            advance();
            return new Syntax.CardsWhere(expression(), t.start());
        }
        return new Syntax.Name(name, t.start());
    }

    /**
     * {@code baseline(m).name}, {@code baseline(m).name(args)} or {@code peers(m, w).name}; the compiler checks
     * which names exist.
     */
    private Syntax member(Syntax.Call target) throws DslException {
        advance();
        if (token.kind() != Kind.IDENT) {
            throw unexpected(target.name().equals("peers")
                    ? "an accessor after `peers(…).`: median, spread, count or ratio"
                    : "an accessor after `baseline(…).`: mean, std, upper(k), lower(k) or zscore");
        }
        Token name = token;
        checkWord(name);
        advance();
        List<Syntax> args = token.kind() == Kind.LPAREN ? arguments() : null;
        return new Syntax.Member(target, name.text(), args, target.pos(), name.start());
    }

    private Syntax call(Token name) throws DslException {
        return new Syntax.Call(name.text(), arguments(), name.start());
    }

    /** A parenthesised argument list, from its `(`. */
    private List<Syntax> arguments() throws DslException {
        advance();
        List<Syntax> args = new ArrayList<>();
        if (token.kind() != Kind.RPAREN) {
            args.add(expression());
            while (token.kind() == Kind.COMMA) {
                advance();
                args.add(expression());
            }
        }
        if (token.kind() != Kind.RPAREN) {
            throw unexpected("`,` or `)`");
        }
        advance();
        return args;
    }
}
