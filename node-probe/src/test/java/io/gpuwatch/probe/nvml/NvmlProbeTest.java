package io.gpuwatch.probe.nvml;

import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Sample;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static io.gpuwatch.probe.nvml.Scripts.TWO_CARDS;
import static io.gpuwatch.probe.nvml.Scripts.UUID_0;
import static io.gpuwatch.probe.nvml.Scripts.UUID_1;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The probe's two threads over the fake library: polling, and NVML events the moment they come. */
class NvmlProbeTest {
    private static final long T0 = 1_764_700_000_000L;
    private static final long HOUR_MS = 3_600_000;
    private static final int WAIT_MS = 100;

    @TempDir
    Path dir;

    private final BlockingQueue<Frame> frames = new LinkedBlockingQueue<>();
    private final List<String> threads = new ArrayList<>();
    private NvmlProbe probe;

    private NvmlProbe start(String script, long intervalMs) {
        FakeNvml.load(dir, script);
        probe = ((NvmlResult.Ok<NvmlProbe>) NvmlProbe.open(FakeNvml.LIBRARY, () -> T0, NvmlCollector.UNATTRIBUTED,
                WAIT_MS)).value();
        probe.start(intervalMs, frame -> {
            synchronized (threads) {
                threads.add(frame.type() + "@" + Thread.currentThread().getName());
            }
            frames.add(frame);
        });
        return probe;
    }

    @AfterEach
    void close() {
        if (probe != null) {
            probe.close();
        }
    }

    private Frame next() throws InterruptedException {
        Frame f = frames.poll(10, TimeUnit.SECONDS);
        assertNotNull(f, "no frame within 10 s");
        return f;
    }

    private static Event xid(String uuid, int code, String text) {
        return new Event(0, T0, uuid, "xid", code, text, null);
    }

    /** Waits for a condition the fake reports, failing after 10 s. */
    private static void until(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
            Thread.sleep(5);
        }
    }

    @Test
    void eventsArriveTheMomentNvmlHasThemNotAtTheNextPoll() throws InterruptedException {
        start(TWO_CARDS + """
                event 1 1 xid 79
                event 1 0 dbe
                event 1 0 xid 48
                event 2 1 xid 63
                event 2 0 xid 94
                event 2 1 sbe
                event 2 0 clock
                """, HOUR_MS);
        assertInstanceOf(Sample.class, next(), "the first poll goes at once");

        FakeNvml.step();
        assertEquals(xid(UUID_1, 79, "GPU has fallen off the bus"), next());
        assertEquals(new Event(0, T0, UUID_0, "ecc_uncorrected", null, "double-bit ECC error", null), next());
        assertEquals(xid(UUID_0, 48, "Double Bit ECC Error"), next());
        FakeNvml.step();
        assertEquals(xid(UUID_1, 63, "ECC page retirement or row remapping recording event"), next());
        assertEquals(xid(UUID_0, 94, "Contained ECC error"), next());
        assertEquals(new Event(0, T0, UUID_1, "ecc_corrected", null, "single-bit ECC error", null), next());
        assertEquals(new Event(0, T0, UUID_0, "clock_change", null, "clocks changed", null), next());

        assertTrue(frames.isEmpty());
        assertEquals(1, FakeNvml.calls("nvmlDeviceGetUtilizationRates", 0), "one poll in all: the hour has not passed");
        synchronized (threads) {
            assertEquals("sample@gpuwatch-nvml-poll", threads.get(0));
            assertTrue(threads.subList(1, threads.size()).stream().allMatch(t -> t.equals("event@gpuwatch-nvml-events")),
                    threads.toString());
        }
    }

    @Test
    void onlyTheEventTypesACardSupportsAreRegistered() throws InterruptedException {
        start(TWO_CARDS.replace("card 1 events 0x1B", "card 1 events 0x8") + """
                event 1 1 dbe
                event 1 1 xid 13
                """, HOUR_MS);
        next();

        FakeNvml.step();

        assertEquals(xid(UUID_1, 13, "Graphics Engine Exception"), next());
        assertEquals(2, FakeNvml.calls("nvmlDeviceRegisterEvents"));
    }

    @Test
    void cardsWithoutEventsLeaveNoThreadWaiting() throws InterruptedException {
        start(TWO_CARDS.replace("card 0 events 0x1B\n", "").replace("card 1 events 0x1B\n", ""), HOUR_MS);
        assertInstanceOf(Sample.class, next());

        assertEquals(0, FakeNvml.calls("nvmlDeviceRegisterEvents"));
        assertEquals(1, FakeNvml.calls("nvmlEventSetFree"));
        assertEquals(0, FakeNvml.calls("nvmlEventSetWait_v2"));
        assertTrue(frames.isEmpty(), "unsupported events are not a failure");
    }

    @Test
    void failingWaitIsReportedOnceAndWaitingGoesOn() throws InterruptedException {
        start(TWO_CARDS + """
                fail nvmlEventSetWait_v2 * UNKNOWN 1 2
                event 2 0 xid 31
                """, HOUR_MS);
        next();

        FakeNvml.step();
        assertEquals(new Event(0, T0, null, "probe_degraded", null,
                "waiting for NVML events failed: nvmlEventSetWait_v2: NVML_ERROR_UNKNOWN (Unknown Error)", null), next());
        long failed = FakeNvml.calls("nvmlEventSetWait_v2");
        until("two more failed waits", () -> FakeNvml.calls("nvmlEventSetWait_v2") >= failed + 2);
        FakeNvml.step();

        assertEquals(xid(UUID_0, 31, "GPU memory page fault"), next(), "no second report, then the event");
    }

    @Test
    void pollsEveryIntervalUntilClosedThenShutsNvmlDown() throws InterruptedException {
        start(TWO_CARDS, 10);
        for (int i = 0; i < 3; i++) {
            Sample s = assertInstanceOf(Sample.class, next());
            assertEquals(List.of(UUID_0, UUID_1), s.cards().stream().map(c -> c.uuid()).toList());
        }

        probe.close();
        probe.close();

        assertEquals(1, FakeNvml.calls("nvmlShutdown"), "NVML is shut down once");
        assertEquals(1, FakeNvml.calls("nvmlEventSetFree"));
        assertEquals(2, FakeNvml.calls("nvmlGpmSampleFree"));
    }

    @Test
    void newIntervalTakesOverFromTheOldOne() throws InterruptedException {
        start(TWO_CARDS, HOUR_MS);
        next();

        probe.intervalMs(10);

        assertInstanceOf(Sample.class, next());
        assertInstanceOf(Sample.class, next());
    }

    @Test
    void startingTwiceIsRefused() {
        start(TWO_CARDS, HOUR_MS);

        IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> probe.start(HOUR_MS, f -> { }));
        assertFalse(e.getMessage().isEmpty());
    }
}
