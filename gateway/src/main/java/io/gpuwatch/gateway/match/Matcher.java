package io.gpuwatch.gateway.match;

import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One label matcher, {@code name op value}. A label the alert lacks counts as the empty string, and regular
 * expressions are anchored at both ends, as in Alertmanager: {@code severity=~"page"} does not match
 * {@code pager}.
 */
public final class Matcher {
    /** The four operators. */
    public enum Op {
        EQUAL("="), NOT_EQUAL("!="), REGEX("=~"), NOT_REGEX("!~");

        private final String symbol;

        Op(String symbol) {
            this.symbol = symbol;
        }

        /** The operator as written: {@code =}, {@code !=}, {@code =~} or {@code !~}. */
        public String symbol() {
            return symbol;
        }

        boolean isRegex() {
            return this == REGEX || this == NOT_REGEX;
        }
    }

    private final String name;
    private final Op op;
    private final String value;
    private final Pattern pattern;

    private Matcher(String name, Op op, String value, Pattern pattern) {
        this.name = name;
        this.op = op;
        this.value = value;
        this.pattern = pattern;
    }

    /** A matcher; throws {@link PatternSyntaxException} when {@code op} is a regex one and {@code value} is not. */
    public static Matcher of(String name, Op op, String value) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(value, "value");
        Pattern p = op.isRegex() ? Pattern.compile("(?:" + value + ")", Pattern.DOTALL) : null;
        return new Matcher(name, op, value, p);
    }

    /** {@code name="value"}. */
    public static Matcher equal(String name, String value) {
        return of(name, Op.EQUAL, value);
    }

    /** {@code name=~"regex"}. */
    public static Matcher regex(String name, String regex) {
        return of(name, Op.REGEX, regex);
    }

    public String name() {
        return name;
    }

    public Op op() {
        return op;
    }

    public String value() {
        return value;
    }

    /** Whether the label {@code name} of {@code labels} (empty when absent) satisfies this matcher. */
    public boolean matches(Map<String, String> labels) {
        return matchesValue(labels.getOrDefault(name, ""));
    }

    /** Whether one label value satisfies this matcher. */
    public boolean matchesValue(String v) {
        return switch (op) {
            case EQUAL -> value.equals(v);
            case NOT_EQUAL -> !value.equals(v);
            case REGEX -> pattern.matcher(v).matches();
            case NOT_REGEX -> !pattern.matcher(v).matches();
        };
    }

    /** True when every matcher of {@code matchers} matches {@code labels} (so an empty list matches all). */
    public static boolean all(Iterable<Matcher> matchers, Map<String, String> labels) {
        for (Matcher m : matchers) {
            if (!m.matches(labels)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Matcher m && name.equals(m.name) && op == m.op && value.equals(m.value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, op, value);
    }

    /** {@code name="value"}, quoted and escaped so that {@link MatcherParser} reads it back. */
    @Override
    public String toString() {
        return name + op.symbol + quote(value);
    }

    static String quote(String v) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
