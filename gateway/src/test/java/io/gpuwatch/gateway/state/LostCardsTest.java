package io.gpuwatch.gateway.state;

import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.Hello;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** lostCards: a card the node listed in this boot and lists no longer, until it is back or the node reboots. */
class LostCardsTest {
    private static Hello hello(String boot, String... uuids) {
        return new Hello(1, "n1", boot, "test", null, null, Map.of(), java.util.Arrays.stream(uuids)
                .map(u -> new CardInfo(u, 0, "a", null, null, null, null, null)).toList());
    }

    @Test
    void aCardLeavingTheListIsLostUntilItIsBackOrTheNodeReboots() {
        FleetState fleet = new FleetState();
        fleet.hello(hello("b1", "GPU-1", "GPU-2"), 0);
        assertEquals(0, fleet.node("n1").lostCards());
        fleet.hello(hello("b1", "GPU-1"), 1000);
        assertEquals(1, fleet.node("n1").lostCards());
        assertEquals(List.of("GPU-1"), fleet.node("n1").members().stream().map(c -> c.label("card.uuid")).toList());
        fleet.hello(hello("b1", "GPU-1", "GPU-2"), 2000);
        assertEquals(0, fleet.node("n1").lostCards(), "listed again");
        fleet.hello(hello("b1", "GPU-1"), 3000);
        fleet.hello(hello("b2", "GPU-1"), 4000);
        assertEquals(0, fleet.node("n1").lostCards(), "a reboot starts the list over");
    }
}
