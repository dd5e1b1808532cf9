package io.gpuwatch.probe.nvml;

import io.gpuwatch.probe.attribution.ProcessAttributor;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static io.gpuwatch.probe.nvml.Scripts.TWO_CARDS;
import static io.gpuwatch.probe.nvml.Scripts.UUID_0;
import static io.gpuwatch.probe.nvml.Scripts.UUID_1;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The collector over the real JNA binding and the scripted fake library. */
class NvmlCollectorTest {
    private static final long T0 = 1_764_700_000_000L;

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(T0);
    private Nvml nvml;
    private NvmlCollector collector;

    private NvmlCollector open(String script) {
        return open(script, NvmlCollector.UNATTRIBUTED);
    }

    private NvmlCollector open(String script, ProcessAttributor attributor) {
        FakeNvml.load(dir, script);
        nvml = ((NvmlResult.Ok<Nvml>) Nvml.open(FakeNvml.LIBRARY)).value();
        collector = ((NvmlResult.Ok<NvmlCollector>) NvmlCollector.open(nvml, clock::get, attributor)).value();
        return collector;
    }

    @AfterEach
    void close() {
        if (collector != null) {
            collector.close();
        }
        if (nvml != null) {
            nvml.shutdown();
        }
    }

    private static CardReading card(NvmlCollector.Poll poll, int i) {
        return poll.sample().cards().get(i);
    }

    /** The next poll, one step of the script later. */
    private NvmlCollector.Poll nextPoll() {
        FakeNvml.step();
        clock.addAndGet(1000);
        return collector.poll();
    }

    @Test
    void helloListsEachCardWithItsStaticFacts() {
        Hello hello = open(TWO_CARDS).hello("gpu-a17", "5b2f0c1e-0000-4000-8000-000000000001", "gpuwatch-probe/0.1.0",
                Map.of("rack", "r12"));

        assertEquals("580.95.05", hello.driver());
        assertEquals("13.580.95.05", hello.nvml());
        assertEquals("gpu-a17", hello.node());
        assertEquals(List.of(
                new CardInfo(UUID_0, 0, "NVIDIA H100 80GB HBM3", "00000000:1B:00.0", 85_520_809_984L, 700.0, 1980, false),
                new CardInfo(UUID_1, 1, "NVIDIA H200", "00000000:43:00.0", 150_754_820_096L, 612.345, 1830, true)),
                hello.cards());
    }

    @Test
    void everyReadingIsDecodedWithItsUnit() {
        NvmlCollector.Poll first = open(TWO_CARDS).poll();

        assertEquals(List.of(), first.events());
        assertEquals(T0, first.sample().ts());
        MetricValues.Builder h100 = MetricValues.builder()
                .set(Metric.GPU_UTIL, 97).set(Metric.MEM_UTIL, 41)
                .set(Metric.MEM_USED_BYTES, 61_203_283_968L)
                .set(Metric.TEMP_C, 71).set(Metric.MEM_TEMP_C, 80)
                .set(Metric.POWER_W, 612.4).set(Metric.ENERGY_J, 123_456_789.012)
                .set(Metric.SM_CLOCK_MHZ, 1755).set(Metric.MEM_CLOCK_MHZ, 2619).set(Metric.PSTATE, 2)
                .set(Metric.CLOCK_EVENT_REASONS, 0x44)
                .set(Metric.ECC_CORRECTED_VOLATILE, 7).set(Metric.ECC_UNCORRECTED_VOLATILE, 2)
                .set(Metric.RETIRED_PAGES_PENDING, 1)
                .set(Metric.REMAPPED_ROWS_CORRECTABLE, 3).set(Metric.REMAPPED_ROWS_UNCORRECTABLE, 1)
                .set(Metric.REMAPPED_ROWS_PENDING, 1).set(Metric.REMAPPED_ROWS_FAILED, 0)
                .set(Metric.PCIE_TX_KBPS, 120_034).set(Metric.PCIE_RX_KBPS, 98_122).set(Metric.PCIE_REPLAYS, 5)
                .set(Metric.PCIE_LINK_GEN, 5).set(Metric.PCIE_LINK_WIDTH, 16)
                // 4 links; link L reports the scripted counters + L each: 4 * (3 + 1 + 11 + 7) + 4 * (0 + 1 + 2 + 3)
                .set(Metric.NVLINK_ERRORS, 112).set(Metric.NVLINK_LINKS_DOWN, 1);
        assertEquals(new CardReading(UUID_0, h100.build(), List.of(
                new ProcessInfo(4242, 60_129_542_144L, null, null, null),
                new ProcessInfo(5151, null, null, null, null))), card(first, 0));
        MetricValues h200 = MetricValues.builder()
                .set(Metric.GPU_UTIL, 12).set(Metric.MEM_UTIL, 3).set(Metric.MEM_USED_BYTES, 1_611_661_312L)
                .set(Metric.TEMP_C, 34).set(Metric.POWER_W, 98.765).set(Metric.ENERGY_J, 9_876_543.21)
                .set(Metric.SM_CLOCK_MHZ, 345).set(Metric.MEM_CLOCK_MHZ, 1593).set(Metric.PSTATE, 8)
                .set(Metric.CLOCK_EVENT_REASONS, 0x1)
                .set(Metric.ECC_CORRECTED_VOLATILE, 0).set(Metric.ECC_UNCORRECTED_VOLATILE, 0)
                .set(Metric.REMAPPED_ROWS_CORRECTABLE, 0).set(Metric.REMAPPED_ROWS_UNCORRECTABLE, 0)
                .set(Metric.REMAPPED_ROWS_PENDING, 0).set(Metric.REMAPPED_ROWS_FAILED, 0)
                .set(Metric.PCIE_TX_KBPS, 431).set(Metric.PCIE_RX_KBPS, 277).set(Metric.PCIE_REPLAYS, 0)
                .set(Metric.PCIE_LINK_GEN, 4).set(Metric.PCIE_LINK_WIDTH, 8)
                .build();
        assertEquals(new CardReading(UUID_1, h200, List.of()), card(first, 1));
    }

    @Test
    void eachPollReadsTheCurrentValuesAndGpmComparesTwoSamples() {
        NvmlCollector.Poll first = open(TWO_CARDS).poll();
        NvmlCollector.Poll second = nextPoll();

        MetricValues before = card(first, 0).values();
        for (Metric m : List.of(Metric.SM_ACTIVE, Metric.SM_OCCUPANCY, Metric.TENSOR_ACTIVE, Metric.DRAM_ACTIVE)) {
            assertFalse(before.has(m), m + " needs two samples");
        }
        MetricValues now = card(second, 0).values();
        assertEquals(T0 + 1000, second.sample().ts());
        assertEquals(633.15, now.get(Metric.POWER_W));
        assertEquals(123_457_421.562, now.get(Metric.ENERGY_J));
        assertEquals(61_764_272_128L, now.get(Metric.MEM_USED_BYTES));
        assertEquals(0x4, now.get(Metric.CLOCK_EVENT_REASONS));
        // GPM percentages as ratios, from the step of the second sample
        assertEquals(0.625, now.get(Metric.SM_ACTIVE));
        assertEquals(0.3125, now.get(Metric.SM_OCCUPANCY));
        assertEquals(0.44, now.get(Metric.TENSOR_ACTIVE));
        assertEquals(0.58, now.get(Metric.DRAM_ACTIVE));
        assertEquals(2, FakeNvml.calls("nvmlGpmSampleAlloc"));
        assertEquals(1, FakeNvml.calls("nvmlGpmMetricsGet", 0));
    }

    @Test
    void unsupportedReadingIsAbsentAndNeverAskedForAgain() {
        open(TWO_CARDS);
        List<Event> events = new ArrayList<>();
        CardReading h200 = null;
        for (int i = 0; i < 3; i++) {
            NvmlCollector.Poll p = i == 0 ? collector.poll() : nextPoll();
            events.addAll(p.events());
            h200 = card(p, 1);
        }

        assertEquals(List.of(), events, "not supported is not a failure");
        for (Metric m : List.of(Metric.MEM_TEMP_C, Metric.RETIRED_PAGES_PENDING, Metric.NVLINK_ERRORS,
                Metric.NVLINK_LINKS_DOWN, Metric.SM_ACTIVE)) {
            assertFalse(h200.values().has(m), m + " is absent");
        }
        assertEquals(1, FakeNvml.calls("nvmlDeviceGetFieldValues", 1));
        assertEquals(1, FakeNvml.calls("nvmlDeviceGetRetiredPagesPendingStatus", 1));
        assertEquals(1, FakeNvml.calls("nvmlDeviceGetNvLinkState", 1));
        assertEquals(1, FakeNvml.calls("nvmlGpmQueryDeviceSupport", 1));
        assertEquals(3, FakeNvml.calls("nvmlDeviceGetRetiredPagesPendingStatus", 0), "the H100 is still asked");
    }

    @Test
    void lostCardIsReportedOnceAndListedWithItsUuidAloneWhileTheOthersAreStillRead() {
        open(TWO_CARDS + "fail * 1 GPU_IS_LOST 1\n");
        NvmlCollector.Poll before = collector.poll();
        NvmlCollector.Poll lost = nextPoll();
        long asked = FakeNvml.calls("nvmlDeviceGetUtilizationRates", 1);
        NvmlCollector.Poll after = nextPoll();

        assertEquals(List.of(), before.events());
        assertTrue(card(before, 1).values().has(Metric.POWER_W));
        assertEquals(List.of(new Event(0, T0 + 1000, UUID_1, "gpu_lost", null,
                "NVML_ERROR_GPU_IS_LOST: GPU 00000000:43:00.0 is lost (nvmlDeviceGetUtilizationRates)", null)),
                lost.events());
        assertEquals(new CardReading(UUID_1, MetricValues.empty(), List.of()), card(lost, 1));
        assertEquals(new CardReading(UUID_1, MetricValues.empty(), List.of()), card(after, 1));
        assertEquals(List.of(), after.events());
        assertEquals(asked, FakeNvml.calls("nvmlDeviceGetUtilizationRates", 1), "a lost card is not asked again");
        assertEquals(633.15, card(after, 0).values().get(Metric.POWER_W), "the other card is still read");
    }

    @Test
    void failingReadingGivesOneDegradedEventPerEpisode() {
        open(TWO_CARDS + """
                fail nvmlDeviceGetPowerUsage 0 NO_PERMISSION 0 2
                fail nvmlDeviceGetPowerUsage 0 NO_PERMISSION 3
                """);
        List<NvmlCollector.Poll> polls = List.of(collector.poll(), nextPoll(), nextPoll(), nextPoll());

        Event degraded = new Event(0, T0, UUID_0, "probe_degraded", null, "cannot read powerW: nvmlDeviceGetPowerUsage: "
                + "NVML_ERROR_NO_PERMISSION (Insufficient Permissions)", null);
        assertEquals(List.of(degraded), polls.get(0).events());
        assertEquals(List.of(), polls.get(1).events());
        assertEquals(List.of(), polls.get(2).events());
        assertEquals(List.of(new Event(0, T0 + 3000, UUID_0, "probe_degraded", null, degraded.text(), null)),
                polls.get(3).events());
        assertFalse(card(polls.get(1), 0).values().has(Metric.POWER_W));
        assertEquals(633.15, card(polls.get(2), 0).values().get(Metric.POWER_W));
        assertTrue(card(polls.get(3), 0).values().has(Metric.GPU_UTIL), "the card's other readings go on");
        assertEquals(4, FakeNvml.calls("nvmlDeviceGetPowerUsage", 0), "a failing reading is tried every poll");
    }

    @Test
    void processListThatGrowsBetweenCallsIsReadWithBiggerBuffers() {
        StringBuilder script = new StringBuilder(TWO_CARDS)
                .append("card 1 procs 2\ncard 1 procs.grow 5\n");
        for (int i = 0; i < 12; i++) {
            script.append("card 1 proc ").append(30_001 + i).append(' ').append(1_048_576L * (101 + i)).append('\n');
        }
        List<ProcessInfo> processes = card(open(script.toString()).poll(), 1).processes();

        // asked with no buffer (2 running), then room for 6 (7 by then), 11 (12), 16: all 12
        assertEquals(4, FakeNvml.calls("nvmlDeviceGetComputeRunningProcesses_v3", 1));
        assertEquals(12, processes.size());
        for (int i = 0; i < 12; i++) {
            assertEquals(new ProcessInfo(30_001 + i, 1_048_576L * (101 + i), null, null, null), processes.get(i));
        }
    }

    @Test
    void remapFailureIsSentFromTheStepItOccurs() {
        open(TWO_CARDS.replace("card 0 remap.failed 0", "card 0 remap.failed 0 1"));
        NvmlCollector.Poll before = collector.poll();
        NvmlCollector.Poll after = nextPoll();

        assertEquals(0, card(before, 0).values().get(Metric.REMAPPED_ROWS_FAILED));
        assertEquals(1, card(after, 0).values().get(Metric.REMAPPED_ROWS_FAILED));
        assertEquals(0, card(after, 1).values().get(Metric.REMAPPED_ROWS_FAILED));
        assertEquals(2, FakeNvml.calls("nvmlDeviceGetRemappedRows", 0), "one call gives all four readings");
    }

    @Test
    void graphicsProcessesAreListedWithTheComputeOnesOncePerPid() {
        ProcessAttributor attributor = (pid, mem) -> new ProcessInfo(pid, mem, "task-" + pid, null, null);
        NvmlCollector.Poll first = open(TWO_CARDS + """
                card 0 gproc 4242 123
                card 0 gproc 5151 2147483648
                card 0 gproc 6060 1073741824
                card 1 gproc 7070 -1
                """, attributor).poll();

        assertEquals(List.of(
                // in both lists: the compute entry's memory, not the sum
                new ProcessInfo(4242, 60_129_542_144L, "task-4242", null, null),
                // in both lists, the compute entry without memory: the graphics one says how much
                new ProcessInfo(5151, 2_147_483_648L, "task-5151", null, null),
                new ProcessInfo(6060, 1_073_741_824L, "task-6060", null, null)), card(first, 0).processes());
        assertEquals(List.of(new ProcessInfo(7070, null, "task-7070", null, null)), card(first, 1).processes(),
                "a card held only by a graphics context is not unallocated");
        // count, then fill, per card with graphics processes
        assertEquals(2, FakeNvml.calls("nvmlDeviceGetGraphicsRunningProcesses_v3", 0));
        assertEquals(List.of(), first.events());
    }

    @Test
    void eitherProcessListGoesOnWhenTheOtherCannotBeRead() {
        open(TWO_CARDS + """
                card 1 gproc 7070 -1
                card 1 proc 8080 4096
                fail nvmlDeviceGetGraphicsRunningProcesses_v3 0 FUNCTION_NOT_FOUND
                fail nvmlDeviceGetComputeRunningProcesses_v3 1 NO_PERMISSION
                """);
        NvmlCollector.Poll first = collector.poll();
        NvmlCollector.Poll second = nextPoll();

        assertEquals(List.of(new ProcessInfo(4242, 60_129_542_144L, null, null, null),
                new ProcessInfo(5151, null, null, null, null)), card(second, 0).processes());
        assertEquals(1, FakeNvml.calls("nvmlDeviceGetGraphicsRunningProcesses_v3", 0), "a missing function is not asked again");
        assertEquals(List.of(new ProcessInfo(7070, null, null, null, null)), card(second, 1).processes());
        assertEquals(List.of(new Event(0, T0, UUID_1, "probe_degraded", null, "cannot read processes (compute): "
                + "nvmlDeviceGetComputeRunningProcesses_v3: NVML_ERROR_NO_PERMISSION (Insufficient Permissions)", null)),
                first.events());
    }

    @Test
    void proxyCallsReadWhatTheDirectMappedOnesRead() throws IOException {
        open(TWO_CARDS + """
                card 0 gproc 5151 2147483648
                card 1 gproc 7070 -1
                """);
        // another name of the same library: its state is shared, but the direct calls stay bound to the first name
        Path alias = Files.createSymbolicLink(dir.resolve("libnvidia-ml-alias.so.1"), Path.of(FakeNvml.LIBRARY));
        Nvml proxied = ((NvmlResult.Ok<Nvml>) Nvml.open(alias.toString())).value();
        NvmlCollector viaProxy = ((NvmlResult.Ok<NvmlCollector>) NvmlCollector.open(proxied, clock::get,
                NvmlCollector.UNATTRIBUTED)).value();
        try {
            assertEquals(collector.poll(), viaProxy.poll());
            FakeNvml.step();
            // the second poll adds GPM, computed between the two samples
            NvmlCollector.Poll direct = collector.poll();
            assertEquals(direct, viaProxy.poll());
            assertTrue(card(direct, 0).values().has(Metric.SM_ACTIVE));
            assertEquals(2, card(direct, 0).processes().size());
        } finally {
            viaProxy.close();
            proxied.shutdown();
        }
    }

    @Test
    void attributorNamesTheOwnerOfEachProcess() {
        ProcessAttributor attributor = (pid, mem) -> new ProcessInfo(pid, mem, "train-llama-" + pid, "team-llm", "chat");
        List<ProcessInfo> processes = card(open(TWO_CARDS, attributor).poll(), 0).processes();

        assertEquals(List.of(new ProcessInfo(4242, 60_129_542_144L, "train-llama-4242", "team-llm", "chat"),
                new ProcessInfo(5151, null, "train-llama-5151", "team-llm", "chat")), processes);
    }

    @Test
    void olderDriverWithoutMemoryInfoV2IsReadThroughV1() {
        open(TWO_CARDS + "fail nvmlDeviceGetMemoryInfo_v2 * FUNCTION_NOT_FOUND\n");
        NvmlCollector.Poll first = collector.poll();
        nextPoll();

        assertEquals(85_520_809_984L, collector.cards().get(0).memTotalBytes());
        // v1 leaves the driver's reservation out of used
        assertEquals(61_203_283_968L - 560_988_160L, card(first, 0).values().get(Metric.MEM_USED_BYTES));
        assertEquals(1, FakeNvml.calls("nvmlDeviceGetMemoryInfo_v2"), "the missing v2 is asked for once");
        assertEquals(6, FakeNvml.calls("nvmlDeviceGetMemoryInfo"), "hello and two polls, two cards");
    }

    @Test
    void olderDriverWithoutClocksEventReasonsIsReadThroughTheThrottleReasons() {
        NvmlCollector.Poll first = open(TWO_CARDS + "fail nvmlDeviceGetCurrentClocksEventReasons * FUNCTION_NOT_FOUND\n")
                .poll();

        assertEquals(0x44, card(first, 0).values().get(Metric.CLOCK_EVENT_REASONS));
        assertEquals(0x1, card(first, 1).values().get(Metric.CLOCK_EVENT_REASONS));
        assertEquals(2, FakeNvml.calls("nvmlDeviceGetCurrentClocksThrottleReasons"));
    }

    @Test
    void unknownPerformanceStateIsAbsent() {
        NvmlCollector.Poll first = open(TWO_CARDS.replace("card 1 pstate 8", "card 1 pstate 32")).poll();

        assertFalse(card(first, 1).values().has(Metric.PSTATE));
        assertEquals(2, card(first, 0).values().get(Metric.PSTATE));
    }

    @Test
    void cardThatCannotBeOpenedIsLeftOutAndSaidSo() {
        open(TWO_CARDS + "fail nvmlDeviceGetHandleByIndex_v2 1 NO_PERMISSION\n");
        NvmlCollector.Poll first = collector.poll();

        assertEquals(List.of(UUID_0), collector.cards().stream().map(CardInfo::uuid).toList());
        assertEquals(List.of(new Event(0, T0, null, "probe_degraded", null, "card 1 is left out: "
                + "nvmlDeviceGetHandleByIndex_v2: NVML_ERROR_NO_PERMISSION (Insufficient Permissions)", null)),
                first.events());
        assertEquals(1, first.sample().cards().size());
    }
}
