package io.gpuwatch.gateway.window;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class WindowShapeTest {
    @Test
    void windowsThatFitTheFineTierGetNoCoarseTier() {
        assertEquals(new WindowShape(1000, 1, 0, 1000), WindowShape.forWindow(0));
        assertEquals(new WindowShape(1000, 61, 0, 61_000), WindowShape.forWindow(60_000));
        assertEquals(new WindowShape(1000, 121, 0, 121_000), WindowShape.forWindow(120_000));
        assertEquals(0, WindowShape.forWindow(120_000).coarseBuckets());
    }

    @Test
    void longerWindowsGetFifteenSecondBucketsBehindTwoMinutesOfSlots() {
        WindowShape quarter = WindowShape.forWindow(900_000);
        assertEquals(new WindowShape(1000, 120, 15_000, 900_000), quarter);
        // 780 older slots span 52 buckets, 53 when they do not start on a bucket boundary.
        assertEquals(53, quarter.coarseBuckets());
        assertEquals(15, quarter.slotsPerBucket());
        assertEquals(1, WindowShape.forWindow(120_001).coarseBuckets());
    }

    @Test
    void veryLongWindowsWidenBucketsInsteadOfAddingThem() {
        WindowShape hour = WindowShape.forWindow(3_600_000);
        assertEquals(67_000, hour.coarseBucketMs());
        assertEquals(53, hour.coarseBuckets());
        WindowShape day = WindowShape.forWindow(86_400_000);
        assertEquals(WindowShape.MAX_SLOTS_PER_BUCKET * 1000L, day.coarseBucketMs());
        assertTrue(day.coarseBuckets() * day.coarseBucketMs() >= day.horizonMs() - day.fineSlots() * 1000L);
    }

    @Test
    void invalidShapesAreRejectedNamingTheField() {
        assertMessage("resolutionMs", () -> new WindowShape(0, 10, 0, 10_000));
        assertMessage("fineSlots", () -> new WindowShape(1000, 0, 0, 10_000));
        assertMessage("horizonMs", () -> new WindowShape(1000, 10, 0, 0));
        assertMessage("exceeds the fine tier", () -> new WindowShape(1000, 10, 0, 11_000));
        assertMessage("multiple of resolutionMs", () -> new WindowShape(1000, 10, 1500, 60_000));
        assertMessage("more than 255 slots", () -> new WindowShape(1000, 10, 256_000, 600_000));
        assertMessage("longestWindowMs", () -> WindowShape.forWindow(-1));
    }

    private static void assertMessage(String part, Runnable build) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build::run);
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }
}
