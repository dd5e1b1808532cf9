package io.gpuwatch.rules;

import io.gpuwatch.protocol.Metric;

/**
 * A series some loaded rule reads, with the id rules address it by. Raw series have a {@code metric} and no
 * {@code derivation}; derived series have a {@code derivation} and no {@code metric}. {@code windowMs} is the
 * longest window any rule asks of it; 0 means rules read only its latest value. {@code transitions} is true when
 * a rule reads how the samples follow each other ({@code delta}, {@code resets}, {@code changes}), which a
 * window must then keep beyond its fine tier too.
 */
public record SeriesSpec(int id, String name, Metric metric, SampleDerivation derivation, long windowMs,
                         boolean transitions) {
}
