package io.gpuwatch.probe.nvml;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * NVML through {@link NvmlLibrary}, the calls every poll makes direct-mapped ({@link DirectPollCalls}), one method
 * per query, each answering a typed value or the {@link NvmlError} NVML returned; a function the loaded library
 * lacks answers {@link NvmlReturn#FUNCTION_NOT_FOUND}. Units are NVML's (mW, mJ, MHz, KB/s, bytes). Thread-safe,
 * as NVML is.
 */
public final class Nvml {
    /** System property naming the library to load instead of {@link #DEFAULT_LIBRARY}. */
    public static final String LIBRARY_PROPERTY = "gpuwatch.nvml.library";
    /** The driver's SONAME; plain {@code libnvidia-ml.so} exists only with development packages. */
    public static final String DEFAULT_LIBRARY = "libnvidia-ml.so.1";

    // UUID and name v2 buffers are 96 bytes, driver and NVML versions 80: one buffer serves all
    private static final int STRING_BUFFER = 96;
    private static final int PROCESS_SPARE = 4;
    private static final int PROCESS_ATTEMPTS = 8;

    /** {@code nvmlClockType_t}. */
    public enum Clock { GRAPHICS, SM, MEM, VIDEO }

    /** {@code nvmlPcieUtilCounter_t}. */
    public enum PcieCounter { TX, RX }

    /** {@code nvmlNvLinkErrorCounter_t}. */
    public enum NvlinkCounter { DL_REPLAY, DL_RECOVERY, DL_CRC_FLIT, DL_CRC_DATA }

    /** Percent of the last sample period in which a kernel ran / memory was read or written. */
    public record Utilization(long gpuPercent, long memoryPercent) {
    }

    /** Frame-buffer memory; {@code includesReserved} tells whether {@code usedBytes} counts the driver's reservation. */
    public record Memory(long totalBytes, long usedBytes, boolean includesReserved) {
    }

    /** The row remapper's state (Ampere and later). */
    public record RemappedRows(long correctable, long uncorrectable, boolean pending, boolean failed) {
    }

    /** A process with a compute or graphics context on a card; {@code usedMemBytes} null when NVML cannot tell. */
    public record Process(long pid, Long usedMemBytes) {
    }

    /** One event out of an event set. */
    record EventRecord(Pointer device, long type, long data) {
    }

    /**
     * Out-parameters reused by one thread's calls: a fresh native buffer per call costs several times the call.
     * Each value is read right after the call that filled it.
     */
    private static final class Scratch {
        final IntByReference[] ints = {new IntByReference(), new IntByReference(), new IntByReference(),
                new IntByReference()};
        final LongByReference ull = new LongByReference();
        final PointerByReference pointer = new PointerByReference();
        final byte[] text = new byte[STRING_BUFFER];
        final NvmlLibrary.PciInfo pci = new NvmlLibrary.PciInfo();
        final NvmlLibrary.Utilization utilization = new NvmlLibrary.Utilization();
        final NvmlLibrary.MemoryV1 memoryV1 = new NvmlLibrary.MemoryV1();
        final NvmlLibrary.MemoryV2 memoryV2 = new NvmlLibrary.MemoryV2();
        final NvmlLibrary.FieldValue field = new NvmlLibrary.FieldValue();
        // the process lists' nvmlProcessInfo_t array, grown as a list needs and kept for the next poll
        com.sun.jna.Memory processes;

        Pointer processes(int count) {
            long bytes = (long) count * NvmlLibrary.ProcessInfo.SIZE;
            if (processes == null || processes.size() < bytes) {
                processes = new com.sun.jna.Memory(bytes);
            }
            return processes;
        }
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private final NvmlLibrary lib;
    // what every poll calls: direct-mapped where they bind to this library, else lib
    private final PollCalls calls;
    private final String library;
    // a driver that lacks a newer version of a query lacks it for every card: ask for the old one straight away
    private volatile boolean memoryV1Only;
    private volatile boolean throttleReasonsOnly;

    private Nvml(NvmlLibrary lib, String library) {
        this.lib = lib;
        this.calls = DirectPollCalls.bind(library, lib);
        this.library = library;
    }

    /** The library named by {@value #LIBRARY_PROPERTY}, else {@value #DEFAULT_LIBRARY}. */
    public static String defaultLibrary() {
        return System.getProperty(LIBRARY_PROPERTY, DEFAULT_LIBRARY);
    }

    /** Loads the library (a SONAME or a path) and initialises NVML; call {@link #shutdown()} once when done. */
    public static NvmlResult<Nvml> open(String library) {
        NvmlLibrary lib;
        try {
            lib = Native.load(library, NvmlLibrary.class);
        } catch (UnsatisfiedLinkError e) {
            return NvmlResult.failed(NvmlReturn.LIBRARY_NOT_FOUND, "dlopen",
                    "cannot load NVML from '" + library + "': " + e.getMessage());
        }
        Nvml nvml = new Nvml(lib, library);
        NvmlResult<Nvml> opened = nvml.call("nvmlInit_v2", lib::nvmlInit_v2, () -> nvml);
        if (opened.error() != null) {
            NvmlError e = opened.error();
            return NvmlResult.failed(e.code(), e.function(), e.message() + ", with NVML from '" + library + "'");
        }
        return opened;
    }

    /** The library this instance was loaded from. */
    public String library() {
        return library;
    }

    /** Releases NVML; no other thread may be inside NVML. */
    public NvmlResult<Void> shutdown() {
        return call("nvmlShutdown", lib::nvmlShutdown, () -> null);
    }

    public NvmlResult<String> driverVersion() {
        byte[] buf = SCRATCH.get().text;
        return call("nvmlSystemGetDriverVersion", () -> lib.nvmlSystemGetDriverVersion(buf, buf.length),
                () -> Native.toString(buf));
    }

    public NvmlResult<String> nvmlVersion() {
        byte[] buf = SCRATCH.get().text;
        return call("nvmlSystemGetNVMLVersion", () -> lib.nvmlSystemGetNVMLVersion(buf, buf.length),
                () -> Native.toString(buf));
    }

    public NvmlResult<Integer> deviceCount() {
        IntByReference count = SCRATCH.get().ints[0];
        return call("nvmlDeviceGetCount_v2", () -> lib.nvmlDeviceGetCount_v2(count), count::getValue);
    }

    public NvmlResult<NvmlDevice> device(int index) {
        PointerByReference handle = SCRATCH.get().pointer;
        return call("nvmlDeviceGetHandleByIndex_v2", () -> lib.nvmlDeviceGetHandleByIndex_v2(index, handle),
                () -> new NvmlDevice(index, handle.getValue()));
    }

    public NvmlResult<String> uuid(NvmlDevice d) {
        byte[] buf = SCRATCH.get().text;
        return call("nvmlDeviceGetUUID", () -> lib.nvmlDeviceGetUUID(d.handle(), buf, buf.length),
                () -> Native.toString(buf));
    }

    public NvmlResult<String> name(NvmlDevice d) {
        byte[] buf = SCRATCH.get().text;
        return call("nvmlDeviceGetName", () -> lib.nvmlDeviceGetName(d.handle(), buf, buf.length),
                () -> Native.toString(buf));
    }

    /** The PCI bus id in NVML's form, e.g. {@code 00000000:1B:00.0}. */
    public NvmlResult<String> pciBusId(NvmlDevice d) {
        NvmlLibrary.PciInfo pci = SCRATCH.get().pci;
        return call("nvmlDeviceGetPciInfo_v3", () -> lib.nvmlDeviceGetPciInfo_v3(d.handle(), pci),
                () -> Native.toString(pci.busId));
    }

    /** Whether MIG is enabled now (a pending change takes effect at the next reset). */
    public NvmlResult<Boolean> migEnabled(NvmlDevice d) {
        IntByReference current = SCRATCH.get().ints[0];
        IntByReference pending = SCRATCH.get().ints[1];
        return call("nvmlDeviceGetMigMode", () -> lib.nvmlDeviceGetMigMode(d.handle(), current, pending),
                () -> current.getValue() == 1);
    }

    public NvmlResult<Utilization> utilization(NvmlDevice d) {
        NvmlLibrary.Utilization u = SCRATCH.get().utilization;
        return call("nvmlDeviceGetUtilizationRates", () -> calls.nvmlDeviceGetUtilizationRates(d.handle(), u),
                () -> new Utilization(Integer.toUnsignedLong(u.gpu), Integer.toUnsignedLong(u.memory)));
    }

    /** {@code nvmlDeviceGetMemoryInfo_v2}, or the v1 query where the driver lacks it. */
    public NvmlResult<Memory> memory(NvmlDevice d) {
        if (!memoryV1Only) {
            NvmlLibrary.MemoryV2 m = SCRATCH.get().memoryV2;
            m.version = NvmlLibrary.MemoryV2.VERSION;
            NvmlResult<Memory> v2 = call("nvmlDeviceGetMemoryInfo_v2",
                    () -> calls.nvmlDeviceGetMemoryInfo_v2(d.handle(), m), () -> new Memory(m.total, m.used, true));
            NvmlError e = v2.error();
            if (e == null || (e.code() != NvmlReturn.FUNCTION_NOT_FOUND
                    && e.code() != NvmlReturn.ARGUMENT_VERSION_MISMATCH)) {
                return v2;
            }
            memoryV1Only = true;
        }
        NvmlLibrary.MemoryV1 m = SCRATCH.get().memoryV1;
        return call("nvmlDeviceGetMemoryInfo", () -> lib.nvmlDeviceGetMemoryInfo(d.handle(), m),
                () -> new Memory(m.total, m.used, false));
    }

    /** The GPU core temperature (sensor 0), °C. */
    public NvmlResult<Long> gpuTemperatureC(NvmlDevice d) {
        IntByReference t = SCRATCH.get().ints[0];
        return call("nvmlDeviceGetTemperature", () -> calls.nvmlDeviceGetTemperature(d.handle(), 0, t),
                () -> Integer.toUnsignedLong(t.getValue()));
    }

    /** One {@code NVML_FI_*} field, whatever its value type, as a double. */
    public NvmlResult<Double> fieldValue(NvmlDevice d, int fieldId) {
        NvmlLibrary.FieldValue value = SCRATCH.get().field;
        value.fieldId = fieldId;
        String function = "nvmlDeviceGetFieldValues";
        return call(function, () -> calls.nvmlDeviceGetFieldValues(d.handle(), 1, value), () -> value)
                .then(v -> v.nvmlReturn == 0 ? NvmlResult.ok(decode(v.valueType, v.value))
                        : failure(v.nvmlReturn, function + "(field " + fieldId + ")"));
    }

    private static double decode(int valueType, long bits) {
        return switch (valueType) {
            case 0 -> Double.longBitsToDouble(bits);
            case 1 -> Integer.toUnsignedLong((int) bits);
            case 5 -> (int) bits;
            case 6 -> bits & 0xFFFF;
            default -> bits; // unsigned long, unsigned long long, signed long long
        };
    }

    public NvmlResult<Long> powerMilliwatts(NvmlDevice d) {
        IntByReference mw = SCRATCH.get().ints[0];
        return call("nvmlDeviceGetPowerUsage", () -> calls.nvmlDeviceGetPowerUsage(d.handle(), mw),
                () -> Integer.toUnsignedLong(mw.getValue()));
    }

    public NvmlResult<Long> enforcedPowerLimitMilliwatts(NvmlDevice d) {
        IntByReference mw = SCRATCH.get().ints[0];
        return call("nvmlDeviceGetEnforcedPowerLimit", () -> lib.nvmlDeviceGetEnforcedPowerLimit(d.handle(), mw),
                () -> Integer.toUnsignedLong(mw.getValue()));
    }

    /** Energy since the driver was loaded, mJ. */
    public NvmlResult<Long> totalEnergyMillijoules(NvmlDevice d) {
        LongByReference mj = SCRATCH.get().ull;
        return call("nvmlDeviceGetTotalEnergyConsumption",
                () -> calls.nvmlDeviceGetTotalEnergyConsumption(d.handle(), mj), mj::getValue);
    }

    public NvmlResult<Long> clockMHz(NvmlDevice d, Clock clock) {
        IntByReference mhz = SCRATCH.get().ints[0];
        return call("nvmlDeviceGetClockInfo", () -> calls.nvmlDeviceGetClockInfo(d.handle(), clock.ordinal(), mhz),
                () -> Integer.toUnsignedLong(mhz.getValue()));
    }

    public NvmlResult<Long> maxClockMHz(NvmlDevice d, Clock clock) {
        IntByReference mhz = SCRATCH.get().ints[0];
        return call("nvmlDeviceGetMaxClockInfo",
                () -> lib.nvmlDeviceGetMaxClockInfo(d.handle(), clock.ordinal(), mhz),
                () -> Integer.toUnsignedLong(mhz.getValue()));
    }

    /** 0..15 for P0..P15, 32 when unknown. */
    public NvmlResult<Integer> performanceState(NvmlDevice d) {
        IntByReference p = SCRATCH.get().ints[0];
        return call("nvmlDeviceGetPerformanceState", () -> calls.nvmlDeviceGetPerformanceState(d.handle(), p),
                p::getValue);
    }

    /** The clock-event (throttle) reason bits; the pre-12.2 name where the driver lacks the new one. */
    public NvmlResult<Long> clocksEventReasons(NvmlDevice d) {
        LongByReference mask = SCRATCH.get().ull;
        if (!throttleReasonsOnly) {
            NvmlResult<Long> r = call("nvmlDeviceGetCurrentClocksEventReasons",
                    () -> calls.nvmlDeviceGetCurrentClocksEventReasons(d.handle(), mask), mask::getValue);
            if (r.error() == null || r.error().code() != NvmlReturn.FUNCTION_NOT_FOUND) {
                return r;
            }
            throttleReasonsOnly = true;
        }
        return call("nvmlDeviceGetCurrentClocksThrottleReasons",
                () -> lib.nvmlDeviceGetCurrentClocksThrottleReasons(d.handle(), mask), mask::getValue);
    }

    /** ECC errors since the driver was loaded (the volatile counter). */
    public NvmlResult<Long> volatileEccErrors(NvmlDevice d, boolean uncorrected) {
        LongByReference n = SCRATCH.get().ull;
        return call("nvmlDeviceGetTotalEccErrors",
                () -> calls.nvmlDeviceGetTotalEccErrors(d.handle(), uncorrected ? 1 : 0, 0, n), n::getValue);
    }

    public NvmlResult<Boolean> retiredPagesPending(NvmlDevice d) {
        IntByReference pending = SCRATCH.get().ints[0];
        return call("nvmlDeviceGetRetiredPagesPendingStatus",
                () -> calls.nvmlDeviceGetRetiredPagesPendingStatus(d.handle(), pending), () -> pending.getValue() != 0);
    }

    public NvmlResult<RemappedRows> remappedRows(NvmlDevice d) {
        IntByReference corr = SCRATCH.get().ints[0];
        IntByReference unc = SCRATCH.get().ints[1];
        IntByReference pending = SCRATCH.get().ints[2];
        IntByReference failed = SCRATCH.get().ints[3];
        return call("nvmlDeviceGetRemappedRows",
                () -> calls.nvmlDeviceGetRemappedRows(d.handle(), corr, unc, pending, failed),
                () -> new RemappedRows(Integer.toUnsignedLong(corr.getValue()), Integer.toUnsignedLong(unc.getValue()),
                        pending.getValue() != 0, failed.getValue() != 0));
    }

    /** PCIe traffic over NVML's 20 ms window, KB/s. */
    public NvmlResult<Long> pcieThroughputKBps(NvmlDevice d, PcieCounter counter) {
        IntByReference kbps = SCRATCH.get().ints[0];
        return call("nvmlDeviceGetPcieThroughput",
                () -> calls.nvmlDeviceGetPcieThroughput(d.handle(), counter.ordinal(), kbps),
                () -> Integer.toUnsignedLong(kbps.getValue()));
    }

    public NvmlResult<Long> pcieReplays(NvmlDevice d) {
        IntByReference n = SCRATCH.get().ints[0];
        return call("nvmlDeviceGetPcieReplayCounter", () -> calls.nvmlDeviceGetPcieReplayCounter(d.handle(), n),
                () -> Integer.toUnsignedLong(n.getValue()));
    }

    public NvmlResult<Long> pcieLinkGeneration(NvmlDevice d) {
        IntByReference gen = SCRATCH.get().ints[0];
        return call("nvmlDeviceGetCurrPcieLinkGeneration",
                () -> calls.nvmlDeviceGetCurrPcieLinkGeneration(d.handle(), gen),
                () -> Integer.toUnsignedLong(gen.getValue()));
    }

    public NvmlResult<Long> pcieLinkWidth(NvmlDevice d) {
        IntByReference width = SCRATCH.get().ints[0];
        return call("nvmlDeviceGetCurrPcieLinkWidth", () -> calls.nvmlDeviceGetCurrPcieLinkWidth(d.handle(), width),
                () -> Integer.toUnsignedLong(width.getValue()));
    }

    public NvmlResult<Boolean> nvlinkActive(NvmlDevice d, int link) {
        IntByReference active = SCRATCH.get().ints[0];
        return call("nvmlDeviceGetNvLinkState", () -> calls.nvmlDeviceGetNvLinkState(d.handle(), link, active),
                () -> active.getValue() != 0);
    }

    public NvmlResult<Long> nvlinkErrors(NvmlDevice d, int link, NvlinkCounter counter) {
        LongByReference n = SCRATCH.get().ull;
        return call("nvmlDeviceGetNvLinkErrorCounter",
                () -> calls.nvmlDeviceGetNvLinkErrorCounter(d.handle(), link, counter.ordinal(), n), n::getValue);
    }

    /** The processes with a compute context on the card; see {@link #processes}. */
    public NvmlResult<List<Process>> computeProcesses(NvmlDevice d) {
        return processes("nvmlDeviceGetComputeRunningProcesses_v3", calls::nvmlDeviceGetComputeRunningProcesses_v3, d);
    }

    /** The processes with a graphics context on the card; see {@link #processes}. */
    public NvmlResult<List<Process>> graphicsProcesses(NvmlDevice d) {
        return processes("nvmlDeviceGetGraphicsRunningProcesses_v3", calls::nvmlDeviceGetGraphicsRunningProcesses_v3,
                d);
    }

    /** A {@code nvmlDevice*RunningProcesses_v3} function: same signature and struct for compute and graphics. */
    @FunctionalInterface
    private interface ProcessQuery {
        int call(Pointer device, IntByReference infoCount, Pointer infos);
    }

    /**
     * One process list of the card: asks for the count, then fills a buffer with room to spare, and asks again with
     * a bigger one while processes start faster than it can keep up.
     */
    private NvmlResult<List<Process>> processes(String function, ProcessQuery query, NvmlDevice d) {
        Scratch scratch = SCRATCH.get();
        IntByReference count = scratch.ints[0];
        count.setValue(0);
        Pointer infos = null;
        for (int attempt = 0; attempt < PROCESS_ATTEMPTS; attempt++) {
            Pointer buffer = infos;
            NvmlResult<Integer> r = call(function, () -> query.call(d.handle(), count, buffer), count::getValue);
            if (r instanceof NvmlResult.Ok<Integer> ok) {
                List<Process> out = new ArrayList<>(ok.value());
                for (int i = 0; i < ok.value(); i++) {
                    long at = (long) i * NvmlLibrary.ProcessInfo.SIZE;
                    long bytes = buffer.getLong(at + NvmlLibrary.ProcessInfo.OFFSET_USED_GPU_MEMORY);
                    // NVML_VALUE_NOT_AVAILABLE is all ones
                    out.add(new Process(Integer.toUnsignedLong(buffer.getInt(at + NvmlLibrary.ProcessInfo.OFFSET_PID)),
                            bytes == -1L ? null : bytes));
                }
                return NvmlResult.ok(out);
            }
            if (r.error().code() != NvmlReturn.INSUFFICIENT_SIZE) {
                return new NvmlResult.Failed<>(r.error());
            }
            int room = count.getValue() + PROCESS_SPARE;
            infos = scratch.processes(room);
            count.setValue(room);
        }
        return failure(NvmlReturn.INSUFFICIENT_SIZE.code(), function + " (" + PROCESS_ATTEMPTS + " attempts)");
    }

    // ---- GPM, for GpmSampler

    NvmlResult<Boolean> gpmSupported(NvmlDevice d) {
        NvmlLibrary.GpmSupport s = new NvmlLibrary.GpmSupport();
        return call("nvmlGpmQueryDeviceSupport", () -> lib.nvmlGpmQueryDeviceSupport(d.handle(), s),
                () -> s.isSupportedDevice != 0);
    }

    NvmlResult<Pointer> gpmSampleAlloc() {
        PointerByReference sample = SCRATCH.get().pointer;
        return call("nvmlGpmSampleAlloc", () -> lib.nvmlGpmSampleAlloc(sample), sample::getValue);
    }

    NvmlResult<Void> gpmSampleGet(NvmlDevice d, Pointer sample) {
        return call("nvmlGpmSampleGet", () -> calls.nvmlGpmSampleGet(d.handle(), sample), () -> null);
    }

    NvmlResult<Void> gpmMetricsGet(Pointer metrics) {
        return call("nvmlGpmMetricsGet", () -> calls.nvmlGpmMetricsGet(metrics), () -> null);
    }

    NvmlResult<Void> gpmSampleFree(Pointer sample) {
        return call("nvmlGpmSampleFree", () -> lib.nvmlGpmSampleFree(sample), () -> null);
    }

    // ---- events, for NvmlEventWaiter

    NvmlResult<Pointer> eventSetCreate() {
        PointerByReference set = SCRATCH.get().pointer;
        return call("nvmlEventSetCreate", () -> lib.nvmlEventSetCreate(set), set::getValue);
    }

    NvmlResult<Long> supportedEventTypes(NvmlDevice d) {
        LongByReference types = SCRATCH.get().ull;
        return call("nvmlDeviceGetSupportedEventTypes", () -> lib.nvmlDeviceGetSupportedEventTypes(d.handle(), types),
                types::getValue);
    }

    NvmlResult<Void> registerEvents(NvmlDevice d, long types, Pointer set) {
        return call("nvmlDeviceRegisterEvents", () -> lib.nvmlDeviceRegisterEvents(d.handle(), types, set), () -> null);
    }

    /** The next event, blocking up to {@code timeoutMs}; {@link NvmlReturn#TIMEOUT} when none came. */
    NvmlResult<EventRecord> eventWait(Pointer set, Pointer data, int timeoutMs) {
        return call("nvmlEventSetWait_v2", () -> calls.nvmlEventSetWait_v2(set, data, timeoutMs),
                () -> new EventRecord(data.getPointer(NvmlLibrary.EventData.OFFSET_DEVICE),
                        data.getLong(NvmlLibrary.EventData.OFFSET_EVENT_TYPE),
                        data.getLong(NvmlLibrary.EventData.OFFSET_EVENT_DATA)));
    }

    NvmlResult<Void> eventSetFree(Pointer set) {
        return call("nvmlEventSetFree", () -> lib.nvmlEventSetFree(set), () -> null);
    }

    // ----

    private <T> NvmlResult<T> call(String function, IntSupplier call, Supplier<T> value) {
        int rc;
        try {
            rc = call.getAsInt();
        } catch (UnsatisfiedLinkError e) {
            return NvmlResult.failed(NvmlReturn.FUNCTION_NOT_FOUND, function, e.getMessage());
        }
        return rc == NvmlReturn.SUCCESS.code() ? NvmlResult.ok(value.get()) : failure(rc, function);
    }

    private <T> NvmlResult<T> failure(int rc, String function) {
        NvmlReturn code = NvmlReturn.of(rc);
        String text = calls.nvmlErrorString(rc);
        return NvmlResult.failed(code, function, code == NvmlReturn.UNKNOWN && rc != 999 ? text + " (code " + rc + ")" : text);
    }
}
