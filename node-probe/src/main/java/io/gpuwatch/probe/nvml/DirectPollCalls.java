package io.gpuwatch.probe.nvml;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;

/**
 * {@link PollCalls} JNA direct-mapped: a direct call skips the proxy, reflection and argument conversion that an
 * {@link NvmlLibrary} call pays each time. Native methods bind to one library per JVM, and JNA binds all of a
 * class's or fails at the first symbol the library lacks: the functions every supported driver has are one class,
 * those of newer drivers (memory v2, clock-event reasons, process lists v3, GPM) another, and what cannot be bound
 * is left to the proxy, which answers FUNCTION_NOT_FOUND for a missing symbol per call as before.
 */
final class DirectPollCalls implements PollCalls {
    private static String bound;
    private static boolean baseBound;
    private static boolean recentBound;

    private final boolean recent;
    private final PollCalls proxy;

    private DirectPollCalls(boolean recent, PollCalls proxy) {
        this.recent = recent;
        this.proxy = proxy;
    }

    /** Direct calls into this library where they bind, else {@code proxy}, a proxy of the same library. */
    static synchronized PollCalls bind(String library, PollCalls proxy) {
        if (bound == null) {
            bound = library;
            baseBound = register(Base.class, library);
            recentBound = baseBound && register(Recent.class, library);
        }
        return bound.equals(library) && baseBound ? new DirectPollCalls(recentBound, proxy) : proxy;
    }

    private static boolean register(Class<?> calls, String library) {
        try {
            Native.register(calls, NativeLibrary.getInstance(library));
            return true;
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
    }

    /** In NVML since R450 (2020). */
    private static final class Base {
        static native String nvmlErrorString(int result);

        static native int nvmlDeviceGetUtilizationRates(Pointer device, NvmlLibrary.Utilization utilization);

        static native int nvmlDeviceGetTemperature(Pointer device, int sensorType, IntByReference temp);

        static native int nvmlDeviceGetFieldValues(Pointer device, int valuesCount, NvmlLibrary.FieldValue values);

        static native int nvmlDeviceGetPowerUsage(Pointer device, IntByReference power);

        static native int nvmlDeviceGetTotalEnergyConsumption(Pointer device, LongByReference energy);

        static native int nvmlDeviceGetClockInfo(Pointer device, int type, IntByReference clock);

        static native int nvmlDeviceGetPerformanceState(Pointer device, IntByReference pState);

        static native int nvmlDeviceGetTotalEccErrors(Pointer device, int errorType, int counterType,
                                                      LongByReference eccCounts);

        static native int nvmlDeviceGetRetiredPagesPendingStatus(Pointer device, IntByReference isPending);

        static native int nvmlDeviceGetRemappedRows(Pointer device, IntByReference corrRows, IntByReference uncRows,
                                                    IntByReference isPending, IntByReference failureOccurred);

        static native int nvmlDeviceGetPcieThroughput(Pointer device, int counter, IntByReference value);

        static native int nvmlDeviceGetPcieReplayCounter(Pointer device, IntByReference value);

        static native int nvmlDeviceGetCurrPcieLinkGeneration(Pointer device, IntByReference currLinkGen);

        static native int nvmlDeviceGetCurrPcieLinkWidth(Pointer device, IntByReference currLinkWidth);

        static native int nvmlDeviceGetNvLinkState(Pointer device, int link, IntByReference isActive);

        static native int nvmlDeviceGetNvLinkErrorCounter(Pointer device, int link, int counter,
                                                          LongByReference counterValue);

        static native int nvmlEventSetWait_v2(Pointer set, Pointer data, int timeoutms);
    }

    /** Added from R510 (memory v2, process lists v3) to R535 (clock-event reasons). */
    private static final class Recent {
        static native int nvmlDeviceGetMemoryInfo_v2(Pointer device, NvmlLibrary.MemoryV2 memory);

        static native int nvmlDeviceGetCurrentClocksEventReasons(Pointer device, LongByReference clocksEventReasons);

        static native int nvmlDeviceGetComputeRunningProcesses_v3(Pointer device, IntByReference infoCount,
                                                                  Pointer infos);

        static native int nvmlDeviceGetGraphicsRunningProcesses_v3(Pointer device, IntByReference infoCount,
                                                                   Pointer infos);

        static native int nvmlGpmSampleGet(Pointer device, Pointer gpmSample);

        static native int nvmlGpmMetricsGet(Pointer metricsGet);
    }

    @Override
    public String nvmlErrorString(int result) {
        return Base.nvmlErrorString(result);
    }

    @Override
    public int nvmlDeviceGetUtilizationRates(Pointer device, NvmlLibrary.Utilization utilization) {
        return Base.nvmlDeviceGetUtilizationRates(device, utilization);
    }

    @Override
    public int nvmlDeviceGetMemoryInfo_v2(Pointer device, NvmlLibrary.MemoryV2 memory) {
        return recent ? Recent.nvmlDeviceGetMemoryInfo_v2(device, memory)
                : proxy.nvmlDeviceGetMemoryInfo_v2(device, memory);
    }

    @Override
    public int nvmlDeviceGetTemperature(Pointer device, int sensorType, IntByReference temp) {
        return Base.nvmlDeviceGetTemperature(device, sensorType, temp);
    }

    @Override
    public int nvmlDeviceGetFieldValues(Pointer device, int valuesCount, NvmlLibrary.FieldValue values) {
        return Base.nvmlDeviceGetFieldValues(device, valuesCount, values);
    }

    @Override
    public int nvmlDeviceGetPowerUsage(Pointer device, IntByReference power) {
        return Base.nvmlDeviceGetPowerUsage(device, power);
    }

    @Override
    public int nvmlDeviceGetTotalEnergyConsumption(Pointer device, LongByReference energy) {
        return Base.nvmlDeviceGetTotalEnergyConsumption(device, energy);
    }

    @Override
    public int nvmlDeviceGetClockInfo(Pointer device, int type, IntByReference clock) {
        return Base.nvmlDeviceGetClockInfo(device, type, clock);
    }

    @Override
    public int nvmlDeviceGetPerformanceState(Pointer device, IntByReference pState) {
        return Base.nvmlDeviceGetPerformanceState(device, pState);
    }

    @Override
    public int nvmlDeviceGetCurrentClocksEventReasons(Pointer device, LongByReference clocksEventReasons) {
        return recent ? Recent.nvmlDeviceGetCurrentClocksEventReasons(device, clocksEventReasons)
                : proxy.nvmlDeviceGetCurrentClocksEventReasons(device, clocksEventReasons);
    }

    @Override
    public int nvmlDeviceGetTotalEccErrors(Pointer device, int errorType, int counterType, LongByReference eccCounts) {
        return Base.nvmlDeviceGetTotalEccErrors(device, errorType, counterType, eccCounts);
    }

    @Override
    public int nvmlDeviceGetRetiredPagesPendingStatus(Pointer device, IntByReference isPending) {
        return Base.nvmlDeviceGetRetiredPagesPendingStatus(device, isPending);
    }

    @Override
    public int nvmlDeviceGetRemappedRows(Pointer device, IntByReference corrRows, IntByReference uncRows,
                                         IntByReference isPending, IntByReference failureOccurred) {
        return Base.nvmlDeviceGetRemappedRows(device, corrRows, uncRows, isPending, failureOccurred);
    }

    @Override
    public int nvmlDeviceGetPcieThroughput(Pointer device, int counter, IntByReference value) {
        return Base.nvmlDeviceGetPcieThroughput(device, counter, value);
    }

    @Override
    public int nvmlDeviceGetPcieReplayCounter(Pointer device, IntByReference value) {
        return Base.nvmlDeviceGetPcieReplayCounter(device, value);
    }

    @Override
    public int nvmlDeviceGetCurrPcieLinkGeneration(Pointer device, IntByReference currLinkGen) {
        return Base.nvmlDeviceGetCurrPcieLinkGeneration(device, currLinkGen);
    }

    @Override
    public int nvmlDeviceGetCurrPcieLinkWidth(Pointer device, IntByReference currLinkWidth) {
        return Base.nvmlDeviceGetCurrPcieLinkWidth(device, currLinkWidth);
    }

    @Override
    public int nvmlDeviceGetNvLinkState(Pointer device, int link, IntByReference isActive) {
        return Base.nvmlDeviceGetNvLinkState(device, link, isActive);
    }

    @Override
    public int nvmlDeviceGetNvLinkErrorCounter(Pointer device, int link, int counter, LongByReference counterValue) {
        return Base.nvmlDeviceGetNvLinkErrorCounter(device, link, counter, counterValue);
    }

    @Override
    public int nvmlDeviceGetComputeRunningProcesses_v3(Pointer device, IntByReference infoCount, Pointer infos) {
        return recent ? Recent.nvmlDeviceGetComputeRunningProcesses_v3(device, infoCount, infos)
                : proxy.nvmlDeviceGetComputeRunningProcesses_v3(device, infoCount, infos);
    }

    @Override
    public int nvmlDeviceGetGraphicsRunningProcesses_v3(Pointer device, IntByReference infoCount, Pointer infos) {
        return recent ? Recent.nvmlDeviceGetGraphicsRunningProcesses_v3(device, infoCount, infos)
                : proxy.nvmlDeviceGetGraphicsRunningProcesses_v3(device, infoCount, infos);
    }

    @Override
    public int nvmlGpmSampleGet(Pointer device, Pointer gpmSample) {
        return recent ? Recent.nvmlGpmSampleGet(device, gpmSample) : proxy.nvmlGpmSampleGet(device, gpmSample);
    }

    @Override
    public int nvmlGpmMetricsGet(Pointer metricsGet) {
        return recent ? Recent.nvmlGpmMetricsGet(metricsGet) : proxy.nvmlGpmMetricsGet(metricsGet);
    }

    @Override
    public int nvmlEventSetWait_v2(Pointer set, Pointer data, int timeoutms) {
        return Base.nvmlEventSetWait_v2(set, data, timeoutms);
    }
}
