package io.gpuwatch.rules.metric;

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
     * worked. NaN without smActive (no GPM or DCGM) or while gpuUtil is below 1. A card-level signal, not the
     * compute ratio: a card whose SMs are all active may still do little useful math.
     */
    SM_ACTIVE_OF_BUSY("smActiveOfBusy", Metric.Source.CARD, Metric.Kind.GAUGE, "ratio 0..1"),
    /**
     * The model FLOP/s a task achieves, per app frame: samplesPerSec × the FLOPs per sample its model declares,
     * else tokensPerSec × FLOPs per token (2·N served, 6·N trained). NaN without a declared model.
     */
    ACHIEVED_FLOPS("achievedFlops", Metric.Source.APP, Metric.Kind.GAUGE, "FLOP/s"),
    /**
     * {@link #ACHIEVED_FLOPS} over the peak dense FLOP/s of the cards the task holds at that instant, at its
     * model's precision (model FLOPs utilisation, MFU). NaN without a model, or with a card the peak table lacks;
     * above 1 only when the declared model is larger than the one that runs.
     */
    EFFECTIVE_COMPUTE_RATIO("effectiveComputeRatio", Metric.Source.APP, Metric.Kind.GAUGE, "ratio of peak"),
    /**
     * What the task's cards say of the same thing, per app frame: the mean over its cards of tensorActive (smActive
     * on a card that reports no tensorActive, an upper bound). NaN while no card reports either.
     */
    HARDWARE_COMPUTE_RATIO("hardwareComputeRatio", Metric.Source.APP, Metric.Kind.GAUGE, "ratio 0..1"),
    /**
     * 1 when {@link #EFFECTIVE_COMPUTE_RATIO} and {@link #HARDWARE_COMPUTE_RATIO} differ by more than
     * {@link #MISMATCH_FACTOR} either way, 0 when within it, NaN while either is unknown.
     */
    COMPUTE_RATIO_MISMATCH("computeRatioMismatch", Metric.Source.APP, Metric.Kind.FLAG, "0/1"),
    /**
     * What a task's cards cost per token it serves at that instant: the card-hour prices of its cards / 3600 /
     * tokensPerSec, per app frame. NaN without a configured price or while tokensPerSec is 0.
     */
    COST_PER_TOKEN("costPerToken", Metric.Source.APP, Metric.Kind.GAUGE, "currency per token"),
    /** {@link #COST_PER_TOKEN} × 1,000,000: what a million tokens cost at that instant, the figure people compare. */
    COST_PER_M_TOKENS("costPerMTokens", Metric.Source.APP, Metric.Kind.GAUGE, "currency per 1M tokens"),
    /** cardsAllocated / cardsTotal of a queue's report: the share of its cards given to tasks. */
    ALLOCATION_RATE("allocationRate", Metric.Source.SCHED, Metric.Kind.GAUGE, "ratio 0..1"),
    /** The increase of a queue's preemptions counter over the last hour (less while it has reported for less). */
    PREEMPTIONS_PER_HOUR("preemptionsPerHour", Metric.Source.SCHED, Metric.Kind.GAUGE, "preemptions per hour"),
    /**
     * Of the cards the gateway knows to belong to the tasks a queue's report lists, those computing at that
     * instant (gpuUtil at least {@link #IDLE_BELOW_PERCENT}); NaN while it knows none of their cards.
     */
    USED_CARDS("usedCards", Metric.Source.SCHED, Metric.Kind.GAUGE, "cards"),
    /** Device memory in use on the cards of {@link #USED_CARDS}'s tasks, computing or not; NaN as it is. */
    USED_MEM_BYTES("usedMemBytes", Metric.Source.SCHED, Metric.Kind.GAUGE, "bytes"),
    /** usedCards / cardsAllocated: how much of what the scheduler handed out computes. */
    USED_OF_ALLOCATED("usedOfAllocated", Metric.Source.SCHED, Metric.Kind.GAUGE, "ratio 0..1");

    /**
     * How far the FLOP count and the cards' activity may disagree before {@link #COMPUTE_RATIO_MISMATCH} flags it:
     * activation recomputation (about a third more FLOPs than 6·N counts) or attention FLOPs stay within it; a
     * model size or precision declared wrong, or cards busy on work other than the model, do not.
     */
    public static final double MISMATCH_FACTOR = 2;
    /** Added to both sides of the mismatch test so near-idle noise (0.001 against 0.004) never counts. */
    public static final double MISMATCH_FLOOR = 0.01;

    /** Below this gpuUtil (percent) an allocated card counts as idle. */
    public static final double IDLE_BELOW_PERCENT = 5;

    /** {@link #IDLE} of a card with this gpuUtil: NaN without a reading. */
    public static double idle(double gpuUtil, boolean allocated) {
        return Double.isNaN(gpuUtil) ? Double.NaN : allocated && gpuUtil < IDLE_BELOW_PERCENT ? 1 : 0;
    }

    /** {@link #SM_ACTIVE_OF_BUSY} of a card with this gpuUtil (percent) and smActive (ratio). */
    public static double smActiveOfBusy(double gpuUtil, double smActive) {
        // no ratio of an idle card: "busy" is what the ratio divides by
        return Double.isNaN(gpuUtil) || Double.isNaN(smActive) || gpuUtil < 1 ? Double.NaN
                : Math.min(1, smActive / (gpuUtil / 100));
    }

    /**
     * {@link #ACHIEVED_FLOPS}: samples × FLOPs per sample where both are known, else tokens × FLOPs per token; NaN
     * when neither pair is.
     */
    public static double achievedFlops(double tokensPerSec, double samplesPerSec, double flopsPerToken,
                                       double flopsPerSample) {
        if (!Double.isNaN(samplesPerSec) && !Double.isNaN(flopsPerSample)) {
            return samplesPerSec * flopsPerSample;
        }
        return Double.isNaN(tokensPerSec) || Double.isNaN(flopsPerToken) ? Double.NaN : tokensPerSec * flopsPerToken;
    }

    /** {@link #EFFECTIVE_COMPUTE_RATIO}: NaN without either figure or without peak compute. */
    public static double effectiveComputeRatio(double achievedFlops, double peakFlops) {
        return Double.isNaN(achievedFlops) || Double.isNaN(peakFlops) || peakFlops <= 0 ? Double.NaN
                : achievedFlops / peakFlops;
    }

    /** {@link #COMPUTE_RATIO_MISMATCH} of the two ratios. */
    public static double computeRatioMismatch(double effective, double hardware) {
        if (Double.isNaN(effective) || Double.isNaN(hardware)) {
            return Double.NaN;
        }
        double a = effective + MISMATCH_FLOOR;
        double b = hardware + MISMATCH_FLOOR;
        return Math.max(a, b) / Math.min(a, b) > MISMATCH_FACTOR ? 1 : 0;
    }

    /** {@link #ALLOCATION_RATE}: NaN without both readings or with no cards in the pool. */
    public static double allocationRate(double cardsAllocated, double cardsTotal) {
        return Double.isNaN(cardsAllocated) || Double.isNaN(cardsTotal) || cardsTotal <= 0 ? Double.NaN
                : cardsAllocated / cardsTotal;
    }

    /** {@link #USED_OF_ALLOCATED}: NaN without both or with nothing allocated. */
    public static double usedOfAllocated(double usedCards, double cardsAllocated) {
        return Double.isNaN(usedCards) || Double.isNaN(cardsAllocated) || cardsAllocated <= 0 ? Double.NaN
                : usedCards / cardsAllocated;
    }

    /** A card that computes: gpuUtil at least {@link #IDLE_BELOW_PERCENT}; false without a reading. */
    public static boolean computing(double gpuUtil) {
        return !Double.isNaN(gpuUtil) && gpuUtil >= IDLE_BELOW_PERCENT;
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

    /** The frame whose arrival derives a value: card samples, a task's app frames, or a queue's sched frames. */
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
