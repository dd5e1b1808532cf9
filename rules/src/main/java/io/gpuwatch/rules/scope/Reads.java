package io.gpuwatch.rules.scope;

import java.util.Arrays;

/**
 * What a condition reads of its instance, for {@link ScopeView#changeMark}: the series by id and whether its
 * events. The engine lets a condition that cannot turn true by time alone sleep until one of these changes.
 */
public record Reads(int[] series, boolean events) {
    public Reads {
        series = series.clone();
    }

    /** The series ids, ascending; the array is shared, so callers must not change it. */
    @Override
    public int[] series() {
        return series;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Reads r && events == r.events && Arrays.equals(series, r.series);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(series) + Boolean.hashCode(events);
    }

    @Override
    public String toString() {
        return "Reads[series=" + Arrays.toString(series) + ", events=" + events + "]";
    }
}
