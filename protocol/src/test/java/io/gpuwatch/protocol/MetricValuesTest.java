package io.gpuwatch.protocol;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A built set never changes, though its builder hands over its own array rather than a copy. */
class MetricValuesTest {
    @Test
    void aBuilderUsedAfterBuildingLeavesWhatItBuiltAlone() {
        MetricValues.Builder b = MetricValues.builder().set(Metric.GPU_UTIL, 40);
        MetricValues first = b.build();
        b.set(Metric.GPU_UTIL, 90).set(Metric.TEMP_C, 70);
        MetricValues second = b.build();
        MetricValues third = b.build();
        b.set(Metric.TEMP_C, 10);

        assertEquals(40, first.get(Metric.GPU_UTIL));
        assertTrue(Double.isNaN(first.get(Metric.TEMP_C)));
        assertEquals(90, second.get(Metric.GPU_UTIL));
        assertEquals(70, second.get(Metric.TEMP_C));
        assertEquals(second, third);
        assertEquals(70, third.get(Metric.TEMP_C), "a second build of the same readings is a copy of its own");
    }

    @Test
    void anEmptyBuilderBuildsTheEmptySet() {
        MetricValues none = MetricValues.builder().build();
        assertTrue(none.isEmpty());
        assertEquals(MetricValues.empty(), none);
    }
}
