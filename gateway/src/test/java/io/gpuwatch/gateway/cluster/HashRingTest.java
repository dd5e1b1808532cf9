package io.gpuwatch.gateway.cluster;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HashRingTest {
    private static final List<String> THREE = List.of("m-a", "m-b", "m-c");

    @Test
    void everyGatewayNamesTheSameOwnerWhateverOrderItLearnedTheMembersIn() {
        HashRing one = new HashRing(THREE);
        HashRing other = new HashRing(List.of("m-c", "m-a", "m-b"));
        for (int i = 0; i < 500; i++) {
            assertEquals(one.owner("gpu-" + i), other.owner("gpu-" + i));
        }
    }

    @Test
    void aMemberLeavingMovesOnlyItsOwnNodes() {
        HashRing before = new HashRing(THREE);
        HashRing after = new HashRing(List.of("m-a", "m-c"));
        for (int i = 0; i < 2000; i++) {
            String node = "gpu-" + i;
            String was = before.owner(node).orElseThrow();
            if (!was.equals("m-b")) {
                assertEquals(was, after.owner(node).orElseThrow(), node + " stays where it was");
            }
        }
    }

    @Test
    void threeMembersEachOwnAboutAThirdOfTheNodes() {
        HashRing ring = new HashRing(THREE);
        Map<String, Integer> owned = new HashMap<>();
        for (int i = 0; i < 3000; i++) {
            owned.merge(ring.owner("gpu-" + i).orElseThrow(), 1, Integer::sum);
        }
        for (String m : THREE) {
            int n = owned.getOrDefault(m, 0);
            assertTrue(n > 750 && n < 1250, m + " owns " + n + " of 3000: " + owned);
        }
    }

    @Test
    void anEmptyRingOwnsNothing() {
        assertEquals(Optional.empty(), new HashRing(List.of()).owner("gpu-0"));
        assertEquals(Optional.of("m-a"), new HashRing(List.of("m-a")).owner("gpu-0"));
    }
}
