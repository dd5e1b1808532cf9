package io.gpuwatch.probe.nvml;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The NVML functions the probe calls, by their exported (versioned) names and real C signatures
 * (go-nvml {@code nvml.h}, API version 13; see docs/nvml.md). Every function returns an {@code nvmlReturn_t};
 * {@code unsigned int} maps to {@code int}, {@code unsigned long long} to {@code long}, handles to {@link Pointer}.
 * Those every poll calls for every card are declared in {@link PollCalls}.
 */
public interface NvmlLibrary extends Library, PollCalls {
    int nvmlInit_v2();

    int nvmlShutdown();

    int nvmlSystemGetDriverVersion(byte[] version, int length);

    int nvmlSystemGetNVMLVersion(byte[] version, int length);

    int nvmlDeviceGetCount_v2(IntByReference deviceCount);

    int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device);

    int nvmlDeviceGetUUID(Pointer device, byte[] uuid, int length);

    int nvmlDeviceGetName(Pointer device, byte[] name, int length);

    int nvmlDeviceGetPciInfo_v3(Pointer device, PciInfo pci);

    int nvmlDeviceGetMigMode(Pointer device, IntByReference currentMode, IntByReference pendingMode);

    int nvmlDeviceGetMemoryInfo(Pointer device, MemoryV1 memory);

    int nvmlDeviceGetEnforcedPowerLimit(Pointer device, IntByReference limit);

    int nvmlDeviceGetMaxClockInfo(Pointer device, int type, IntByReference clock);

    int nvmlDeviceGetCurrentClocksThrottleReasons(Pointer device, LongByReference clocksThrottleReasons);

    int nvmlGpmQueryDeviceSupport(Pointer device, GpmSupport gpmSupport);

    int nvmlGpmSampleAlloc(PointerByReference gpmSample);

    int nvmlGpmSampleFree(Pointer gpmSample);

    int nvmlEventSetCreate(PointerByReference set);

    int nvmlDeviceGetSupportedEventTypes(Pointer device, LongByReference eventTypes);

    int nvmlDeviceRegisterEvents(Pointer device, long eventTypes, Pointer set);

    int nvmlEventSetFree(Pointer set);

    /** {@code nvmlPciInfo_t} (v3), 68 bytes. */
    @Structure.FieldOrder({"busIdLegacy", "domain", "bus", "device", "pciDeviceId", "pciSubSystemId", "busId"})
    class PciInfo extends Structure {
        public byte[] busIdLegacy = new byte[16];
        public int domain;
        public int bus;
        public int device;
        public int pciDeviceId;
        public int pciSubSystemId;
        public byte[] busId = new byte[32];
    }

    /** {@code nvmlUtilization_t}, 8 bytes: percentages of the last sample period. */
    @Structure.FieldOrder({"gpu", "memory"})
    class Utilization extends Structure {
        public int gpu;
        public int memory;
    }

    /** {@code nvmlMemory_t}, 24 bytes; {@code used} leaves out the driver's reservation. */
    @Structure.FieldOrder({"total", "free", "used"})
    class MemoryV1 extends Structure {
        public long total;
        public long free;
        public long used;
    }

    /** {@code nvmlMemory_v2_t}, 40 bytes (a pad follows {@code version}); {@code used} includes {@code reserved}. */
    @Structure.FieldOrder({"version", "total", "reserved", "free", "used"})
    class MemoryV2 extends Structure {
        /** {@code NVML_STRUCT_VERSION(Memory, 2)} = sizeof | 2 << 24. */
        public static final int VERSION = 0x02000028;

        public int version = VERSION;
        public long total;
        public long reserved;
        public long free;
        public long used;
    }

    /** {@code nvmlFieldValue_t}, 40 bytes; {@code value} holds the union's bits, read by {@code valueType}. */
    @Structure.FieldOrder({"fieldId", "scopeId", "timestamp", "latencyUsec", "valueType", "nvmlReturn", "value"})
    class FieldValue extends Structure {
        public int fieldId;
        public int scopeId;
        public long timestamp;
        public long latencyUsec;
        public int valueType;
        public int nvmlReturn;
        public long value;
    }

    /**
     * {@code nvmlProcessInfo_t} (v2/v3), 24 bytes (a pad follows {@code pid}). The probe reads a list of them as raw
     * memory at these offsets ({@code Nvml}); {@code NvmlLibraryLayoutTest} checks them against this layout.
     */
    @Structure.FieldOrder({"pid", "usedGpuMemory", "gpuInstanceId", "computeInstanceId"})
    class ProcessInfo extends Structure {
        public static final int SIZE = 24;
        public static final int OFFSET_PID = 0;
        public static final int OFFSET_USED_GPU_MEMORY = 8;

        public int pid;
        public long usedGpuMemory;
        public int gpuInstanceId;
        public int computeInstanceId;
    }

    /** {@code nvmlGpmSupport_t}, 8 bytes. */
    @Structure.FieldOrder({"version", "isSupportedDevice"})
    class GpmSupport extends Structure {
        public int version = 1;
        public int isSupportedDevice;
    }

    /** {@code nvmlGpmMetric_t}, 40 bytes: id in, status and value out, then three name pointers. */
    @Structure.FieldOrder({"metricId", "nvmlReturn", "value", "shortName", "longName", "unit"})
    class GpmMetric extends Structure {
        public int metricId;
        public int nvmlReturn;
        public double value;
        public Pointer shortName;
        public Pointer longName;
        public Pointer unit;
    }

    /**
     * {@code nvmlGpmMetricsGet_t}: metrics at offset 24, sized for the largest {@code NVML_GPM_METRIC_MAX} (333).
     * The probe passes it as raw memory at these offsets ({@code GpmSampler}): as 333 JNA structures it held
     * 0.7 MiB of heap for 8 cards. {@code NvmlLibraryLayoutTest} checks the offsets against this layout.
     */
    @Structure.FieldOrder({"version", "numMetrics", "sample1", "sample2", "metrics"})
    class GpmMetricsGet extends Structure {
        public static final int METRIC_MAX = 333;
        public static final int OFFSET_NUM_METRICS = 4;
        public static final int OFFSET_SAMPLE1 = 8;
        public static final int OFFSET_SAMPLE2 = 16;
        public static final int OFFSET_METRICS = 24;
        /** {@code nvmlGpmMetric_t}: {@code metricId} at 0, {@code nvmlReturn} at 4, {@code value} at 8. */
        public static final int METRIC_SIZE = 40;
        public static final int METRIC_OFFSET_RETURN = 4;
        public static final int METRIC_OFFSET_VALUE = 8;
        public static final int SIZE = OFFSET_METRICS + METRIC_MAX * METRIC_SIZE;

        public int version = 1;
        public int numMetrics;
        public Pointer sample1;
        public Pointer sample2;
        public GpmMetric[] metrics = new GpmMetric[METRIC_MAX];
    }

    /**
     * {@code nvmlEventData_t}, 32 bytes; for an XID {@code eventData} is the XID number. The event waiter reads it as
     * raw memory at these offsets; {@code NvmlLibraryLayoutTest} checks them against this layout.
     */
    @Structure.FieldOrder({"device", "eventType", "eventData", "gpuInstanceId", "computeInstanceId"})
    class EventData extends Structure {
        public static final int SIZE = 32;
        public static final int OFFSET_DEVICE = 0;
        public static final int OFFSET_EVENT_TYPE = 8;
        public static final int OFFSET_EVENT_DATA = 16;

        public Pointer device;
        public long eventType;
        public long eventData;
        public int gpuInstanceId;
        public int computeInstanceId;
    }
}
