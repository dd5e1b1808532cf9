package io.gpuwatch.rules.scope;

import java.util.Arrays;

/**
 * What a condition reads of its instance, for {@link ScopeView#changeMark}: the series by id, whether its events,
 * and the shortest window it reads them over ({@link Series#LOOKBACK_MS} for a latest reading). The engine lets a
 * condition that cannot turn true by time alone sleep until one of these changes, provided each series' newest
 * sample was younger than {@code freshMs} when it fell asleep: a reading equal to one still inside every window
 * adds nothing, but one that returns after the window emptied does.
 */
public record Reads(int[] series, boolean events, long freshMs) {
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
        return o instanceof Reads r && events == r.events && freshMs == r.freshMs && Arrays.equals(series, r.series);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(series) + Boolean.hashCode(events)) + Long.hashCode(freshMs);
    }

    @Override
    public String toString() {
        return "Reads[series=" + Arrays.toString(series) + ", events=" + events + ", freshMs=" + freshMs + "]";
    }
}
