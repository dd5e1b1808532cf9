package io.gpuwatch.probe.nvml;

import com.sun.jna.Structure;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The JNA structures have the sizes gcc gives the C structs on x86_64 (docs: shared/reference/nvml.md §4). */
class NvmlLibraryLayoutTest {
    private static int size(Structure s) {
        return s.size();
    }

    @Test
    void structuresHaveTheSizesOfTheCStructs() {
        assertEquals(68, size(new NvmlLibrary.PciInfo()));
        assertEquals(8, size(new NvmlLibrary.Utilization()));
        assertEquals(24, size(new NvmlLibrary.MemoryV1()));
        assertEquals(40, size(new NvmlLibrary.MemoryV2()));
        assertEquals(40, size(new NvmlLibrary.FieldValue()));
        assertEquals(24, size(new NvmlLibrary.ProcessInfo()));
        assertEquals(8, size(new NvmlLibrary.GpmSupport()));
        assertEquals(40, size(new NvmlLibrary.GpmMetric()));
        assertEquals(24 + 333 * 40, size(new NvmlLibrary.GpmMetricsGet()));
        assertEquals(32, size(new NvmlLibrary.EventData()));
    }

    @Test
    void memoryV2VersionIsItsSizeWithVersionTwo() {
        assertEquals(size(new NvmlLibrary.MemoryV2()) | 2 << 24, new NvmlLibrary.MemoryV2().version);
    }
}
