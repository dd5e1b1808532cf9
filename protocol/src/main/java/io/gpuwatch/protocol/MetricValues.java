package io.gpuwatch.protocol;

import java.util.Arrays;
import java.util.StringJoiner;

/**
 * An immutable set of readings indexed by {@link Metric}; an absent reading is NaN, never 0.
 * Flags read as 1/0 and the clock-event reasons as their NVML bit mask.
 */
public final class MetricValues {
    private static final MetricValues EMPTY = new Builder().build();

    private final double[] values;

    private MetricValues(double[] values) {
        this.values = values;
    }

    public static MetricValues empty() {
        return EMPTY;
    }

    /** The reading, or NaN when absent. */
    public double get(Metric m) {
        return values[m.ordinal()];
    }

    /** The reading by metric ordinal, or NaN when absent. */
    public double get(int ordinal) {
        return values[ordinal];
    }

    public boolean has(Metric m) {
        return !Double.isNaN(values[m.ordinal()]);
    }

    /** True when no metric is present. */
    public boolean isEmpty() {
        for (double v : values) {
            if (!Double.isNaN(v)) {
                return false;
            }
        }
        return true;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MetricValues other && Arrays.equals(values, other.values);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        StringJoiner j = new StringJoiner(", ", "{", "}");
        for (int i = 0; i < values.length; i++) {
            if (!Double.isNaN(values[i])) {
                j.add(Metric.of(i).field() + "=" + values[i]);
            }
        }
        return j.toString();
    }

    /**
     * Collects readings; {@link #build()} hands out an immutable set. The first build takes the builder's array
     * rather than a copy (a trace replay builds one per card reading, and the copy was half of what it
     * allocated); a builder used after that copies it first.
     */
    public static final class Builder {
        private double[] values = new double[Metric.count()];
        private boolean handedOut;

        private Builder() {
            Arrays.fill(values, Double.NaN);
        }

        public Builder set(Metric m, double v) {
            if (handedOut) {
                values = values.clone();
                handedOut = false;
            }
            values[m.ordinal()] = v;
            return this;
        }

        public MetricValues build() {
            if (handedOut) {
                return new MetricValues(values.clone());
            }
            handedOut = true;
            return new MetricValues(values);
        }
    }
}
