package io.gpuwatch.protocol;

/**
 * Something that happened between samples, sent the moment it is seen.
 * {@code uuid} is null for node-wide events; {@code xid} only for kind {@code xid}; {@code pid} when known.
 */
public record Event(long seq, long ts, String uuid, String kind, Integer xid, String text, Long pid)
        implements Frame {
    /** Kinds the gateway knows; producers may send other lower-snake-case kinds. */
    public static final java.util.Set<String> KNOWN_KINDS = java.util.Set.of(
            "xid", "ecc_corrected", "ecc_uncorrected", "clock_change", "power_source", "process_start",
            "process_exit", "oom", "probe_degraded", "gpu_lost");

    @Override
    public String type() {
        return "event";
    }
}
