package io.gpuwatch.gateway.state;

import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sample;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * How far into a node's stream a checkpoint image goes: every frame taken when no sample waits in ingest's
 * queue, else only up to the last sample windowed (an event is taken at once and may overtake queued samples).
 */
class HeldSeqTest {
    private static Hello hello(String boot) {
        return new Hello(1, "n1", boot, "test", null, null, Map.of(),
                List.of(new CardInfo("GPU-1", 0, "a", null, null, null, null, null)));
    }

    private static Sample sample(long seq) {
        return new Sample(seq, 1000, List.of(new CardReading("GPU-1",
                MetricValues.builder().set(Metric.TEMP_C, 60).build(), List.of())));
    }

    private static Event event(long seq) {
        return new Event(seq, 1000, "GPU-1", "xid", 79, "fallen off the bus", null);
    }

    @Test
    void anImageHoldsEveryFrameTakenOnlyWhenNoSampleWaits() {
        FleetState fleet = new FleetState();
        fleet.hello(hello("b1"), 0);
        fleet.sample("n1", sample(1), 1000, c -> { });
        fleet.sample("n1", sample(2), 1000, c -> { });
        // event 5 overtook samples 3 and 4, which still wait to be windowed
        fleet.event("n1", event(5), 1000);
        NodeImage waiting = fleet.image("n1", false, false);
        assertEquals(2, waiting.heldSeq(), "samples 3 and 4 are not in the windows yet");
        assertEquals(5, waiting.eventSeq());
        fleet.sample("n1", sample(3), 1000, c -> { });
        fleet.sample("n1", sample(4), 1000, c -> { });
        fleet.taken("n1", 6);
        assertEquals(6, fleet.image("n1", false, true).heldSeq(), "caught up: every frame taken is held");
        fleet.shed("n1", 1000, 7);
        assertEquals(7, fleet.image("n1", false, false).heldSeq(), "a shed sample has nothing to keep");

        // taken back after a restart: until it is heard or the grace ends, its silence does not count the
        // gateway's absence, and a checkpoint written meanwhile keeps it so (a second restart would count it twice)
        FleetState restarted = new FleetState();
        NodeImage held = fleet.image("n1", false, true);
        restarted.restore(held, 40_000, 61_000 + 15_000);
        restarted.node("n1").at(61_000);
        assertEquals(61_000 - 1000 - 40_000, restarted.node("n1").silentForMs());
        assertEquals(1000 + 40_000, restarted.image("n1", false, true).lastFrameAt(),
                "silence counts from the last frame plus the gateway's absence");
        restarted.node("n1").at(77_000);
        assertEquals(1000, restarted.image("n1", false, true).lastFrameAt(), "after the grace, from the frame");

        fleet.hello(hello("b2"), 2000);
        NodeImage rebooted = fleet.image("n1", false, true);
        assertEquals(0, rebooted.heldSeq(), "a new boot starts a new stream");
        assertEquals(0, rebooted.eventSeq());
    }
}
