package io.gpuwatch.rules;

import io.gpuwatch.protocol.Metric;

/**
 * A metric no producer sends: the gateway derives it from the readings of the same instant, so rules read it
 * like any other metric (bare for its latest value, or through the window functions). Documented in one table
 * in docs/rules.md.
 */
public enum DerivedMetric {
    /** 1 while a process holds the card and gpuUtil is below 5 percent, else 0: allocated but computing nothing. */
    IDLE("idle", Metric.Source.CARD, Metric.Kind.FLAG, "0/1"),
    /**
     * smActive / (gpuUtil / 100), capped at 1: the share of the time NVML counts as busy in which the SMs really
     * worked. NaN without smActive (no GPM or DCGM) or while gpuUtil is below 1.
     */
    EFFECTIVE_COMPUTE_RATIO("effectiveComputeRatio", Metric.Source.CARD, Metric.Kind.GAUGE, "ratio 0..1"),
    /**
     * What a task's cards cost per token it serves at that instant: the card-hour prices of its cards / 3600 /
     * tokensPerSec, per app frame. NaN without a configured price or while tokensPerSec is 0.
     */
    COST_PER_TOKEN("costPerToken", Metric.Source.APP, Metric.Kind.GAUGE, "currency per token");

    /** Below this gpuUtil (percent) an allocated card counts as idle. */
    public static final double IDLE_BELOW_PERCENT = 5;

    /** {@link #IDLE} of a card with this gpuUtil: NaN without a reading. */
    public static double idle(double gpuUtil, boolean allocated) {
        return Double.isNaN(gpuUtil) ? Double.NaN : allocated && gpuUtil < IDLE_BELOW_PERCENT ? 1 : 0;
    }

    /** {@link #EFFECTIVE_COMPUTE_RATIO} of a card with this gpuUtil (percent) and smActive (ratio). */
    public static double effectiveComputeRatio(double gpuUtil, double smActive) {
        // no ratio of an idle card: "busy" is what the ratio divides by
        return Double.isNaN(gpuUtil) || Double.isNaN(smActive) || gpuUtil < 1 ? Double.NaN
                : Math.min(1, smActive / (gpuUtil / 100));
    }

    private final String field;
    private final Metric.Source source;
    private final Metric.Kind kind;
    private final String unit;

    DerivedMetric(String field, Metric.Source source, Metric.Kind kind, String unit) {
        this.field = field;
        this.source = source;
        this.kind = kind;
        this.unit = unit;
    }

    /** The name rules read it by. */
    public String field() {
        return field;
    }

    /** The frame whose arrival derives a value: card samples, or a task's app frames. */
    public Metric.Source source() {
        return source;
    }

    public Metric.Kind kind() {
        return kind;
    }

    public String unit() {
        return unit;
    }

    /** The derived metric of this name, or null. */
    public static DerivedMetric byField(String field) {
        for (DerivedMetric d : values()) {
            if (d.field.equals(field)) {
                return d;
            }
        }
        return null;
    }
}
