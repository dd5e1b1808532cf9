package io.gpuwatch.rules.dsl;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.metric.UnitRange;

import java.math.BigDecimal;

/**
 * The closed interval a numeric expression's value always lies in (when it is not NaN), as far as the compiler
 * can tell from literals and the metrics' units; used to find comparisons that can never hold.
 */
record Range(double lo, double hi) {
    static final Range NON_NEGATIVE = new Range(0, Double.POSITIVE_INFINITY);
    static final Range UNIT = new Range(0, 1);

    static Range point(double v) {
        return new Range(v, v);
    }

    /** What a metric's unit promises; null where it promises nothing (temperatures may be below zero). */
    static Range of(Metric m) {
        return of(m.kind(), m.unit());
    }

    /** What a metric of this kind and unit promises ({@link UnitRange}); null where it promises nothing. */
    static Range of(Metric.Kind kind, String unit) {
        UnitRange u = UnitRange.of(kind, unit);
        return u.unbounded() ? null : new Range(u.low(), u.high());
    }

    boolean constant() {
        return lo == hi;
    }

    Range negate() {
        return new Range(-hi, -lo);
    }

    /** Interval arithmetic for + - * /; null when the result is unbounded both ways or undefined. */
    static Range arithmetic(String op, Range a, Range b) {
        if (a == null || b == null) {
            return null;
        }
        switch (op) {
            case "+":
                return checked(a.lo + b.lo, a.hi + b.hi);
            case "-":
                return checked(a.lo - b.hi, a.hi - b.lo);
            case "*":
                return spanOf(a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi);
            case "/":
                // a divisor that may be 0 gives infinities or NaN: nothing can be said
                if (b.lo <= 0 && b.hi >= 0) {
                    return null;
                }
                return spanOf(a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi);
            default:
                return null;
        }
    }

    private static Range checked(double lo, double hi) {
        return Double.isNaN(lo) || Double.isNaN(hi) ? null : new Range(lo, hi);
    }

    private static Range spanOf(double... corners) {
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (double c : corners) {
            if (Double.isNaN(c)) {
                return null;
            }
            lo = Math.min(lo, c);
            hi = Math.max(hi, c);
        }
        return new Range(lo, hi);
    }

    /** True when {@code left op right} is false for every pair of values in the two ranges. */
    static boolean neverHolds(String op, Range l, Range r) {
        switch (op) {
            case ">":
                return l.hi <= r.lo;
            case ">=":
                return l.hi < r.lo;
            case "<":
                return l.lo >= r.hi;
            case "<=":
                return l.lo > r.hi;
            case "==":
                return l.hi < r.lo || r.hi < l.lo;
            case "!=":
                return l.constant() && r.constant() && l.lo == r.lo;
            default:
                return false;
        }
    }

    /** {@code is never negative}, {@code lies in 0..100}: how a warning describes where a value lies. */
    String words() {
        if (constant()) {
            return "is always " + plain(lo);
        }
        if (hi == Double.POSITIVE_INFINITY) {
            return lo == 0 ? "is never negative" : "is never below " + plain(lo);
        }
        if (lo == Double.NEGATIVE_INFINITY) {
            return "is never above " + plain(hi);
        }
        return "lies in " + plain(lo) + ".." + plain(hi);
    }

    static String plain(double v) {
        return Double.isInfinite(v) ? (v > 0 ? "∞" : "-∞") : BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }
}
