package io.gpuwatch.probe.app;

import java.util.Map;

/**
 * One sample line of a metrics exposition.
 *
 * @param labels      label names to values; two samples with the same name and labels are the same series
 * @param timestampMs the optional timestamp, null when absent
 */
public record ExpositionSample(String name, Map<String, String> labels, double value, Long timestampMs) {
    public ExpositionSample {
        labels = Map.copyOf(labels);
    }
}
