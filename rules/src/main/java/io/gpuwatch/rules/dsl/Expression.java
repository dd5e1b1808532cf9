package io.gpuwatch.rules.dsl;

import io.gpuwatch.rules.scope.Reads;
import io.gpuwatch.rules.scope.ScopeView;
import org.mvel2.MVEL;
import org.mvel2.ParserConfiguration;
import org.mvel2.ParserContext;

import java.io.Serializable;
import java.util.List;
import java.util.Set;

/**
 * One checked expression: a tree of {@link Node}s that conditions are evaluated through without reflection or
 * allocation, and the same expression compiled to MVEL with strict, strong typing and a class loader that
 * loads only what MVEL's own machinery needs, which renders template values. MVEL compiles it on the first
 * value asked, or when a server prepares its rules ({@code RuleSet.prepareRendering}): conditions never ask, and
 * in a backtest a pack's templates render only for the rules that fire, while compiling them all took a sixth of
 * loading a pack. Evaluations reuse one {@link EvalContext}, so an expression is used by one thread at a time.
 */
public final class Expression {
    /** Value types and MVEL's own accessor machinery, which its JIT needs; nothing that reaches the system. */
    private static final Set<String> LOADABLE = Set.of(EvalContext.class.getName(), "java.lang.Object",
            "java.lang.Boolean", "java.lang.Double", "java.lang.Integer", "java.lang.Long", "java.lang.Number",
            "java.lang.String");
    private static final List<String> LOADABLE_PACKAGES =
            List.of("org.mvel2.compiler.", "org.mvel2.integration.", "org.mvel2.optimizers.");

    private static final ClassLoader FILTER = new ClassLoader(null) {
        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (LOADABLE.contains(name) || LOADABLE_PACKAGES.stream().anyMatch(name::startsWith)) {
                return Expression.class.getClassLoader().loadClass(name);
            }
            throw new ClassNotFoundException(name);
        }
    };

    private final String canonical;
    private final String mvel;
    private final boolean onlyEvents;
    /** MVEL's form, compiled on first use; volatile because a rule set may be handed to another thread. */
    private volatile Serializable compiled;
    private final Node node;
    private final List<Expression> streaks;
    private final EvalContext context;
    private final long longestWindowMs;
    private final Set<String> baselined;
    private final Reads sleepsOn;
    private final Quiet quiet;

    private Expression(String canonical, String mvel, Node node, boolean onlyEvents, List<Expression> streaks,
                       List<Expression> members, long longestWindowMs, Set<String> baselined, Reads sleepsOn,
                       Quiet quiet) {
        this.sleepsOn = sleepsOn;
        this.quiet = quiet;
        this.longestWindowMs = longestWindowMs;
        this.baselined = Set.copyOf(baselined);
        this.canonical = canonical;
        this.mvel = mvel;
        this.node = node;
        this.onlyEvents = onlyEvents;
        this.streaks = List.copyOf(streaks);
        this.context = new EvalContext(members);
    }

    /**
     * {@code node} and {@code mvel} are the same checked expression; {@code streaks} are the conditions of its
     * {@code consecutive(cond, n)} calls, {@code members} the card conditions of its {@code count(cards where cond)}
     * calls, by index; {@code longestWindowMs} the longest window it reads, {@code baselined} the metrics it
     * reads through {@code baseline(…)}; {@code sleepsOn} what a condition reads that, once false, stays false
     * until one of those reads changes (null for any other expression); {@code quiet}, for a condition, until when
     * it stays false once false (null where nothing it reads can tell).
     */
    static Expression compile(String canonical, String mvel, Node node, boolean onlyEvents,
                              List<Expression> streaks, List<Expression> members, long longestWindowMs,
                              Set<String> baselined, Reads sleepsOn, Quiet quiet) {
        return new Expression(canonical, mvel, node, onlyEvents, streaks, members, longestWindowMs, baselined,
                sleepsOn, quiet);
    }

    /** Compiles the MVEL form now, if it is not yet. */
    void compileMvel() {
        compiled();
    }

    /** Whether the MVEL form has been compiled. */
    boolean mvelCompiled() {
        return compiled != null;
    }

    private Serializable compiled() {
        Serializable c = compiled;
        if (c == null) {
            synchronized (this) {
                c = compiled;
                if (c == null) {
                    c = parseMvel(mvel);
                    compiled = c;
                }
            }
        }
        return c;
    }

    private static Serializable parseMvel(String mvel) {
        ParserConfiguration config = new ParserConfiguration();
        config.setClassLoader(FILTER);
        ParserContext pc = new ParserContext(config);
        pc.setStrictTypeEnforcement(true);
        pc.setStrongTyping(true);
        pc.addInput("this", EvalContext.class);
        try {
            return MVEL.compileExpression(mvel, pc);
        } catch (RuntimeException e) {
            // the checker admitted something MVEL cannot compile: a bug of ours, reported where it is rendered
            throw new IllegalStateException("internal error: MVEL rejected `" + mvel + "`: " + e.getMessage(), e);
        }
    }

    /** The expression as the compiler normalised it, in rule-language syntax. */
    public String canonical() {
        return canonical;
    }

    /** The MVEL the expression was compiled from. */
    public String mvel() {
        return mvel;
    }

    /** True when the expression reads event counts and nothing sampled. */
    public boolean readsOnlyEvents() {
        return onlyEvents;
    }

    /** The longest window (of a metric or an event count) the expression reads, in milliseconds; 0 for none. */
    public long longestWindowMs() {
        return longestWindowMs;
    }

    /** The metrics the expression reads through {@code baseline(…)}, its card conditions' included. */
    public Set<String> baselined() {
        return baselined;
    }

    /**
     * For a condition that time alone cannot make true (its series taking no new value, no event arriving, the
     * cards staying): what it reads, whose {@link ScopeView#changeMark} tells whether it may have turned true since
     * it was last false. Null for every other expression.
     */
    public Reads sleepsOn() {
        return sleepsOn;
    }

    /** True for a condition that can tell, while false, until when it stays false ({@link #quietUntil}). */
    public boolean quiets() {
        return quiet != null;
    }

    /**
     * For a condition false on {@code view} now: the earliest instant at which it could hold, whatever samples
     * arrive, while the view's {@link ScopeView#quietMark} stays; {@link Long#MIN_VALUE} when it cannot tell.
     */
    public long quietUntil(ScopeView view) {
        if (quiet == null) {
            return Long.MIN_VALUE;
        }
        context.bind(view, null);
        try {
            return quiet.until(context);
        } finally {
            context.bind(null, null);
        }
    }

    /** How many {@code consecutive} conditions the expression has: the length of its streak array. */
    public int streaks() {
        return streaks.size();
    }

    /** The conditions of its {@code consecutive} calls, by streak index. */
    List<Expression> streakConditions() {
        return streaks;
    }

    /** The card conditions of its {@code count(cards where …)} calls, by index. */
    List<Expression> memberConditions() {
        return context.members();
    }

    /**
     * Counts one evaluation into {@code streaks}: each {@code consecutive} condition that holds now extends its
     * run by one, any other starts over at 0. A condition that throws starts over, and the exception propagates.
     */
    public void advance(ScopeView view, int[] streaks) {
        for (int k = 0; k < this.streaks.size(); k++) {
            int run = streaks[k];
            streaks[k] = 0;
            if (this.streaks.get(k).test(view)) {
                streaks[k] = run == Integer.MAX_VALUE ? run : run + 1;
            }
        }
    }

    /** Evaluates a condition as if this were the first evaluation: {@code consecutive(c, n)} needs n <= 1. */
    public boolean test(ScopeView view) {
        if (streaks.isEmpty()) {
            return holds(view, null);
        }
        int[] fresh = new int[streaks.size()];
        advance(view, fresh);
        return test(view, fresh);
    }

    /** Evaluates a condition with the runs {@link #advance} counted for this rule instance. */
    public boolean test(ScopeView view, int[] streaks) {
        return holds(view, streaks);
    }

    private boolean holds(ScopeView view, int[] streaks) {
        Node.Bool condition = (Node.Bool) node;
        context.bind(view, streaks);
        try {
            return condition.eval(context);
        } finally {
            context.bind(null, null);
        }
    }

    /** Evaluates to a Double, Boolean or String (null for an absent label). */
    public Object value(ScopeView view) {
        return viaMvel(view, null);
    }

    /** Evaluates the MVEL form, with the runs {@link #advance} counted; the reference the nodes must agree with. */
    Object viaMvel(ScopeView view, int[] streaks) {
        context.bind(view, streaks);
        try {
            return MVEL.executeExpression(compiled(), context);
        } finally {
            context.bind(null, null);
        }
    }
}
