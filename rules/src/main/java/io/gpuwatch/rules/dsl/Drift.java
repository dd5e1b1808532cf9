package io.gpuwatch.rules.dsl;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.metric.DerivedMetric;
import io.gpuwatch.rules.scope.ScopeKind;

/**
 * Which way an expression can move while nothing it reads changes and only time passes: its series take no new
 * value, no event arrives, the cards stay the same; only windows slide and samples grow stale. A condition that
 * {@link #FALLS} and is false stays false until something it reads changes, so the engine need not evaluate it
 * again before then. Conservative: whatever is not shown to move one way is {@link #ANY}.
 */
enum Drift {
    /** Constant, or (a number) unknown once its sample is stale, which makes every comparison on it false. */
    STILL,
    /** Never rises; a condition: never turns true. */
    FALLS,
    /** Never falls; a condition: never turns false. */
    RISES,
    ANY;

    /** How the expression {@code s}, compiled in {@code scope}, drifts. */
    static Drift of(Syntax s, ScopeKind scope) {
        if (s instanceof Syntax.Num || s instanceof Syntax.Bool) {
            return STILL;
        }
        if (s instanceof Syntax.Name n) {
            // a card's latest reading stays until a new one or until it is stale; a node pools its cards'
            boolean series = Metric.byField(n.name()) != null || DerivedMetric.byField(n.name()) != null;
            return series && scope == ScopeKind.CARD || n.name().equals("lostCards") ? STILL : ANY;
        }
        if (s instanceof Syntax.Unary u) {
            return of(u.operand(), scope).flip();
        }
        if (s instanceof Syntax.Binary b) {
            return binary(b, scope);
        }
        if (s instanceof Syntax.Call c) {
            return call(c, scope);
        }
        return ANY;
    }

    private static Drift binary(Syntax.Binary b, ScopeKind scope) {
        Drift l = of(b.left(), scope);
        Drift r = of(b.right(), scope);
        return switch (b.op()) {
            case "&&", "||", "+" -> l.with(r);
            case "-" -> l.with(r.flip());
            case "*" -> scaled(b.left(), r, scaled(b.right(), l, ANY));
            case "/" -> scaled(b.right(), l, ANY);
            // a stale sample (NaN) makes a comparison false, so comparisons can only be shown to fall
            case ">", ">=" -> l.below(FALLS) && r.below(RISES) ? FALLS : ANY;
            case "<", "<=" -> l.below(RISES) && r.below(FALLS) ? FALLS : ANY;
            case "==" -> l == STILL && r == STILL ? FALLS : ANY;
            default -> ANY;
        };
    }

    /** {@code other} multiplied (or divided) by {@code factor}: kept by a positive literal, flipped by a negative one. */
    private static Drift scaled(Syntax factor, Drift other, Drift otherwise) {
        double f = literal(factor);
        if (f > 0) {
            return other;
        }
        return f < 0 ? other.flip() : otherwise;
    }

    /** The value of a number literal, negated or not; NaN for anything else. */
    private static double literal(Syntax s) {
        if (s instanceof Syntax.Num n) {
            return n.value();
        }
        if (s instanceof Syntax.Unary u && u.op().equals("-")) {
            return -literal(u.operand());
        }
        return Double.NaN;
    }

    private static Drift call(Syntax.Call c, ScopeKind scope) {
        if (c.args().size() == 1 && c.args().get(0) instanceof Syntax.CardsWhere cw && c.name().equals("count")) {
            // the cards of the instance are part of its change mark; each card's condition is read in card scope
            return of(cw.condition(), ScopeKind.CARD);
        }
        if (c.args().size() != 2) {
            return ANY;
        }
        Syntax first = c.args().get(0);
        if (first instanceof Syntax.Call ev && ev.name().equals("events")) {
            // without new events a count can only lose the ones that age out of its window
            return c.name().equals("count") ? FALLS : ANY;
        }
        if (scope != ScopeKind.CARD || !(first instanceof Syntax.Name)) {
            return ANY;
        }
        // new samples equal to the latest add no rise and no new extreme; old ones leave the window
        return switch (c.name()) {
            case "max", "increase", "rate" -> FALLS;
            case "min" -> RISES;
            default -> ANY;
        };
    }

    private Drift flip() {
        return switch (this) {
            case FALLS -> RISES;
            case RISES -> FALLS;
            default -> this;
        };
    }

    /** Both together (a sum, a conjunction or a disjunction): the way both can move. */
    private Drift with(Drift other) {
        if (this == STILL) {
            return other;
        }
        if (other == STILL || other == this) {
            return this;
        }
        return ANY;
    }

    /** True when this moves at most as {@code way} does (still, or that way). */
    private boolean below(Drift way) {
        return this == STILL || this == way;
    }
}
