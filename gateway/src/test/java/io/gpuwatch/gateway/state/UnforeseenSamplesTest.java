package io.gpuwatch.gateway.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.rules.metric.SeriesSpec;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The samples that move a node's quiet mark, waking the rules that sleep until a window must empty: one that
 * arrives late, one far outside its unit's range, and the first of a series or a card back after a silence of
 * over 30 s; an ordinary next reading leaves it alone.
 */
class UnforeseenSamplesTest {
    private final FleetState fleet = new FleetState();

    UnforeseenSamplesTest() {
        fleet.useSeries(List.of(new SeriesSpec(0, "gpuUtil", Metric.GPU_UTIL, null, 60_000, false),
                new SeriesSpec(1, "pcieLinkWidth", Metric.PCIE_LINK_WIDTH, null, 60_000, false)));
        fleet.hello(new Hello(1, "n1", "boot", "test", null, null, Map.of(),
                List.of(new CardInfo("GPU-1", 0, "H100", null, null, null, null, null))), 0);
    }

    /** A reading read at {@code ts}, arriving at {@code at}; without a width when {@code width} is NaN. */
    private long sample(long ts, long at, double util, double width) {
        MetricValues.Builder v = MetricValues.builder().set(Metric.GPU_UTIL, util);
        if (!Double.isNaN(width)) {
            v.set(Metric.PCIE_LINK_WIDTH, width);
        }
        fleet.sample("n1", new Sample(ts / 1000, ts, List.of(new CardReading("GPU-1", v.build(), List.of()))), at,
                c -> { });
        return fleet.node("n1").quietMark();
    }

    @Test
    void lateOutOfRangeAndResumedSamplesMoveTheMark() {
        long mark = 0;
        for (long t = 1_000; t <= 10_000; t += 1_000) {
            mark = sample(t, t, 50, 16);
        }
        assertEquals(mark, sample(11_000, 11_500, 60, 16), "the next reading, on time");
        assertNotEquals(mark, mark = sample(12_000, 15_000, 60, 16), "read 3 s before it arrived");
        assertNotEquals(mark, mark = sample(13_000, 15_000, 900, 16), "a percentage of 900");
        for (long t = 14_000; t <= 50_000; t += 1_000) {
            // the width goes unread for 37 s while the card keeps reporting
            assertEquals(mark, sample(t, t, 50, Double.NaN), "at " + t);
        }
        assertNotEquals(mark, mark = sample(51_000, 51_000, 50, 16), "the width back after 38 s");
        sample(52_000, 52_000, 50, Double.NaN);
        assertEquals(mark, sample(53_000, 53_000, 50, 16), "back after 2 s: still on its way");
        assertNotEquals(mark, sample(90_000, 90_000, 50, 16), "the card back after 37 s");
    }
}
