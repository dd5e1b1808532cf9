package io.gpuwatch.rules.metric;

import io.gpuwatch.protocol.Metric;

/**
 * The closed interval a metric's unit promises its readings lie in: 0..1 for flags and ratios, 0..100 for
 * percentages, unbounded for temperatures, never negative for the rest. Rules that sleep on a mean rely on it, so
 * the gateway wakes them on a reading outside it.
 */
public record UnitRange(double low, double high) {
    /** What a unit that promises nothing gives. */
    public static final UnitRange ANY = new UnitRange(Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY);
    private static final UnitRange UNIT = new UnitRange(0, 1);
    private static final UnitRange PERCENT = new UnitRange(0, 100);
    private static final UnitRange NON_NEGATIVE = new UnitRange(0, Double.POSITIVE_INFINITY);

    /** The range of a metric of this kind and unit. */
    public static UnitRange of(Metric.Kind kind, String unit) {
        if (kind == Metric.Kind.FLAG || unit.equals("ratio 0..1")) {
            return UNIT;
        }
        if (unit.equals("percent")) {
            return PERCENT;
        }
        return unit.equals("celsius") ? ANY : NON_NEGATIVE;
    }

    /** True when the unit promises nothing either way. */
    public boolean unbounded() {
        return low == Double.NEGATIVE_INFINITY && high == Double.POSITIVE_INFINITY;
    }
}
