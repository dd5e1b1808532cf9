package io.gpuwatch.gateway.state;

import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sample;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

/**
 * A sample's readings reach their cards through the card found at the same position last time, when the uuid is
 * the same String: these check it never hands a reading to another card, or to one its node has dropped.
 */
class CardByPositionTest {
    private static final long T0 = 1_767_571_200_000L;
    // the same instances every time, as the trace reader hands them out
    private static final String A = "GPU-a";
    private static final String B = "GPU-b";

    private final FleetState fleet = new FleetState();
    private long now = T0;

    private void hello(String... uuids) {
        List<CardInfo> infos = new ArrayList<>();
        for (int i = 0; i < uuids.length; i++) {
            infos.add(new CardInfo(uuids[i], i, "H100", null, null, null, null, null));
        }
        fleet.hello(new Hello(1, "n", "boot", "test", null, null, Map.of(), infos), now);
    }

    private void sample(String... uuids) {
        now += 1_000;
        List<CardReading> readings = new ArrayList<>();
        for (String uuid : uuids) {
            readings.add(new CardReading(uuid, MetricValues.builder().set(Metric.GPU_UTIL, uuid.equals(A) ? 10 : 20)
                    .build(), List.of()));
        }
        fleet.sample("n", new Sample(now, now, readings), now, c -> { });
    }

    private CardState card(String uuid) {
        return fleet.node("n").card(uuid);
    }

    @Test
    void readingsReachTheirCardsWhateverTheOrderAndAfterADrop() {
        hello(A, B);
        CardState a = card(A);
        sample(A, B);
        sample(B, A);
        assertEquals(now, a.latestAt());
        assertEquals(10, a.latest(Metric.GPU_UTIL));
        assertEquals(20, card(B).latest(Metric.GPU_UTIL));
        // dropped by a hello, then named again by a sample at the position it had: a new card, not the old one
        sample(A, B);
        hello(B);
        sample(A, B);
        assertNotSame(a, card(A));
        assertEquals(now, card(A).latestAt());
        assertEquals(T0 + 3_000, a.latestAt());
    }
}
