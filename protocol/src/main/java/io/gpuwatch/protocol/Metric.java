package io.gpuwatch.protocol;

import java.util.HashMap;
import java.util.Map;

/** Every numeric reading the protocol carries, named exactly as its JSON field. */
public enum Metric {
    // card readings, in the `cards[]` of a `sample` frame
    GPU_UTIL("gpuUtil", Source.CARD, Kind.GAUGE, "percent"),
    MEM_UTIL("memUtil", Source.CARD, Kind.GAUGE, "percent"),
    MEM_USED_BYTES("memUsedBytes", Source.CARD, Kind.GAUGE, "bytes"),
    TEMP_C("tempC", Source.CARD, Kind.GAUGE, "celsius"),
    MEM_TEMP_C("memTempC", Source.CARD, Kind.GAUGE, "celsius"),
    POWER_W("powerW", Source.CARD, Kind.GAUGE, "watts"),
    ENERGY_J("energyJ", Source.CARD, Kind.COUNTER, "joules"),
    SM_CLOCK_MHZ("smClockMHz", Source.CARD, Kind.GAUGE, "MHz"),
    MEM_CLOCK_MHZ("memClockMHz", Source.CARD, Kind.GAUGE, "MHz"),
    PSTATE("pstate", Source.CARD, Kind.GAUGE, "P-state number"),
    CLOCK_EVENT_REASONS("clockEventReasons", Source.CARD, Kind.MASK, "NVML clock-event reason bits"),
    ECC_CORRECTED_VOLATILE("eccCorrectedVolatile", Source.CARD, Kind.COUNTER, "errors"),
    ECC_UNCORRECTED_VOLATILE("eccUncorrectedVolatile", Source.CARD, Kind.COUNTER, "errors"),
    RETIRED_PAGES_PENDING("retiredPagesPending", Source.CARD, Kind.FLAG, "0/1"),
    REMAPPED_ROWS_CORRECTABLE("remappedRowsCorrectable", Source.CARD, Kind.GAUGE, "rows"),
    REMAPPED_ROWS_UNCORRECTABLE("remappedRowsUncorrectable", Source.CARD, Kind.GAUGE, "rows"),
    REMAPPED_ROWS_PENDING("remappedRowsPending", Source.CARD, Kind.FLAG, "0/1"),
    REMAPPED_ROWS_FAILED("remappedRowsFailed", Source.CARD, Kind.FLAG, "0/1"),
    PCIE_TX_KBPS("pcieTxKBps", Source.CARD, Kind.GAUGE, "KB/s"),
    PCIE_RX_KBPS("pcieRxKBps", Source.CARD, Kind.GAUGE, "KB/s"),
    PCIE_REPLAYS("pcieReplays", Source.CARD, Kind.COUNTER, "replays"),
    PCIE_LINK_GEN("pcieLinkGen", Source.CARD, Kind.GAUGE, "generation"),
    PCIE_LINK_WIDTH("pcieLinkWidth", Source.CARD, Kind.GAUGE, "lanes"),
    NVLINK_ERRORS("nvlinkErrors", Source.CARD, Kind.COUNTER, "errors"),
    NVLINK_LINKS_DOWN("nvlinkLinksDown", Source.CARD, Kind.GAUGE, "links"),
    SM_ACTIVE("smActive", Source.CARD, Kind.GAUGE, "ratio 0..1"),
    SM_OCCUPANCY("smOccupancy", Source.CARD, Kind.GAUGE, "ratio 0..1"),
    TENSOR_ACTIVE("tensorActive", Source.CARD, Kind.GAUGE, "ratio 0..1"),
    DRAM_ACTIVE("dramActive", Source.CARD, Kind.GAUGE, "ratio 0..1"),

    // application readings of one task, in an `app` frame
    TOKENS_PER_SEC("tokensPerSec", Source.APP, Kind.GAUGE, "tokens/s"),
    SAMPLES_PER_SEC("samplesPerSec", Source.APP, Kind.GAUGE, "samples/s"),
    REQUESTS_PER_SEC("requestsPerSec", Source.APP, Kind.GAUGE, "requests/s"),
    TTFT_P50_MS("ttftP50Ms", Source.APP, Kind.GAUGE, "ms"),
    TTFT_P99_MS("ttftP99Ms", Source.APP, Kind.GAUGE, "ms"),
    LATENCY_P99_MS("latencyP99Ms", Source.APP, Kind.GAUGE, "ms"),
    LATENCY_MEAN_MS("latencyMeanMs", Source.APP, Kind.GAUGE, "ms"),
    QUEUE_LENGTH("queueLength", Source.APP, Kind.GAUGE, "requests"),
    BATCH_SIZE("batchSize", Source.APP, Kind.GAUGE, "requests"),
    OOM_TOTAL("oomTotal", Source.APP, Kind.COUNTER, "OOMs"),
    FAILED_TOTAL("failedTotal", Source.APP, Kind.COUNTER, "requests"),
    CLIENT_ERRORS_TOTAL("clientErrorsTotal", Source.APP, Kind.COUNTER, "requests"),
    OVERLOADED_TOTAL("overloadedTotal", Source.APP, Kind.COUNTER, "requests"),
    RETRIED_TOTAL("retriedTotal", Source.APP, Kind.COUNTER, "requests"),
    KV_CACHE_USAGE("kvCacheUsage", Source.APP, Kind.GAUGE, "ratio 0..1"),

    // scheduling readings of one queue, in a `sched` frame
    PENDING("pending", Source.SCHED, Kind.GAUGE, "tasks"),
    RUNNING("running", Source.SCHED, Kind.GAUGE, "tasks"),
    WAIT_P50_S("waitP50s", Source.SCHED, Kind.GAUGE, "seconds"),
    WAIT_P90_S("waitP90s", Source.SCHED, Kind.GAUGE, "seconds"),
    WAIT_MAX_S("waitMaxS", Source.SCHED, Kind.GAUGE, "seconds"),
    PREEMPTIONS("preemptions", Source.SCHED, Kind.COUNTER, "preemptions"),
    CARDS_ALLOCATED("cardsAllocated", Source.SCHED, Kind.GAUGE, "cards"),
    CARDS_TOTAL("cardsTotal", Source.SCHED, Kind.GAUGE, "cards"),
    FRAGMENTED_CARDS("fragmentedCards", Source.SCHED, Kind.GAUGE, "cards"),
    REQUESTED_MEM_BYTES("requestedMemBytes", Source.SCHED, Kind.GAUGE, "bytes"),
    REQUESTED_CARDS("requestedCards", Source.SCHED, Kind.GAUGE, "cards"),
    DRAINED_CARDS("drainedCards", Source.SCHED, Kind.GAUGE, "cards");

    /** Which frame carries the metric. */
    public enum Source { CARD, APP, SCHED }

    /** How the value behaves over time, which decides the functions that make sense on it. */
    public enum Kind {
        /** A level that goes up and down. */
        GAUGE,
        /** Cumulative since the producer's boot; rates are derived per bootId. */
        COUNTER,
        /** A boolean sent as JSON true/false, held as 1/0. */
        FLAG,
        /** A set of named bits, sent as an array of names (see {@link ClockEventReason}). */
        MASK
    }

    private static final Metric[] ALL = values();
    private static final Map<String, Metric> BY_FIELD = new HashMap<>();

    static {
        for (Metric m : ALL) {
            BY_FIELD.put(m.field, m);
        }
    }

    private final String field;
    private final Source source;
    private final Kind kind;
    private final String unit;

    Metric(String field, Source source, Kind kind, String unit) {
        this.field = field;
        this.source = source;
        this.kind = kind;
        this.unit = unit;
    }

    /** The JSON field name, also the metric's name in rules. */
    public String field() {
        return field;
    }

    public Source source() {
        return source;
    }

    public Kind kind() {
        return kind;
    }

    public String unit() {
        return unit;
    }

    /** The metric with this JSON field name, or null. */
    public static Metric byField(String field) {
        return BY_FIELD.get(field);
    }

    /** Number of metrics, the length of a {@link MetricValues} array. */
    public static int count() {
        return ALL.length;
    }

    /** The metric of this ordinal, without the copy that {@code values()} makes. */
    public static Metric of(int ordinal) {
        return ALL[ordinal];
    }
}
