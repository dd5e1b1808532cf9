package io.gpuwatch.gateway.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A business's quiet mark, which wakes its sleeping rules: it moves when its cards change or one of them takes a
 * sample no rule could foresee (one for a second it already held), and only then.
 */
class BusinessQuietMarkTest {
    private final FleetState fleet = new FleetState();

    /** GPU-1 works for business ads, GPU-2 for {@code second}. */
    private void sample(long at, long ts, String second) {
        List<CardReading> readings = new ArrayList<>();
        readings.add(reading("GPU-1", "ads"));
        readings.add(reading("GPU-2", second));
        fleet.sample("n1", new Sample(at, ts, readings), at, c -> { });
    }

    private static CardReading reading(String uuid, String business) {
        return new CardReading(uuid, MetricValues.builder().set(Metric.GPU_UTIL, 90).build(),
                List.of(new ProcessInfo(4000, null, business + "-job", "alice", business)));
    }

    private BusinessState ads(long at) {
        return fleet.businesses(at).stream().filter(b -> b.name().equals("ads")).findFirst().orElseThrow();
    }

    @Test
    void itMovesWithItsCardsAndTheirUnforeseenSamplesOnly() {
        List<CardInfo> cards = List.of(new CardInfo("GPU-1", 0, "H100", null, null, null, null, null),
                new CardInfo("GPU-2", 1, "H100", null, null, null, null, null));
        fleet.hello(new Hello(1, "n1", "boot", "test", null, null, Map.of(), cards), 0);
        sample(1_000, 1_000, "web");
        long mark = ads(1_500).quietMark();
        assertEquals(mark, ads(1_500).quietMark(), "asked again at the same instant");

        sample(2_000, 2_000, "web");
        assertEquals(mark, ads(2_500).quietMark(), "a new second's reading is foreseen");

        sample(3_000, 2_000, "web");
        long rewritten = ads(3_500).quietMark();
        assertNotEquals(mark, rewritten, "a reading for a second the card already held");

        // the node's cards stay the same: only the business's do
        sample(4_000, 4_000, "ads");
        assertNotEquals(rewritten, ads(4_500).quietMark(), "a second card joined");
    }
}
