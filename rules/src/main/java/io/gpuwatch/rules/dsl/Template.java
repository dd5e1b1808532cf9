package io.gpuwatch.rules.dsl;

import io.gpuwatch.rules.scope.ScopeView;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;

/**
 * Text with {@code @{expr}} parts, each an expression of the rule language compiled by {@link DslCompiler}
 * (MVEL's template engine never sees user text). Numbers render without a trailing {@code .0} when whole and
 * with at most two decimals otherwise; NaN and absent labels render as {@code n/a}.
 */
public final class Template {
    private static final Template EMPTY = new Template("", List.of());

    private final String source;
    private final List<Object> parts;

    private Template(String source, List<Object> parts) {
        this.source = source;
        this.parts = List.copyOf(parts);
    }

    public static Template empty() {
        return EMPTY;
    }

    /** Compiles a template; offsets in errors and warnings are into {@code text}. */
    public static Template compile(String text, DslCompiler compiler, List<DslProblem> warnings)
            throws DslException {
        List<Object> parts = new ArrayList<>();
        int i = 0;
        while (i < text.length()) {
            int open = text.indexOf("@{", i);
            if (open < 0) {
                parts.add(text.substring(i));
                break;
            }
            if (open > i) {
                parts.add(text.substring(i, open));
            }
            int start = open + 2;
            int close = closingBrace(text, start);
            if (close < 0) {
                throw new DslException(open, "`@{` is not closed with `}`");
            }
            String expr = text.substring(start, close);
            if (expr.isBlank()) {
                throw new DslException(open, "empty `@{}`");
            }
            List<DslProblem> local = new ArrayList<>();
            try {
                parts.add(compiler.value(expr, local));
            } catch (DslException e) {
                throw new DslException(start + e.offset(), e.getMessage());
            }
            for (DslProblem p : local) {
                warnings.add(new DslProblem(start + p.offset(), p.message()));
            }
            i = close + 1;
        }
        return new Template(text, parts);
    }

    /** The first {@code }} after {@code from} that is not inside a quoted string, or -1. */
    private static int closingBrace(String text, int from) {
        char quote = 0;
        for (int i = from; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '}') {
                return i;
            }
        }
        return -1;
    }

    /**
     * Compiles the MVEL form of each value now rather than at the first render: a server calls it as rules load,
     * off its event loop, so that the first notification of a rule does not pay for it.
     */
    public void prepare() {
        for (Object part : parts) {
            if (part instanceof Expression e) {
                e.compileMvel();
            }
        }
    }

    /** Whether every value is ready to render without compiling. */
    public boolean prepared() {
        for (Object part : parts) {
            if (part instanceof Expression e && !e.mvelCompiled()) {
                return false;
            }
        }
        return true;
    }

    public boolean isEmpty() {
        return source.isEmpty();
    }

    public String render(ScopeView view) {
        StringBuilder out = new StringBuilder();
        for (Object part : parts) {
            if (part instanceof Expression e) {
                out.append(format(e.value(view)));
            } else {
                out.append((String) part);
            }
        }
        return out.toString();
    }

    /** How a value appears in rendered text. */
    public static String format(Object value) {
        if (value == null) {
            return "n/a";
        }
        if (value instanceof Double d) {
            return format(d.doubleValue());
        }
        return value.toString();
    }

    static String format(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "inf" : "-inf";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return BigDecimal.valueOf(v).setScale(2, RoundingMode.HALF_UP).stripTrailingZeros().toPlainString();
    }
}
