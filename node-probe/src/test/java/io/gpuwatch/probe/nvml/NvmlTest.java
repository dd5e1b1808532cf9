package io.gpuwatch.probe.nvml;

import com.sun.jna.Native;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static io.gpuwatch.probe.nvml.Scripts.TWO_CARDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Opening NVML and the typed errors of the wrapper. */
class NvmlTest {
    @TempDir
    Path dir;

    @Test
    void libraryThatCannotBeLoadedIsAnErrorNamingThePath() {
        String missing = dir.resolve("no-such-dir/libnvidia-ml.so.1").toString();

        NvmlError e = Nvml.open(missing).error();

        assertEquals(NvmlReturn.LIBRARY_NOT_FOUND, e.code());
        assertTrue(e.message().contains("cannot load NVML from '" + missing + "'"), e.message());
    }

    @Test
    void probeOverAMissingLibraryIsAnErrorValueToo() {
        NvmlError e = NvmlProbe.open("/nonexistent/libnvidia-ml.so.1", () -> 0L, NvmlCollector.UNATTRIBUTED, 100)
                .error();

        assertEquals(NvmlReturn.LIBRARY_NOT_FOUND, e.code());
        assertTrue(e.message().contains("/nonexistent/libnvidia-ml.so.1"), e.message());
    }

    @Test
    void initFailureCarriesNvmlsCodeTextAndTheLibrary() {
        FakeNvml.load(dir, TWO_CARDS + "fail nvmlInit_v2 * DRIVER_NOT_LOADED\n");

        NvmlError e = Nvml.open(FakeNvml.LIBRARY).error();

        assertEquals(new NvmlError(NvmlReturn.DRIVER_NOT_LOADED, "nvmlInit_v2",
                "Driver Not Loaded, with NVML from '" + FakeNvml.LIBRARY + "'"), e);
        assertEquals("nvmlInit_v2: NVML_ERROR_DRIVER_NOT_LOADED (Driver Not Loaded, with NVML from '"
                + FakeNvml.LIBRARY + "')", e.toString());
    }

    @Test
    void returnCodeNewerThanTheEnumReadsAsUnknownWithItsNumber() {
        FakeNvml.load(dir, TWO_CARDS + "fail nvmlDeviceGetPowerUsage 0 31\n");
        Nvml nvml = ((NvmlResult.Ok<Nvml>) Nvml.open(FakeNvml.LIBRARY)).value();
        try {
            NvmlDevice d = ((NvmlResult.Ok<NvmlDevice>) nvml.device(0)).value();

            NvmlError e = nvml.powerMilliwatts(d).error();

            assertEquals(NvmlReturn.UNKNOWN, e.code());
            assertEquals("Unknown Error (code 31)", e.message());
            assertInstanceOf(NvmlResult.Ok.class, nvml.powerMilliwatts(((NvmlResult.Ok<NvmlDevice>) nvml.device(1)).value()));
        } finally {
            nvml.shutdown();
        }
    }

    @Test
    void nvlinkQueriesReadTheLoadedLibrarysLinksCountersAndErrors() {
        FakeNvml.load(dir, TWO_CARDS);
        Nvml nvml = ((NvmlResult.Ok<Nvml>) Nvml.open(FakeNvml.LIBRARY)).value();
        try {
            NvmlDevice d = ((NvmlResult.Ok<NvmlDevice>) nvml.device(0)).value();

            assertEquals(NvmlResult.ok(true), nvml.nvlinkActive(d, 1));
            assertEquals(NvmlResult.ok(false), nvml.nvlinkActive(d, 2));
            // the fake adds the link's number to its scripted counter (replay 3, CRC data 7)
            assertEquals(NvmlResult.ok(4L), nvml.nvlinkErrors(d, 1, Nvml.NvlinkCounter.DL_REPLAY));
            assertEquals(NvmlResult.ok(10L), nvml.nvlinkErrors(d, 3, Nvml.NvlinkCounter.DL_CRC_DATA));
            assertEquals(NvmlReturn.INVALID_ARGUMENT, nvml.nvlinkActive(d, 4).error().code());
            assertEquals(new NvmlError(NvmlReturn.INVALID_ARGUMENT, "nvmlDeviceGetNvLinkErrorCounter",
                    "Invalid Argument"), nvml.nvlinkErrors(d, 9, Nvml.NvlinkCounter.DL_RECOVERY).error());
            assertEquals(3, FakeNvml.calls("nvmlDeviceGetNvLinkState", 0));
            assertEquals(3, FakeNvml.calls("nvmlDeviceGetNvLinkErrorCounter", 0));
        } finally {
            nvml.shutdown();
        }
    }

    @Test
    void pollCallsAreDirectMappedIntoOneLibraryOnly() {
        PollCalls proxy = Native.load(FakeNvml.LIBRARY, NvmlLibrary.class);
        assertInstanceOf(DirectPollCalls.class, DirectPollCalls.bind(FakeNvml.LIBRARY, proxy));
        // natives bind once per JVM: another library keeps its proxy
        assertSame(proxy, DirectPollCalls.bind(dir.resolve("other/libnvidia-ml.so.1").toString(), proxy));
    }

    @Test
    void codesKeepNvmlsNumbers() {
        assertEquals(15, NvmlReturn.GPU_IS_LOST.code());
        assertEquals(NvmlReturn.INSUFFICIENT_SIZE, NvmlReturn.of(7));
        assertEquals(NvmlReturn.UNKNOWN, NvmlReturn.of(999));
        assertEquals("NVML_ERROR_NOT_SUPPORTED", NvmlReturn.NOT_SUPPORTED.symbol());
        assertEquals("NVML_SUCCESS", NvmlReturn.SUCCESS.symbol());
    }
}
