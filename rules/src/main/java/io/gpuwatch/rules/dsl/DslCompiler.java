package io.gpuwatch.rules.dsl;

import io.gpuwatch.protocol.ClockEventReason;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.metric.DerivedMetric;
import io.gpuwatch.rules.metric.SampleDerivation;
import io.gpuwatch.rules.scope.Reads;
import io.gpuwatch.rules.scope.ScopeKind;
import io.gpuwatch.rules.scope.ScopeView;
import io.gpuwatch.rules.scope.Series;
import io.gpuwatch.rules.source.DidYouMean;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Checks expressions of the rule language against the allow-list (names, functions, argument kinds, types)
 * and emits canonical, fully parenthesised MVEL that only calls {@link EvalContext}. Series the expressions
 * read are registered in the catalog. One compiler per rule scope; not thread-safe.
 */
public final class DslCompiler {
    /** The longest window a rule may ask for: what the gateway keeps. */
    public static final long MAX_WINDOW_MS = 24 * 3_600_000L;

    private static final List<String> WINDOW_FUNCTIONS = List.of("avg", "min", "max", "sum", "count", "last",
            "rate", "increase", "slope", "delta", "resets", "changes");
    /** Window functions that read how samples follow each other, which the window then keeps in full. */
    private static final List<String> TRANSITION_FUNCTIONS = List.of("delta", "resets", "changes");
    private static final List<String> FUNCTIONS = concat(WINDOW_FUNCTIONS, List.of("quantile", "predict", "absent",
            "fraction", "consecutive", "throttled", "events", "distinct", "baseline", "peers", "taskSuccessRate",
            "tasksEnded"));
    /** PromQL names people type out of habit, and ours. */
    private static final Map<String, String> PROMQL = Map.of("quantile_over_time", "quantile",
            "predict_linear", "predict", "absent_over_time", "absent", "avg_over_time", "avg",
            "min_over_time", "min", "max_over_time", "max", "sum_over_time", "sum", "count_over_time", "count",
            "last_over_time", "last", "deriv", "slope");
    private static final int MAX_CONSECUTIVE = 1_000_000;
    private static final List<String> LABELS = List.of("node", "task", "owner", "business");
    private static final List<String> CARD_LABELS = List.of("uuid", "name", "index");
    private static final List<String> BUILTINS = List.of("allocated", "silentFor", "lostCards", "requestedVsUsed",
            "memRequestedVsUsed");
    private static final List<String> BASELINE_ACCESSORS = List.of("mean", "std", "upper", "lower", "zscore");
    private static final String BASELINE_NEEDS = "needs .mean, .std, .upper(k), .lower(k) or .zscore";
    private static final List<String> PEER_ACCESSORS = List.of("median", "spread", "count", "ratio");
    private static final String PEERS_NEEDS = "needs .median, .spread, .count or .ratio";
    private static final Pattern EVENT_KIND = Pattern.compile("[a-z][a-z0-9_]*");

    private final ScopeKind scope;
    private final SeriesCatalog catalog;

    public DslCompiler(ScopeKind scope, SeriesCatalog catalog) {
        this.scope = scope;
        this.catalog = catalog;
    }

    /** The names of the functions of the rule language, as `rules check` lists them. */
    public static List<String> functions() {
        return FUNCTIONS;
    }

    /**
     * Compiles a condition ({@code when}); warnings are appended to {@code warnings}, among them a condition
     * that can never be true.
     */
    public Expression condition(String source, List<DslProblem> warnings) throws DslException {
        Walk w = new Walk(warnings, null);
        Syntax parsed = Parser.parse(source);
        Out out = compile(parsed, w);
        if (out.type != Type.BOOLEAN) {
            throw new DslException(out.pos, "a condition must be true/false, but this is " + out.type.words());
        }
        if (out.truth == Truth.NEVER && !w.neverWarned) {
            warnings.add(new DslProblem(out.pos, "`" + out.canon + "` is always false, so this rule never fires"));
        }
        Drift drift = Drift.of(parsed, scope);
        boolean sleeps = drift == Drift.FALLS || drift == Drift.STILL;
        return w.expression(out, sleeps ? new Reads(w.reads.stream().mapToInt(Integer::intValue).toArray(), w.events,
                w.freshMs) : null);
    }

    /** Compiles an expression of any type, as used in templates. */
    public Expression value(String source, List<DslProblem> warnings) throws DslException {
        Walk w = new Walk(warnings, "`consecutive` counts evaluations of a rule, so it can only be used in `when`");
        return w.expression(compile(Parser.parse(source), w));
    }

    /** What the compiler knows of a condition's outcome regardless of the data. */
    private enum Truth { NEVER, ALWAYS, UNKNOWN }

    /** One comparison with a literal, {@code subject > 90}, as {@code &&} collects them to find contradictions. */
    private record Bound(String subject, double value, boolean lower, boolean strict, String text) {
    }

    /**
     * A compiled node: its type, MVEL and canonical rule-language text; for numbers the range they lie in
     * (null: unknown) and whether they are made of literals only, for conditions what is known of their truth
     * and the bounds their {@code &&} chain puts on subjects.
     */
    private record Out(Type type, String mvel, Node node, String canon, int pos, boolean binary, Range range,
                       boolean literal, Truth truth, List<Bound> bounds, Watch watch, Quiet quiet) {
        Out(Type type, String mvel, Node node, String canon, int pos) {
            this(type, mvel, node, canon, pos, false, null, false, Truth.UNKNOWN, List.of());
        }

        Out(Type type, String mvel, Node node, String canon, int pos, boolean binary, Range range, boolean literal,
            Truth truth, List<Bound> bounds) {
            this(type, mvel, node, canon, pos, binary, range, literal, truth, bounds, null, null);
        }

        /** A number whose comparison with a literal may know how long it stays false. */
        Out watched(Watch w) {
            return new Out(type, mvel, node, canon, pos, binary, range, literal, truth, bounds, w, quiet);
        }

        /** A condition that knows, while false, until when it stays so. */
        Out quieted(Quiet q) {
            return new Out(type, mvel, node, canon, pos, binary, range, literal, truth, bounds, watch, q);
        }

        String canonOperand() {
            return binary ? "(" + canon + ")" : canon;
        }

        Out ranged(Range r) {
            return new Out(type, mvel, node, canon, pos, binary, r, literal, truth, bounds, watch, quiet);
        }

        Out known(Truth t, List<Bound> b) {
            return new Out(type, mvel, node, canon, pos, binary, range, literal, t, b, watch, quiet);
        }
    }

    /** What one expression reads, collected while it compiles. */
    private static final class Walk {
        final List<DslProblem> warnings;
        final Set<Integer> readsLast = new LinkedHashSet<>();
        /** The series it reads as its latest value or through a window function, for its change mark. */
        final Set<Integer> reads = new TreeSet<>();
        /** The shortest window it reads a series over, {@link Series#LOOKBACK_MS} for a latest reading. */
        long freshMs = Long.MAX_VALUE;
        /** The conditions of {@code consecutive} calls, by streak index; null where they are not allowed. */
        final List<Expression> streaks;
        final List<String> streakCanons = new ArrayList<>();
        /** The card conditions of {@code count(cards where …)} calls, by index. */
        final List<Expression> members = new ArrayList<>();
        final List<String> memberCanons = new ArrayList<>();
        final String noStreaks;
        boolean events;
        boolean sampled;
        boolean neverWarned;
        /** The longest window the expression reads, in milliseconds. */
        long longestWindowMs;
        /** The metrics it reads through {@code baseline(…)}. */
        final Set<String> baselined = new LinkedHashSet<>();

        /** {@code noStreaks} says why {@code consecutive} is refused here; null allows it. */
        Walk(List<DslProblem> warnings, String noStreaks) {
            this.warnings = warnings;
            this.noStreaks = noStreaks;
            this.streaks = noStreaks == null ? new ArrayList<>() : null;
        }

        /** A walk for a condition nested in this one, which shares its warnings. */
        Walk nested(String noStreaks) {
            return new Walk(warnings, noStreaks);
        }

        /** Takes over what a nested walk found that matters for the whole expression. */
        void absorb(Walk inner) {
            events |= inner.events;
            sampled |= inner.sampled;
            neverWarned |= inner.neverWarned;
            longestWindowMs = Math.max(longestWindowMs, inner.longestWindowMs);
            baselined.addAll(inner.baselined);
            reads.addAll(inner.reads);
            freshMs = Math.min(freshMs, inner.freshMs);
        }

        void read(int seriesId, long windowMs) {
            reads.add(seriesId);
            freshMs = Math.min(freshMs, windowMs);
        }

        Expression expression(Out out) throws DslException {
            return expression(out, null);
        }

        /** The expression; {@code sleepsOn} is what it reads when it may sleep while false (null: never). */
        Expression expression(Out out, Reads sleepsOn) throws DslException {
            return Expression.compile(out.canon, out.mvel, out.node, events && !sampled,
                    streaks == null ? List.of() : streaks, members, longestWindowMs, baselined, sleepsOn, out.quiet);
        }
    }

    private Out compile(Syntax s, Walk w) throws DslException {
        if (s instanceof Syntax.Num n) {
            String canon = switch (n.unit()) {
                case DURATION -> Unit.formatDuration((long) n.value());
                case SIZE, RATE -> n.text();
                default -> plain(n.value());
            };
            return new Out(Type.NUMBER, mvelNumber(n.value()), Node.number(n.value()), canon, n.pos(), false, Range.point(n.value()), true,
                    Truth.UNKNOWN, List.of());
        }
        if (s instanceof Syntax.Str str) {
            String quoted = quote(str.value());
            return new Out(Type.STRING, quoted, Node.text(str.value()), quoted, str.pos());
        }
        if (s instanceof Syntax.Bool b) {
            return new Out(Type.BOOLEAN, Boolean.toString(b.value()), Node.bool(b.value()), Boolean.toString(b.value()), b.pos())
                    .known(b.value() ? Truth.ALWAYS : Truth.NEVER, List.of());
        }
        if (s instanceof Syntax.Name name) {
            return name(name, w);
        }
        if (s instanceof Syntax.Path path) {
            return path(path);
        }
        if (s instanceof Syntax.CardsWhere cw) {
            throw new DslException(cw.pos(), "`cards where …` can only be the argument of count() or distinct(), e.g. "
                    + "count(cards where gpuUtil < 5) > 0");
        }
        if (s instanceof Syntax.Unary u) {
            return unary(u, w);
        }
        if (s instanceof Syntax.Binary b) {
            return binary(b, w);
        }
        if (s instanceof Syntax.Member m) {
            return m.target().name().equals("peers") ? peers(m, w) : baseline(m, w);
        }
        return call((Syntax.Call) s, w);
    }

    private Out name(Syntax.Name n, Walk w) throws DslException {
        String name = n.name();
        Metric m = Metric.byField(name);
        if (m != null) {
            checkMetric(m, n.pos(), null);
            int id = catalog.raw(m, 0);
            w.readsLast.add(id);
            w.read(id, Series.LOOKBACK_MS);
            w.sampled = true;
            return new Out(Type.NUMBER, "last(" + id + ")", (Node.Num) c -> c.last(id), name, n.pos()).ranged(Range.of(m));
        }
        DerivedMetric d = DerivedMetric.byField(name);
        if (d != null) {
            MetricRef ref = new MetricRef(null, d);
            checkMetric(ref, n.pos(), null);
            int id = register(ref, 0, false);
            w.readsLast.add(id);
            w.read(id, Series.LOOKBACK_MS);
            w.sampled = true;
            return new Out(Type.NUMBER, "last(" + id + ")", (Node.Num) c -> c.last(id), name, n.pos()).ranged(ref.range());
        }
        if (LABELS.contains(name) || name.equals("queue")) {
            List<String> labels = scopeLabels();
            if (!labels.contains(name)) {
                throw new DslException(n.pos(), "`" + name + "` is not a label of " + scope.key() + " scope ("
                        + String.join(", ", labels) + ")");
            }
            return label(name, n.pos());
        }
        switch (name) {
            case "allocated":
                if (scope == ScopeKind.QUEUE) {
                    throw new DslException(n.pos(), "`allocated` is not available in queue scope, which has no cards");
                }
                w.sampled = true;
                return new Out(Type.BOOLEAN, "allocated()", (Node.Bool) EvalContext::allocated, name, n.pos());
            case "silentFor":
                w.sampled = true;
                return new Out(Type.NUMBER, "silentFor()", (Node.Num) EvalContext::silentFor, name, n.pos()).ranged(Range.NON_NEGATIVE);
            case "lostCards":
                if (scope != ScopeKind.NODE) {
                    throw new DslException(n.pos(), "`lostCards` counts the cards a node no longer lists, so it needs "
                            + "node scope, not " + scope.key());
                }
                w.sampled = true;
                return new Out(Type.NUMBER, "lostCards()", (Node.Num) EvalContext::lostCards, name, n.pos())
                        .ranged(Range.NON_NEGATIVE);
            case "requestedVsUsed":
            case "memRequestedVsUsed":
                taskOrBusiness(name, n.pos(), "compares what a task's scheduler listing requested with what it uses");
                w.sampled = true;
                return new Out(Type.NUMBER, name + "()", name.equals("requestedVsUsed")
                        ? (Node.Num) EvalContext::requestedVsUsed : (Node.Num) EvalContext::memRequestedVsUsed,
                        name, n.pos()).ranged(Range.NON_NEGATIVE);
            case "card":
                throw new DslException(n.pos(), "`card` needs a label: card.uuid, card.name or card.index");
            case "labels":
                throw new DslException(n.pos(), "`labels` needs a key: labels.cluster or labels['key']");
            default:
                break;
        }
        if (FUNCTIONS.contains(name)) {
            throw new DslException(n.pos(), "`" + name + "` is a function: " + usage(name));
        }
        throw new DslException(n.pos(), "unknown name `" + name + "` (not a metric, label or builtin)"
                + suggestion(name));
    }

    private Out label(String key, int pos) {
        return new Out(Type.STRING, "label(" + quote(key) + ")", (Node.Text) c -> c.label(key), key, pos);
    }

    private Out path(Syntax.Path p) throws DslException {
        if (p.root().equals("card")) {
            if (!CARD_LABELS.contains(p.key())) {
                throw new DslException(p.keyPos(), "unknown card label `card." + p.key()
                        + "` (card.uuid, card.name, card.index)");
            }
            if (scope != ScopeKind.CARD) {
                throw new DslException(p.pos(), "`card." + p.key() + "` is not available in " + scope.key()
                        + " scope");
            }
            return label("card." + p.key(), p.pos());
        }
        if (p.key().isEmpty()) {
            throw new DslException(p.keyPos(), "empty label key");
        }
        if (scope != ScopeKind.CARD && scope != ScopeKind.NODE && scope != ScopeKind.REPLICA) {
            throw new DslException(p.pos(), "node labels from hello are not available in " + scope.key()
                    + " scope, which spans nodes");
        }
        Out out = label("labels." + p.key(), p.pos());
        String canon = p.key().matches("[A-Za-z_][A-Za-z0-9_]*") ? "labels." + p.key()
                : "labels[" + quote(p.key()) + "]";
        return new Out(Type.STRING, out.mvel, out.node, canon, p.pos());
    }

    private Out unary(Syntax.Unary u, Walk w) throws DslException {
        Out operand = compile(u.operand(), w);
        Type want = u.op().equals("!") ? Type.BOOLEAN : Type.NUMBER;
        if (operand.type != want) {
            throw new DslException(operand.pos, "`" + u.op() + "` needs " + want.words() + ", but this is "
                    + operand.type.words());
        }
        String mvel = u.op().equals("!") ? "!(" + operand.mvel + ")" : "(-(" + operand.mvel + "))";
        Node node = u.op().equals("!") ? Node.not(operand.node) : Node.negate(operand.node);
        Out out = new Out(want, mvel, node, u.op() + operand.canonOperand(), u.pos());
        if (want == Type.NUMBER) {
            return new Out(want, mvel, node, out.canon, u.pos(), false, operand.range == null ? null : operand.range.negate(),
                    operand.literal, Truth.UNKNOWN, List.of());
        }
        Truth t = operand.truth == Truth.NEVER ? Truth.ALWAYS : operand.truth == Truth.ALWAYS ? Truth.NEVER
                : Truth.UNKNOWN;
        return out.known(t, List.of());
    }

    private Out binary(Syntax.Binary b, Walk w) throws DslException {
        Out left = compile(b.left(), w);
        Out right = compile(b.right(), w);
        String op = b.op();
        Type result;
        switch (op) {
            case "||":
            case "&&":
                operand(op, "left", left, Type.BOOLEAN);
                operand(op, "right", right, Type.BOOLEAN);
                result = Type.BOOLEAN;
                break;
            case "==":
            case "!=":
                if (left.type != right.type) {
                    throw new DslException(b.opPos(), "`" + op + "` compares values of one type, but this compares "
                            + left.type.words() + " with " + right.type.words());
                }
                result = Type.BOOLEAN;
                break;
            case "<":
            case "<=":
            case ">":
            case ">=":
                operand(op, "left", left, Type.NUMBER);
                operand(op, "right", right, Type.NUMBER);
                result = Type.BOOLEAN;
                break;
            default:
                operand(op, "left", left, Type.NUMBER);
                operand(op, "right", right, Type.NUMBER);
                result = Type.NUMBER;
                break;
        }
        Out out = new Out(result, "(" + left.mvel + " " + op + " " + right.mvel + ")", Node.binary(op, left.node, right.node),
                left.canonOperand() + " " + op + " " + right.canonOperand(), b.pos(), true, null, false, Truth.UNKNOWN,
                List.of());
        return foldBinary(out, op, left, right, b.opPos(), w);
    }

    /** What can be known of a binary expression without data; warns where a condition can never hold. */
    private Out foldBinary(Out out, String op, Out left, Out right, int opPos, Walk w) {
        switch (op) {
            case "&&": {
                if (left.truth == Truth.NEVER || right.truth == Truth.NEVER) {
                    return out.known(Truth.NEVER, List.of());
                }
                List<Bound> bounds = new ArrayList<>(left.bounds);
                bounds.addAll(right.bounds);
                String clash = contradiction(bounds);
                if (clash != null) {
                    never(w, opPos, "`" + out.canon + "` is never true: " + clash);
                    return out.known(Truth.NEVER, List.of());
                }
                Truth t = left.truth == Truth.ALWAYS && right.truth == Truth.ALWAYS ? Truth.ALWAYS : Truth.UNKNOWN;
                return out.known(t, List.copyOf(bounds)).quieted(Quiet.all(left.quiet, right.quiet));
            }
            case "||": {
                Truth t = left.truth == Truth.NEVER && right.truth == Truth.NEVER ? Truth.NEVER
                        : left.truth == Truth.ALWAYS || right.truth == Truth.ALWAYS ? Truth.ALWAYS : Truth.UNKNOWN;
                return out.known(t, List.of()).quieted(Quiet.any(left.quiet, right.quiet));
            }
            case "<":
            case "<=":
            case ">":
            case ">=":
            case "==":
            case "!=":
                return left.type == Type.NUMBER ? comparison(out, op, left, right, opPos, w) : out;
            default: {
                Out r = out.ranged(Range.arithmetic(op, left.range, right.range));
                // literals whose value the ranges cannot tell (1 / 0, 7 % 2) are not folded
                return new Out(r.type, r.mvel, r.node, r.canon, r.pos, true, r.range,
                        left.literal && right.literal && r.range != null && r.range.constant(), Truth.UNKNOWN, List.of());
            }
        }
    }

    private Out comparison(Out out, String op, Out left, Out right, int opPos, Walk w) {
        boolean literals = left.literal && right.literal;
        // NaN != x holds, so only literals can make != never true; every other comparison on NaN is false
        boolean never = left.range != null && right.range != null && (!op.equals("!=") || literals)
                && Range.neverHolds(op, left.range, right.range);
        if (never) {
            List<String> why = new ArrayList<>();
            for (Out side : List.of(left, right)) {
                if (!side.literal) {
                    why.add("`" + side.canon + "` " + side.range.words());
                }
            }
            never(w, opPos, "`" + out.canon + "` is " + (literals ? "always false"
                    : "never true: " + String.join(" and ", why)));
            return out.known(Truth.NEVER, List.of());
        }
        if (literals) {
            return out.known(Truth.ALWAYS, List.of());
        }
        if (op.equals("!=") || left.literal == right.literal) {
            return out;
        }
        Out subject = left.literal ? right : left;
        double value = (left.literal ? left : right).range.lo();
        // `90 < x` bounds x from below, like `x > 90`
        String norm = left.literal ? flip(op) : op;
        String text = norm + " " + Range.plain(value);
        List<Bound> bounds = switch (norm) {
            case ">" -> List.of(new Bound(subject.canon, value, true, true, text));
            case ">=" -> List.of(new Bound(subject.canon, value, true, false, text));
            case "<" -> List.of(new Bound(subject.canon, value, false, true, text));
            case "<=" -> List.of(new Bound(subject.canon, value, false, false, text));
            default -> List.of(new Bound(subject.canon, value, true, false, text),
                    new Bound(subject.canon, value, false, false, text));
        };
        return out.known(Truth.UNKNOWN, bounds).quieted(subject.watch == null ? null : subject.watch.quiet(norm, value));
    }

    private static String flip(String op) {
        return switch (op) {
            case "<" -> ">";
            case "<=" -> ">=";
            case ">" -> "<";
            case ">=" -> "<=";
            default -> op;
        };
    }

    /** The first subject the bounds leave no value for, described; null when every subject has room. */
    private static String contradiction(List<Bound> bounds) {
        Set<String> subjects = new LinkedHashSet<>();
        bounds.forEach(b -> subjects.add(b.subject()));
        for (String subject : subjects) {
            double lo = Double.NEGATIVE_INFINITY;
            double hi = Double.POSITIVE_INFINITY;
            boolean loStrict = false;
            boolean hiStrict = false;
            Set<String> texts = new LinkedHashSet<>();
            for (Bound b : bounds) {
                if (!b.subject().equals(subject)) {
                    continue;
                }
                texts.add(b.text());
                if (b.lower() && (b.value() > lo || b.value() == lo && b.strict())) {
                    lo = b.value();
                    loStrict = b.strict();
                } else if (!b.lower() && (b.value() < hi || b.value() == hi && b.strict())) {
                    hi = b.value();
                    hiStrict = b.strict();
                }
            }
            if (lo > hi || lo == hi && (loStrict || hiStrict)) {
                return "`" + subject + "` cannot be " + String.join(" and ", texts) + " at once";
            }
        }
        return null;
    }

    private static void never(Walk w, int pos, String message) {
        w.warnings.add(new DslProblem(pos, message));
        w.neverWarned = true;
    }

    private static void operand(String op, String side, Out o, Type want) throws DslException {
        if (o.type != want) {
            throw new DslException(o.pos, "`" + op + "` needs " + want.words() + " on both sides, but its " + side
                    + " side is " + o.type.words());
        }
    }

    private Out call(Syntax.Call c, Walk w) throws DslException {
        String name = c.name();
        if (WINDOW_FUNCTIONS.contains(name)) {
            return windowFunction(c, w);
        }
        switch (name) {
            case "quantile":
                return quantile(c, w);
            case "predict":
                return predict(c, w);
            case "absent":
                return absent(c, w);
            case "consecutive":
                return consecutive(c, w);
            case "fraction":
                return fraction(c, w);
            case "throttled":
                return throttled(c, w);
            case "distinct":
                return distinct(c, w);
            case "taskSuccessRate":
            case "tasksEnded":
                return taskOutcomes(c, w);
            case "events":
                throw new DslException(c.pos(), "`events(…)` can only be the first argument of count() or distinct()");
            case "baseline":
                throw new DslException(c.pos(), "baseline(m) " + BASELINE_NEEDS
                        + ", e.g. baseline(powerW).upper(3)");
            case "peers":
                throw new DslException(c.pos(), "peers(m, w) " + PEERS_NEEDS + ", e.g. peers(gpuUtil, 2m).ratio < 0.7");
            default:
                break;
        }
        if (Metric.byField(name) != null || DerivedMetric.byField(name) != null || LABELS.contains(name)
                || BUILTINS.contains(name)) {
            throw new DslException(c.pos(), "`" + name + "` is not a function");
        }
        String hint = PROMQL.containsKey(name) ? DidYouMean.wording(PROMQL.get(name))
                : DidYouMean.hint(name, FUNCTIONS);
        throw new DslException(c.pos(), "unknown function `" + name + "`" + (hint.isEmpty()
                ? " (functions: " + String.join(", ", FUNCTIONS) + ")" : hint));
    }

    /** {@code taskSuccessRate(w)} and {@code tasksEnded(w)}: the outcomes scheduler listings reported. */
    private Out taskOutcomes(Syntax.Call c, Walk w) throws DslException {
        String f = c.name();
        taskOrBusiness(f, c.pos(), "counts the tasks that ended, as their scheduler listings said");
        arity(c, 1, "window");
        // the outcomes are kept a day apart from the windows, so the window widens no series' history
        long window = window(c.args().get(0));
        w.sampled = true;
        String canon = f + "(" + Unit.formatDuration(window) + ")";
        if (f.equals("tasksEnded")) {
            return new Out(Type.NUMBER, "tasksEnded(" + window + "L)", (Node.Num) ctx -> ctx.tasksEnded(window),
                    canon, c.pos()).ranged(Range.NON_NEGATIVE);
        }
        return new Out(Type.NUMBER, "taskSuccessRate(" + window + "L)",
                (Node.Num) ctx -> ctx.taskSuccessRate(window), canon, c.pos()).ranged(Range.of(Metric.Kind.GAUGE,
                "ratio 0..1"));
    }

    private void taskOrBusiness(String name, int pos, String why) throws DslException {
        if (scope != ScopeKind.TASK && scope != ScopeKind.BUSINESS) {
            throw new DslException(pos, "`" + name + "` " + why + ", so it needs task or business scope, not "
                    + scope.key());
        }
    }

    private static String usage(String function) {
        switch (function) {
            case "taskSuccessRate":
            case "tasksEnded":
                return function + "(window), e.g. " + function + "(24h)";
            case "count":
                return "count(metric, window) or count(events(kind[, code]), window)";
            case "fraction":
                return "fraction(condition, window)";
            case "quantile":
                return "quantile(metric, p, window) with p from 0 to 1";
            case "predict":
                return "predict(metric, window, horizon)";
            case "consecutive":
                return "consecutive(condition, evaluations)";
            case "throttled":
                return "throttled('REASON', …)";
            case "events":
                return "events(kind[, code]) inside count() or distinct()";
            case "distinct":
                return "distinct(events(kind[, code]), window)";
            case "baseline":
                return "baseline(metric) with .mean, .std, .upper(k), .lower(k) or .zscore";
            case "peers":
                return "peers(metric, window) with .median, .spread, .count or .ratio";
            default:
                return function + "(metric, window)";
        }
    }

    private static void arity(Syntax.Call c, int n, String shape) throws DslException {
        if (c.args().size() != n) {
            throw new DslException(c.pos(), "`" + c.name() + "` takes " + n + " arguments (" + shape + "), got "
                    + c.args().size());
        }
    }

    private Out windowFunction(Syntax.Call c, Walk w) throws DslException {
        String f = c.name();
        if (f.equals("count") && c.args().size() == 1 && c.args().get(0) instanceof Syntax.CardsWhere cw) {
            return cardsWhere(cw, w, false);
        }
        arity(c, 2, f.equals("count") ? "metric or events(…), window" : "metric, window");
        Syntax first = c.args().get(0);
        if (f.equals("count") && first instanceof Syntax.Call inner && inner.name().equals("events")) {
            return events(c, inner, w, false);
        }
        MetricRef m = metricArgument(c, first);
        long window = window(c.args().get(1), w);
        if ((f.equals("rate") || f.equals("increase")) && m.kind() != Metric.Kind.COUNTER) {
            w.warnings.add(new DslProblem(first.pos(), "`" + f + "` is meant for counters, and `" + m.field()
                    + "` is a " + m.kind().name().toLowerCase(Locale.ROOT) + "; use slope() for trends"));
        }
        if (f.equals("delta") && m.kind() == Metric.Kind.COUNTER) {
            w.warnings.add(new DslProblem(first.pos(), "`delta` is meant for gauges, and `" + m.field()
                    + "` is a counter; use increase(), which counts a counter's resets"));
        }
        if (f.equals("resets") && m.kind() != Metric.Kind.COUNTER) {
            w.warnings.add(new DslProblem(first.pos(), "`resets` is meant for counters, and `" + m.field()
                    + "` is a " + m.kind().name().toLowerCase(Locale.ROOT) + "; use changes() to count changes"));
        }
        int id = register(m, window, TRANSITION_FUNCTIONS.contains(f));
        w.read(id, window);
        w.sampled = true;
        String method = f.equals("last") ? "lastWithin" : f;
        Out out = new Out(Type.NUMBER, method + "(" + id + ", " + window + "L)", windowNode(f, id, window),
                f + "(" + m.field() + ", " + Unit.formatDuration(window) + ")", c.pos()).ranged(range(f, m));
        return switch (f) {
            case "max" -> out.watched(new Watch(Watch.Kind.MAX, id, window));
            case "min" -> out.watched(new Watch(Watch.Kind.MIN, id, window));
            case "avg" -> out.watched(new Watch(Watch.Kind.MEAN, id, window, m.range()));
            default -> out;
        };
    }

    /** The evaluator of window function {@code f}; {@code last} asks for a sample within the window. */
    private static Node.Num windowNode(String f, int id, long window) {
        return switch (f) {
            case "avg" -> c -> c.avg(id, window);
            case "min" -> c -> c.min(id, window);
            case "max" -> c -> c.max(id, window);
            case "sum" -> c -> c.sum(id, window);
            case "count" -> c -> c.count(id, window);
            case "last" -> c -> c.lastWithin(id, window);
            case "rate" -> c -> c.rate(id, window);
            case "increase" -> c -> c.increase(id, window);
            case "slope" -> c -> c.slope(id, window);
            case "delta" -> c -> c.delta(id, window);
            case "resets" -> c -> c.resets(id, window);
            case "changes" -> c -> c.changes(id, window);
            default -> throw new IllegalArgumentException(f);
        };
    }

    /** Where a window function's value lies, from the metric's range; null when unknown. */
    private static Range range(String f, MetricRef m) {
        Range r = m.range();
        boolean nonNegative = r != null && r.lo() >= 0;
        return switch (f) {
            case "avg", "min", "max", "last" -> r;
            case "sum", "rate", "increase" -> nonNegative ? Range.NON_NEGATIVE : null;
            case "count", "resets", "changes" -> Range.NON_NEGATIVE;
            case "delta" -> r == null ? null : new Range(r.lo() - r.hi(), r.hi() - r.lo());
            default -> null;
        };
    }

    private Out quantile(Syntax.Call c, Walk w) throws DslException {
        arity(c, 3, "metric, p, window");
        MetricRef m = metricArgument(c, c.args().get(0));
        Syntax pArg = c.args().get(1);
        if (!(pArg instanceof Syntax.Num p) || p.unit() != Unit.NONE || p.value() < 0 || p.value() > 1) {
            throw new DslException(pArg.pos(), "the quantile must be a plain number from 0 to 1, e.g. "
                    + "quantile(tempC, 0.99, 5m) for the 99th percentile");
        }
        long window = window(c.args().get(2), w);
        int id = register(m, window, false);
        w.sampled = true;
        double q = p.value();
        return new Out(Type.NUMBER, "quantile(" + id + ", " + mvelNumber(q) + ", " + window + "L)",
                (Node.Num) ctx -> ctx.quantile(id, q, window),
                "quantile(" + m.field() + ", " + plain(p.value()) + ", " + Unit.formatDuration(window) + ")",
                c.pos()).ranged(m.range());
    }

    private Out predict(Syntax.Call c, Walk w) throws DslException {
        arity(c, 3, "metric, window, horizon");
        MetricRef m = metricArgument(c, c.args().get(0));
        long window = window(c.args().get(1), w);
        Syntax hArg = c.args().get(2);
        if (!(hArg instanceof Syntax.Num h) || h.unit() != Unit.DURATION || h.value() <= 0) {
            throw new DslException(hArg.pos(), "the horizon must be a duration literal such as 30m or 4h: how far "
                    + "ahead of now to read the trend line");
        }
        long horizon = (long) h.value();
        int id = register(m, window, false);
        w.sampled = true;
        return new Out(Type.NUMBER, "predict(" + id + ", " + window + "L, " + horizon + "L)",
                (Node.Num) ctx -> ctx.predict(id, window, horizon),
                "predict(" + m.field() + ", " + Unit.formatDuration(window) + ", " + Unit.formatDuration(horizon)
                        + ")", c.pos());
    }

    private Out absent(Syntax.Call c, Walk w) throws DslException {
        arity(c, 2, "metric, window");
        MetricRef m = metricArgument(c, c.args().get(0));
        long window = window(c.args().get(1), w);
        int id = register(m, window, false);
        w.sampled = true;
        return new Out(Type.BOOLEAN, "absent(" + id + ", " + window + "L)", (Node.Bool) ctx -> ctx.absent(id, window),
                "absent(" + m.field() + ", " + Unit.formatDuration(window) + ")", c.pos());
    }

    private Out consecutive(Syntax.Call c, Walk w) throws DslException {
        if (w.streaks == null) {
            throw new DslException(c.pos(), w.noStreaks);
        }
        arity(c, 2, "condition, evaluations");
        Walk inner = w.nested("`consecutive` cannot be nested: combine the conditions inside one consecutive()");
        Out cond = compile(c.args().get(0), inner);
        if (cond.type != Type.BOOLEAN) {
            throw new DslException(cond.pos, "the first argument of `consecutive` must be a condition (true/false), "
                    + "e.g. consecutive(tempC > 85, 5), but this is " + cond.type.words());
        }
        Syntax nArg = c.args().get(1);
        if (!(nArg instanceof Syntax.Num n) || n.unit() != Unit.NONE || n.value() != Math.rint(n.value())
                || n.value() < 1 || n.value() > MAX_CONSECUTIVE) {
            throw new DslException(nArg.pos(), "the second argument of `consecutive` is how many evaluations in a row, "
                    + "a whole number from 1 to " + MAX_CONSECUTIVE + ", e.g. 5");
        }
        w.absorb(inner);
        int k = w.streakCanons.indexOf(cond.canon);
        if (k < 0) {
            k = w.streaks.size();
            w.streaks.add(inner.expression(cond));
            w.streakCanons.add(cond.canon);
        }
        int evaluations = (int) n.value();
        int streak = k;
        return new Out(Type.BOOLEAN, "consecutive(" + k + ", " + evaluations + ")",
                (Node.Bool) ctx -> ctx.consecutive(streak, evaluations),
                "consecutive(" + cond.canon + ", " + evaluations + ")", c.pos())
                .known(cond.truth == Truth.NEVER ? Truth.NEVER : Truth.UNKNOWN, List.of());
    }

    /**
     * {@code baseline(m).stat}: a figure of what the scope's business normally sees of {@code m}. The metric's
     * raw series is registered so the scope can name it and zscore can read its latest value.
     */
    private Out baseline(Syntax.Member b, Walk w) throws DslException {
        Syntax.Call c = b.target();
        if (c.args().size() != 1) {
            throw new DslException(c.pos(), "`baseline` takes 1 argument (metric), got " + c.args().size());
        }
        MetricRef m = metricArgument(c, c.args().get(0));
        String name = b.name();
        int stat = BASELINE_ACCESSORS.indexOf(name);
        if (stat < 0) {
            String hint = DidYouMean.hint(name, BASELINE_ACCESSORS);
            throw new DslException(b.namePos(), "unknown baseline accessor `." + name + "`"
                    + (hint.isEmpty() ? "; baseline(m) " + BASELINE_NEEDS : hint));
        }
        boolean takesK = name.equals("upper") || name.equals("lower");
        double k = 0;
        if (takesK) {
            if (b.args() == null || b.args().size() != 1) {
                throw new DslException(b.namePos(), "`." + name + "` takes one argument k, the number of standard "
                        + "deviations, e.g. baseline(" + m.field() + ")." + name + "(3)");
            }
            Syntax kArg = b.args().get(0);
            if (!(kArg instanceof Syntax.Num num) || num.unit() != Unit.NONE) {
                throw new DslException(kArg.pos(), "k of `." + name + "(k)` must be a plain number literal, e.g. 3");
            }
            k = num.value();
        } else if (b.args() != null) {
            throw new DslException(b.namePos(), "`." + name + "` takes no arguments: baseline(" + m.field() + ")."
                    + name);
        }
        int id = register(m, 0, false);
        catalog.baselined(m.field());
        w.baselined.add(m.field());
        if (name.equals("zscore")) {
            w.readsLast.add(id);
        }
        w.sampled = true;
        String canon = "baseline(" + m.field() + ")." + name + (takesK ? "(" + plain(k) + ")" : "");
        double sigmas = k;
        Out out = new Out(Type.NUMBER, "baseline(" + id + ", " + stat + ", " + mvelNumber(k) + ")",
                (Node.Num) ctx -> ctx.baseline(id, stat, sigmas), canon, b.pos());
        return name.equals("std") ? out.ranged(Range.NON_NEGATIVE) : out;
    }

    /**
     * {@code peers(m, w).stat}: the scope's mean of {@code m} over {@code w} against its peers' (card scope: the
     * other cards of its task; node scope: the other nodes of the task most of its cards run; replica scope: the
     * task's other replicas). The series is
     * registered for the window so every member keeps it.
     */
    private Out peers(Syntax.Member p, Walk w) throws DslException {
        Syntax.Call c = p.target();
        if (scope != ScopeKind.CARD && scope != ScopeKind.NODE && scope != ScopeKind.REPLICA) {
            throw new DslException(c.pos(), "`peers(…)` compares a card with the other cards of its task, a node "
                    + "with the other nodes of its task or a replica with the task's other replicas, so it needs "
                    + "card, node or replica scope, not " + scope.key());
        }
        arity(c, 2, "metric, window");
        MetricRef m = metricArgument(c, c.args().get(0));
        long window = window(c.args().get(1), w);
        String name = p.name();
        int stat = PEER_ACCESSORS.indexOf(name);
        if (stat < 0) {
            String hint = DidYouMean.hint(name, PEER_ACCESSORS);
            throw new DslException(p.namePos(), "unknown peers accessor `." + name + "`"
                    + (hint.isEmpty() ? "; peers(m, w) " + PEERS_NEEDS : hint));
        }
        if (p.args() != null) {
            throw new DslException(p.namePos(), "`." + name + "` takes no arguments: peers(" + m.field() + ", "
                    + Unit.formatDuration(window) + ")." + name);
        }
        int id = register(m, window, false);
        w.sampled = true;
        String canon = "peers(" + m.field() + ", " + Unit.formatDuration(window) + ")." + name;
        Out out = new Out(Type.NUMBER, "peers(" + id + ", " + window + "L, " + stat + ")",
                (Node.Num) ctx -> ctx.peers(id, window, stat), canon, p.pos());
        boolean nonNegative = m.range() != null && m.range().lo() >= 0;
        return switch (name) {
            case "median" -> out.ranged(m.range());
            case "ratio" -> nonNegative ? out.ranged(Range.NON_NEGATIVE) : out;
            default -> out.ranged(Range.NON_NEGATIVE);
        };
    }

    private MetricRef metricArgument(Syntax.Call c, Syntax arg) throws DslException {
        if (arg instanceof Syntax.Name n) {
            Metric m = Metric.byField(n.name());
            DerivedMetric d = DerivedMetric.byField(n.name());
            if (m != null || d != null) {
                MetricRef ref = new MetricRef(m, d);
                checkMetric(ref, n.pos(), c.name());
                return ref;
            }
            if (!LABELS.contains(n.name()) && !BUILTINS.contains(n.name()) && !FUNCTIONS.contains(n.name())
                    && !n.name().equals("card") && !n.name().equals("labels")) {
                throw new DslException(n.pos(), "unknown metric `" + n.name() + "`" + suggestion(n.name()));
            }
        }
        throw new DslException(arg.pos(), "the first argument of `" + c.name() + "` must be a metric name, e.g. "
                + c.name() + "(gpuUtil, 5m)");
    }

    private void checkMetric(Metric m, int pos, String function) throws DslException {
        checkMetric(new MetricRef(m, null), pos, function);
    }

    private void checkMetric(MetricRef m, int pos, String function) throws DslException {
        switch (m.source()) {
            case APP:
                if (scope != ScopeKind.TASK && scope != ScopeKind.REPLICA && scope != ScopeKind.BUSINESS) {
                    throw new DslException(pos, "`" + m.field() + "` is an application metric, read in task, "
                            + "replica or business scope, not " + scope.key());
                }
                break;
            case SCHED:
                if (scope != ScopeKind.QUEUE) {
                    throw new DslException(pos, "`" + m.field() + "` is a scheduling metric, read in queue scope, "
                            + "not " + scope.key());
                }
                break;
            default:
                if (scope == ScopeKind.QUEUE) {
                    throw new DslException(pos, "`" + m.field() + "` is a card metric, and queue scope reads "
                            + "scheduling metrics (pending, running, waitP50s, preemptions, …)");
                }
                break;
        }
        if (m.kind() == Metric.Kind.MASK) {
            throw new DslException(pos, "`" + m.field() + "` is a set of bits"
                    + (function == null ? "" : " that `" + function + "` cannot aggregate")
                    + "; test it with throttled('REASON', …)");
        }
    }

    /** A metric a function reads: one the protocol carries, or one the gateway derives. */
    private record MetricRef(Metric metric, DerivedMetric derived) {
        String field() {
            return metric != null ? metric.field() : derived.field();
        }

        Metric.Kind kind() {
            return metric != null ? metric.kind() : derived.kind();
        }

        Metric.Source source() {
            return metric != null ? metric.source() : derived.source();
        }

        Range range() {
            return metric != null ? Range.of(metric) : Range.of(derived.kind(), derived.unit());
        }
    }

    /** The series id of {@code m}, widened to {@code window}; a derived metric registers what it derives from. */
    private int register(MetricRef m, long window, boolean transitions) {
        if (m.metric() != null) {
            return catalog.raw(m.metric(), window, transitions);
        }
        return catalog.derived(m.derived(), derivation(m.derived()), window, transitions);
    }

    /** How a derived metric's value is computed from the latest raw values of the same frame. */
    private SampleDerivation derivation(DerivedMetric d) {
        switch (d) {
            case IDLE: {
                int util = catalog.raw(Metric.GPU_UTIL, 0);
                return v -> DerivedMetric.idle(v.series(util).last(), v.allocated());
            }
            case SM_ACTIVE_OF_BUSY: {
                int util = catalog.raw(Metric.GPU_UTIL, 0);
                int sm = catalog.raw(Metric.SM_ACTIVE, 0);
                return v -> DerivedMetric.smActiveOfBusy(v.series(util).last(), v.series(sm).last());
            }
            case ACHIEVED_FLOPS: {
                int tokens = catalog.raw(Metric.TOKENS_PER_SEC, 0);
                int samples = catalog.raw(Metric.SAMPLES_PER_SEC, 0);
                return v -> achievedFlops(v, tokens, samples);
            }
            case EFFECTIVE_COMPUTE_RATIO: {
                int tokens = catalog.raw(Metric.TOKENS_PER_SEC, 0);
                int samples = catalog.raw(Metric.SAMPLES_PER_SEC, 0);
                return v -> DerivedMetric.effectiveComputeRatio(achievedFlops(v, tokens, samples), v.peakFlops());
            }
            case HARDWARE_COMPUTE_RATIO: {
                int tensor = catalog.raw(Metric.TENSOR_ACTIVE, 0);
                int sm = catalog.raw(Metric.SM_ACTIVE, 0);
                return v -> hardwareComputeRatio(v, tensor, sm);
            }
            case COMPUTE_RATIO_MISMATCH: {
                int tokens = catalog.raw(Metric.TOKENS_PER_SEC, 0);
                int samples = catalog.raw(Metric.SAMPLES_PER_SEC, 0);
                int tensor = catalog.raw(Metric.TENSOR_ACTIVE, 0);
                int sm = catalog.raw(Metric.SM_ACTIVE, 0);
                return v -> DerivedMetric.computeRatioMismatch(
                        DerivedMetric.effectiveComputeRatio(achievedFlops(v, tokens, samples), v.peakFlops()),
                        hardwareComputeRatio(v, tensor, sm));
            }
            case COST_PER_TOKEN:
            case COST_PER_M_TOKENS: {
                int tokens = catalog.raw(Metric.TOKENS_PER_SEC, 0);
                double scale = d == DerivedMetric.COST_PER_M_TOKENS ? 1e6 : 1;
                return v -> {
                    double t = v.series(tokens).last();
                    if (Double.isNaN(t) || t <= 0) {
                        return Double.NaN;
                    }
                    double perHour = 0;
                    boolean priced = false;
                    for (ScopeView card : v.members()) {
                        double p = card.cardHourPrice();
                        if (!Double.isNaN(p)) {
                            perHour += p;
                            priced = true;
                        }
                    }
                    return priced ? perHour / 3600 / t * scale : Double.NaN;
                };
            }
            case ALLOCATION_RATE: {
                int allocated = catalog.raw(Metric.CARDS_ALLOCATED, 0);
                int total = catalog.raw(Metric.CARDS_TOTAL, 0);
                return v -> DerivedMetric.allocationRate(v.series(allocated).last(), v.series(total).last());
            }
            case PREEMPTIONS_PER_HOUR: {
                int preemptions = catalog.raw(Metric.PREEMPTIONS, HOUR_MS);
                return v -> v.series(preemptions).increase(HOUR_MS);
            }
            case USED_CARDS: {
                int util = catalog.raw(Metric.GPU_UTIL, 0);
                return v -> usedCards(v, util);
            }
            case USED_MEM_BYTES: {
                int mem = catalog.raw(Metric.MEM_USED_BYTES, 0);
                return v -> {
                    double sum = Double.NaN;
                    for (ScopeView card : v.members()) {
                        double m = card.series(mem).last();
                        if (!Double.isNaN(m)) {
                            sum = (Double.isNaN(sum) ? 0 : sum) + m;
                        }
                    }
                    return sum;
                };
            }
            case USED_OF_ALLOCATED: {
                int util = catalog.raw(Metric.GPU_UTIL, 0);
                int allocated = catalog.raw(Metric.CARDS_ALLOCATED, 0);
                return v -> DerivedMetric.usedOfAllocated(usedCards(v, util), v.series(allocated).last());
            }
            default:
                throw new IllegalArgumentException(d.name());
        }
    }

    private static final long HOUR_MS = 3_600_000L;

    /** The model FLOP/s of a task's latest app frame. */
    private static double achievedFlops(ScopeView task, int tokens, int samples) {
        return DerivedMetric.achievedFlops(task.series(tokens).last(), task.series(samples).last(),
                task.flopsPerToken(), task.flopsPerSample());
    }

    /** The mean over a task's cards of tensorActive, smActive where a card has no tensorActive; NaN without any. */
    private static double hardwareComputeRatio(ScopeView task, int tensor, int sm) {
        double sum = 0;
        int n = 0;
        for (ScopeView card : task.members()) {
            double v = card.series(tensor).last();
            if (Double.isNaN(v)) {
                v = card.series(sm).last();
            }
            if (!Double.isNaN(v)) {
                sum += v;
                n++;
            }
        }
        return n == 0 ? Double.NaN : sum / n;
    }

    /** Computing cards among a queue's members; NaN while it has none the gateway knows. */
    private static double usedCards(ScopeView queue, int util) {
        List<? extends ScopeView> cards = queue.members();
        if (cards.isEmpty()) {
            return Double.NaN;
        }
        int n = 0;
        for (ScopeView card : cards) {
            if (DerivedMetric.computing(card.series(util).last())) {
                n++;
            }
        }
        return n;
    }

    /** {@link #window(Syntax)}, noted as a window the expression reads. */
    private static long window(Syntax arg, Walk w) throws DslException {
        long ms = window(arg);
        w.longestWindowMs = Math.max(w.longestWindowMs, ms);
        return ms;
    }

    private static long window(Syntax arg) throws DslException {
        if (!(arg instanceof Syntax.Num n) || n.unit() != Unit.DURATION) {
            throw new DslException(arg.pos(), "the window must be a duration literal such as 30s, 5m or 1h");
        }
        long ms = (long) n.value();
        if (ms <= 0) {
            throw new DslException(arg.pos(), "the window must be longer than 0");
        }
        if (ms > MAX_WINDOW_MS) {
            throw new DslException(arg.pos(), "window " + n.text() + " is longer than the 24h the gateway keeps");
        }
        return ms;
    }

    /**
     * {@code count(cards where cond)} and {@code distinct(cards where cond)}: {@code cond} is a card-scope condition,
     * evaluated on each member card of the node, task or business at the evaluation time; {@code count} counts
     * the cards for which it holds, {@code distinct} lists their indexes (for templates).
     */
    private Out cardsWhere(Syntax.CardsWhere cw, Walk w, boolean list) throws DslException {
        String f = list ? "distinct" : "count";
        if (scope == ScopeKind.CARD || scope == ScopeKind.QUEUE) {
            throw new DslException(cw.pos(), "`" + f + "(cards where …)` reads the cards of a node, task, replica or "
                    + "business, so it needs node, task, replica or business scope, not " + scope.key());
        }
        Walk inner = w.nested("`consecutive` cannot be used inside `cards where`, which is evaluated per card");
        Out cond = new DslCompiler(ScopeKind.CARD, catalog).compile(cw.condition(), inner);
        if (cond.type != Type.BOOLEAN) {
            throw new DslException(cond.pos, "`cards where` needs a condition (true/false), e.g. "
                    + f + "(cards where gpuUtil < 5), but this is " + cond.type.words());
        }
        w.absorb(inner);
        int k = w.memberCanons.indexOf(cond.canon);
        if (k < 0) {
            k = w.members.size();
            w.members.add(inner.expression(cond));
            w.memberCanons.add(cond.canon);
        }
        int member = k;
        String canon = f + "(cards where " + cond.canon + ")";
        if (list) {
            return new Out(Type.STRING, "listMembers(" + k + ")", (Node.Text) ctx -> ctx.listMembers(member), canon,
                    cw.pos());
        }
        Out count = new Out(Type.NUMBER, "countMembers(" + k + ")", (Node.Num) ctx -> ctx.countMembers(member), canon,
                cw.pos()).ranged(Range.NON_NEGATIVE);
        // the count can tell how long it stays low only when each card's condition can
        return cond.quiet == null ? count : count.watched(new Watch(Watch.Kind.MEMBERS, member, 0));
    }

    /** The labels rules of this scope may read. */
    private List<String> scopeLabels() {
        return switch (scope) {
            case CARD, NODE -> LABELS;
            case TASK -> List.of("task", "owner", "business", "queue");
            case REPLICA -> List.of("task", "owner", "business", "queue", "node");
            case BUSINESS -> List.of("business");
            case QUEUE -> List.of("queue");
        };
    }

    private Out fraction(Syntax.Call c, Walk w) throws DslException {
        arity(c, 2, "condition, window");
        if (scope == ScopeKind.QUEUE) {
            throw new DslException(c.pos(), "`fraction` is evaluated per card sample, and queue scope has no cards; "
                    + "use consecutive() over evaluations");
        }
        Walk inner = w.nested("`consecutive` cannot be used inside `fraction`, which evaluates its condition per "
                + "sample, not per evaluation");
        // per card sample: in task and business scope the share is pooled over the member cards' samples
        DslCompiler perSample = scope == ScopeKind.TASK || scope == ScopeKind.REPLICA || scope == ScopeKind.BUSINESS
                ? new DslCompiler(ScopeKind.CARD, catalog) : this;
        Out cond = perSample.compile(c.args().get(0), inner);
        if (cond.type != Type.BOOLEAN) {
            throw new DslException(cond.pos, "the first argument of `fraction` must be a condition (true/false), "
                    + "e.g. fraction(gpuUtil > 90, 5m), but this is " + cond.type.words());
        }
        long window = window(c.args().get(1), w);
        int id = catalog.derivedId(cond.canon);
        if (id < 0) {
            int[] readsLast = inner.readsLast.stream().mapToInt(Integer::intValue).toArray();
            id = catalog.derived(cond.canon, new ConditionDerivation(inner.expression(cond), readsLast), window);
        } else {
            catalog.widen(id, window);
        }
        w.sampled = true;
        w.neverWarned |= inner.neverWarned;
        w.longestWindowMs = Math.max(w.longestWindowMs, inner.longestWindowMs);
        w.baselined.addAll(inner.baselined);
        int derived = id;
        return new Out(Type.NUMBER, "fraction(" + id + ", " + window + "L)", (Node.Num) ctx -> ctx.fraction(derived, window),
                "fraction(" + cond.canon + ", " + Unit.formatDuration(window) + ")", c.pos()).ranged(Range.UNIT)
                .watched(new Watch(Watch.Kind.SHARE, id, window));
    }

    private Out throttled(Syntax.Call c, Walk w) throws DslException {
        if (c.args().isEmpty()) {
            throw new DslException(c.pos(), "`throttled` needs at least one reason, e.g. throttled('HW_SLOWDOWN')");
        }
        long mask = 0;
        List<String> names = new ArrayList<>();
        for (Syntax arg : c.args()) {
            if (!(arg instanceof Syntax.Str s)) {
                throw new DslException(arg.pos(), "`throttled` takes reason names in quotes, e.g. "
                        + "throttled('HW_SLOWDOWN')");
            }
            ClockEventReason r = ClockEventReason.byName(s.value());
            if (r == null) {
                throw new DslException(arg.pos(), "unknown clock-event reason `" + s.value() + "` ("
                        + Arrays.stream(ClockEventReason.values()).map(Enum::name).collect(Collectors.joining(", "))
                        + ")");
            }
            mask |= r.bit();
            names.add(quote(r.name()));
        }
        int id = catalog.raw(Metric.CLOCK_EVENT_REASONS, 0);
        w.readsLast.add(id);
        w.sampled = true;
        long reasons = mask;
        return new Out(Type.BOOLEAN, "throttled(" + id + ", " + mask + "L)", (Node.Bool) ctx -> ctx.throttled(id, reasons),
                "throttled(" + String.join(", ", names) + ")", c.pos());
    }

    private Out distinct(Syntax.Call c, Walk w) throws DslException {
        if (c.args().size() == 1 && c.args().get(0) instanceof Syntax.CardsWhere cw) {
            return cardsWhere(cw, w, true);
        }
        arity(c, 2, "events(…), window");
        if (c.args().get(0) instanceof Syntax.Call inner && inner.name().equals("events")) {
            return events(c, inner, w, true);
        }
        throw new DslException(c.args().get(0).pos(), "the first argument of `distinct` must be events(kind[, code])");
    }

    private Out events(Syntax.Call outer, Syntax.Call ev, Walk w, boolean distinct) throws DslException {
        int n = ev.args().size();
        if (n < 1 || n > 2) {
            throw new DslException(ev.pos(), "`events` takes a kind and optionally a code, e.g. events('xid', 79)");
        }
        if (!(ev.args().get(0) instanceof Syntax.Str kindArg)) {
            throw new DslException(ev.args().get(0).pos(), "the event kind must be a quoted name, e.g. 'xid'");
        }
        String kind = kindArg.value();
        if (!EVENT_KIND.matcher(kind).matches()) {
            throw new DslException(kindArg.pos(), "event kinds are lower_snake_case names, e.g. 'xid' or 'oom'");
        }
        if (!Event.KNOWN_KINDS.contains(kind)) {
            w.warnings.add(new DslProblem(kindArg.pos(), "`" + kind + "` is not an event kind the gateway knows ("
                    + Event.KNOWN_KINDS.stream().sorted().collect(Collectors.joining(", "))
                    + "); it only matches if a producer sends it"));
        }
        int code = -1;
        if (n == 2) {
            Syntax codeArg = ev.args().get(1);
            if (!(codeArg instanceof Syntax.Num num) || num.unit() != Unit.NONE || num.value() != Math.rint(num.value())
                    || num.value() > Integer.MAX_VALUE) {
                throw new DslException(codeArg.pos(), "the event code must be a whole number, e.g. 79");
            }
            if (!kind.equals("xid")) {
                throw new DslException(codeArg.pos(), "only `xid` events carry a code");
            }
            code = (int) num.value();
        }
        long window = window(outer.args().get(1), w);
        catalog.events(window);
        w.events = true;
        String args = quote(kind) + ", " + code + ", " + window + "L";
        String evCanon = "events(" + quote(kind) + (code >= 0 ? ", " + code : "") + ")";
        String canon = outer.name() + "(" + evCanon + ", " + Unit.formatDuration(window) + ")";
        int evCode = code;
        return distinct
                ? new Out(Type.STRING, "distinct(" + args + ")", (Node.Text) ctx -> ctx.distinct(kind, evCode, window),
                        canon, outer.pos())
                : new Out(Type.NUMBER, "events(" + args + ")", (Node.Num) ctx -> ctx.events(kind, evCode, window),
                        canon, outer.pos()).ranged(Range.NON_NEGATIVE);
    }

    private boolean readable(Metric.Source source) {
        return switch (source) {
            case CARD -> scope != ScopeKind.QUEUE;
            case APP -> scope == ScopeKind.TASK || scope == ScopeKind.REPLICA || scope == ScopeKind.BUSINESS;
            case SCHED -> scope == ScopeKind.QUEUE;
        };
    }

    /** A close known name, as a hint for a typo. */
    private String suggestion(String name) {
        List<String> known = new ArrayList<>(scopeLabels());
        known.addAll(BUILTINS);
        for (Metric m : Metric.values()) {
            if (readable(m.source())) {
                known.add(m.field());
            }
        }
        for (DerivedMetric d : DerivedMetric.values()) {
            if (readable(d.source())) {
                known.add(d.field());
            }
        }
        return DidYouMean.hint(name, known);
    }

    /** A double literal MVEL reads back exactly: plain digits with a decimal point, negatives in parentheses. */
    private static String mvelNumber(double v) {
        String s = BigDecimal.valueOf(v).toPlainString();
        if (s.indexOf('.') < 0) {
            s = s + ".0";
        }
        return v < 0 ? "(" + s + ")" : s;
    }

    private static String plain(double v) {
        return BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }

    /** Strings never hold a backslash (the lexer refuses them), so choosing the quote is enough. */
    private static String quote(String s) {
        return s.indexOf('\'') < 0 ? "'" + s + "'" : "\"" + s + "\"";
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return List.copyOf(out);
    }
}
