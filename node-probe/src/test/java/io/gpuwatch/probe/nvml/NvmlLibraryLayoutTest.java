package io.gpuwatch.probe.nvml;

import com.sun.jna.Pointer;
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
    void gpmSamplersRawOffsetsAreTheStructureLayout() {
        NvmlLibrary.GpmMetricsGet get = new NvmlLibrary.GpmMetricsGet();
        assertEquals(NvmlLibrary.GpmMetricsGet.SIZE, get.size());
        get.write(); // JNA fills the array of structures as it writes it
        get.numMetrics = 7;
        get.sample1 = new Pointer(0x1111);
        get.sample2 = new Pointer(0x2222);
        get.metrics[2].metricId = 10;
        get.metrics[2].nvmlReturn = 3;
        get.metrics[2].value = 42.5;
        get.write();
        Pointer raw = get.getPointer();
        assertEquals(1, raw.getInt(0), "version");
        assertEquals(7, raw.getInt(NvmlLibrary.GpmMetricsGet.OFFSET_NUM_METRICS));
        assertEquals(0x1111, Pointer.nativeValue(raw.getPointer(NvmlLibrary.GpmMetricsGet.OFFSET_SAMPLE1)));
        assertEquals(0x2222, Pointer.nativeValue(raw.getPointer(NvmlLibrary.GpmMetricsGet.OFFSET_SAMPLE2)));
        long at = NvmlLibrary.GpmMetricsGet.OFFSET_METRICS + 2L * NvmlLibrary.GpmMetricsGet.METRIC_SIZE;
        assertEquals(10, raw.getInt(at));
        assertEquals(3, raw.getInt(at + NvmlLibrary.GpmMetricsGet.METRIC_OFFSET_RETURN));
        assertEquals(42.5, raw.getDouble(at + NvmlLibrary.GpmMetricsGet.METRIC_OFFSET_VALUE));
    }

    @Test
    void processListsRawOffsetsAreTheStructureLayout() {
        NvmlLibrary.ProcessInfo info = new NvmlLibrary.ProcessInfo();
        info.pid = 4242;
        info.usedGpuMemory = 60_129_542_144L;
        info.write();
        assertEquals(NvmlLibrary.ProcessInfo.SIZE, info.size());
        assertEquals(4242, info.getPointer().getInt(NvmlLibrary.ProcessInfo.OFFSET_PID));
        assertEquals(60_129_542_144L, info.getPointer().getLong(NvmlLibrary.ProcessInfo.OFFSET_USED_GPU_MEMORY));
    }

    @Test
    void eventWaitersRawOffsetsAreTheStructureLayout() {
        NvmlLibrary.EventData data = new NvmlLibrary.EventData();
        data.device = new Pointer(0x3333);
        data.eventType = 0x8;
        data.eventData = 79;
        data.write();
        assertEquals(NvmlLibrary.EventData.SIZE, data.size());
        Pointer raw = data.getPointer();
        assertEquals(0x3333, Pointer.nativeValue(raw.getPointer(NvmlLibrary.EventData.OFFSET_DEVICE)));
        assertEquals(0x8, raw.getLong(NvmlLibrary.EventData.OFFSET_EVENT_TYPE));
        assertEquals(79, raw.getLong(NvmlLibrary.EventData.OFFSET_EVENT_DATA));
    }

    @Test
    void memoryV2VersionIsItsSizeWithVersionTwo() {
        assertEquals(size(new NvmlLibrary.MemoryV2()) | 2 << 24, new NvmlLibrary.MemoryV2().version);
    }
}
