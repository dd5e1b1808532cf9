package io.gpuwatch.rules.metric;

import io.gpuwatch.protocol.Metric;

/**
 * A series some loaded rule reads, with the id rules address it by. Raw series have a {@code metric} and no
 * {@code derivation}; derived series have a {@code derivation} and no {@code metric}. {@code windowMs} is the
 * longest window any rule asks of it; 0 means rules read only its latest value. {@code transitions} is true when
 * a rule reads how the samples follow each other ({@code delta}, {@code resets}, {@code changes}), which a
 * window must then keep beyond its fine tier too. {@code source} says which frames feed the series: a raw one its
 * metric's frames; a derived one card samples ({@code CARD}) or a task's app frames ({@code APP}), right after the
 * raw series of the same frame were appended. {@code range} is what the unit of the metric (raw or derived)
 * promises its samples; a sample outside it wakes the rules that sleep on a mean.
 */
public record SeriesSpec(int id, String name, Metric metric, SampleDerivation derivation, Metric.Source source,
                         long windowMs, boolean transitions, UnitRange range) {
    public SeriesSpec {
        if (metric != null && metric.source() != source) {
            throw new IllegalArgumentException("series " + name + " of " + metric.source() + " metric given " + source);
        }
    }

    /** A raw series of {@code metric}, in its unit's range, or a series derived per card sample, in any range. */
    public SeriesSpec(int id, String name, Metric metric, SampleDerivation derivation, long windowMs,
                      boolean transitions) {
        this(id, name, metric, derivation, metric != null ? metric.source() : Metric.Source.CARD, windowMs,
                transitions, metric != null ? UnitRange.of(metric.kind(), metric.unit()) : UnitRange.ANY);
    }
}
