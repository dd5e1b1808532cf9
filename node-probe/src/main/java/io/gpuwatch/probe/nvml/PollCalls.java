package io.gpuwatch.probe.nvml;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;

/**
 * The NVML functions a poll calls for every card, about 113 calls per card, and the event wait, once a second:
 * {@link DirectPollCalls} answers them where it can bind to the library, {@link NvmlLibrary}'s proxy elsewhere.
 * Signatures as in {@link NvmlLibrary}.
 */
interface PollCalls {
    String nvmlErrorString(int result);

    int nvmlDeviceGetUtilizationRates(Pointer device, NvmlLibrary.Utilization utilization);

    int nvmlDeviceGetMemoryInfo_v2(Pointer device, NvmlLibrary.MemoryV2 memory);

    int nvmlDeviceGetTemperature(Pointer device, int sensorType, IntByReference temp);

    int nvmlDeviceGetFieldValues(Pointer device, int valuesCount, NvmlLibrary.FieldValue values);

    int nvmlDeviceGetPowerUsage(Pointer device, IntByReference power);

    int nvmlDeviceGetTotalEnergyConsumption(Pointer device, LongByReference energy);

    int nvmlDeviceGetClockInfo(Pointer device, int type, IntByReference clock);

    int nvmlDeviceGetPerformanceState(Pointer device, IntByReference pState);

    int nvmlDeviceGetCurrentClocksEventReasons(Pointer device, LongByReference clocksEventReasons);

    int nvmlDeviceGetTotalEccErrors(Pointer device, int errorType, int counterType, LongByReference eccCounts);

    int nvmlDeviceGetRetiredPagesPendingStatus(Pointer device, IntByReference isPending);

    int nvmlDeviceGetRemappedRows(Pointer device, IntByReference corrRows, IntByReference uncRows,
                                  IntByReference isPending, IntByReference failureOccurred);

    int nvmlDeviceGetPcieThroughput(Pointer device, int counter, IntByReference value);

    int nvmlDeviceGetPcieReplayCounter(Pointer device, IntByReference value);

    int nvmlDeviceGetCurrPcieLinkGeneration(Pointer device, IntByReference currLinkGen);

    int nvmlDeviceGetCurrPcieLinkWidth(Pointer device, IntByReference currLinkWidth);

    int nvmlDeviceGetNvLinkState(Pointer device, int link, IntByReference isActive);

    int nvmlDeviceGetNvLinkErrorCounter(Pointer device, int link, int counter, LongByReference counterValue);

    /**
     * {@code infos}: room for {@code infoCount} {@code nvmlProcessInfo_t} ({@link NvmlLibrary.ProcessInfo#SIZE}
     * bytes each); null with {@code infoCount} 0 asks for the count only.
     */
    int nvmlDeviceGetComputeRunningProcesses_v3(Pointer device, IntByReference infoCount, Pointer infos);

    /** As {@link #nvmlDeviceGetComputeRunningProcesses_v3}, for processes with a graphics context. */
    int nvmlDeviceGetGraphicsRunningProcesses_v3(Pointer device, IntByReference infoCount, Pointer infos);

    int nvmlGpmSampleGet(Pointer device, Pointer gpmSample);

    /** {@code metricsGet}: an {@code nvmlGpmMetricsGet_t} laid out as {@link NvmlLibrary.GpmMetricsGet}. */
    int nvmlGpmMetricsGet(Pointer metricsGet);

    /** {@code data}: an {@code nvmlEventData_t} laid out as {@link NvmlLibrary.EventData}. */
    int nvmlEventSetWait_v2(Pointer set, Pointer data, int timeoutms);
}
