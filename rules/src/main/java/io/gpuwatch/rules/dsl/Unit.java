package io.gpuwatch.rules.dsl;

import java.util.Map;

/** The unit suffixes of number literals: durations become milliseconds, sizes bytes. */
enum Unit {
    NONE, DURATION, SIZE, RATE;

    static final String DURATIONS = "ms s m h d";
    static final String SIZES = "B kB KB MB GB TB KiB MiB GiB TiB";

    private static final Map<String, Double> DURATION_MS = Map.of(
            "ms", 1.0, "s", 1_000.0, "m", 60_000.0, "h", 3_600_000.0, "d", 86_400_000.0);
    private static final Map<String, Double> SIZE_BYTES = Map.ofEntries(
            Map.entry("B", 1.0), Map.entry("kB", 1e3), Map.entry("KB", 1e3), Map.entry("MB", 1e6),
            Map.entry("GB", 1e9), Map.entry("TB", 1e12), Map.entry("KiB", 1024.0),
            Map.entry("MiB", 1024.0 * 1024), Map.entry("GiB", 1024.0 * 1024 * 1024),
            Map.entry("TiB", 1024.0 * 1024 * 1024 * 1024));

    /** Milliseconds per unit of a duration suffix, or null. */
    static Double durationFactor(String suffix) {
        return DURATION_MS.get(suffix);
    }

    /** Bytes per unit of a size suffix, or null. */
    static Double sizeFactor(String suffix) {
        return SIZE_BYTES.get(suffix);
    }

    /** A duration in the largest unit that divides it, as rule files write it. */
    static String formatDuration(long ms) {
        if (ms == 0) {
            return "0s";
        }
        if (ms % 86_400_000L == 0) {
            return ms / 86_400_000L + "d";
        }
        if (ms % 3_600_000L == 0) {
            return ms / 3_600_000L + "h";
        }
        if (ms % 60_000L == 0) {
            return ms / 60_000L + "m";
        }
        if (ms % 1_000L == 0) {
            return ms / 1_000L + "s";
        }
        return ms + "ms";
    }
}
