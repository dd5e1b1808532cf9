package io.gpuwatch.gateway.exposition;

import io.gpuwatch.gateway.state.CardSnapshot;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** /metrics/gpus: dcgm-exporter's names, units and label order, gpuwatch's own card series, and what drops out. */
class GpuExpositionTest {
    private static final long GIB = 1L << 30;
    private static final String H100 = "NVIDIA H100 80GB HBM3";

    private static Hello hello(String node, String... uuids) {
        List<CardInfo> cards = new ArrayList<>();
        for (int i = 0; i < uuids.length; i++) {
            cards.add(new CardInfo(uuids[i], i, H100, "00000000:1" + i + ":00.0", 80 * GIB, 700.0, 1980, false));
        }
        return new Hello(1, node, "boot-1", "test", "550.54.15", null, Map.of("zone", "a"), cards);
    }

    private static CardReading busy(String uuid, double util, ProcessInfo... processes) {
        MetricValues v = MetricValues.builder()
                .set(Metric.GPU_UTIL, util).set(Metric.MEM_UTIL, 41).set(Metric.MEM_USED_BYTES, 20 * GIB + 5)
                .set(Metric.TEMP_C, 71).set(Metric.MEM_TEMP_C, 80).set(Metric.POWER_W, 612.4)
                .set(Metric.ENERGY_J, 123456.7).set(Metric.SM_CLOCK_MHZ, 1755).set(Metric.MEM_CLOCK_MHZ, 2619)
                .set(Metric.CLOCK_EVENT_REASONS, 0x44).set(Metric.ECC_CORRECTED_VOLATILE, 3)
                .set(Metric.ECC_UNCORRECTED_VOLATILE, 0).set(Metric.PCIE_REPLAYS, 7).set(Metric.SM_ACTIVE, 0.5)
                .set(Metric.SM_OCCUPANCY, 0.31).set(Metric.TENSOR_ACTIVE, 0.44).set(Metric.DRAM_ACTIVE, 0.58)
                .set(Metric.REMAPPED_ROWS_FAILED, 0).build();
        return new CardReading(uuid, v, List.of(processes));
    }

    private static FleetState fleet() {
        FleetState fleet = new FleetState();
        fleet.hello(hello("gpu-a17", "GPU-0", "GPU-1"), 0);
        fleet.sample("gpu-a17", new Sample(1, 1000, List.of(
                busy("GPU-0", 80, new ProcessInfo(11, GIB, "llm \"70b\"", "ana\\b", "search\nads")),
                busy("GPU-1", 2))), 1000, c -> { });
        return fleet;
    }

    @Test
    void aCardIsWrittenUnderDcgmExporterNamesUnitsAndLabelOrder() {
        String text = GpuExposition.text(fleet().snapshot(1000, 30_000));
        String card0 = "gpu=\"0\",UUID=\"GPU-0\",pci_bus_id=\"00000000:10:00.0\",device=\"nvidia0\",modelName=\""
                + H100 + "\",Hostname=\"gpu-a17\",DCGM_FI_DRIVER_VERSION=\"550.54.15\",task=\"llm \\\"70b\\\"\","
                + "owner=\"ana\\\\b\",business=\"search\\nads\"";
        String card1 = "gpu=\"1\",UUID=\"GPU-1\",pci_bus_id=\"00000000:11:00.0\",device=\"nvidia1\",modelName=\""
                + H100 + "\",Hostname=\"gpu-a17\",DCGM_FI_DRIVER_VERSION=\"550.54.15\"";
        assertTrue(text.contains("# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n"
                + "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
                + "DCGM_FI_DEV_GPU_UTIL{" + card0 + "} 80\n"
                + "DCGM_FI_DEV_GPU_UTIL{" + card1 + "} 2\n"), text);
        // joules to millijoules, bytes to MiB (whole, as DCGM reports them), free from hello's total
        assertTrue(text.contains("\nDCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{" + card1 + "} 123456700\n"), text);
        assertTrue(text.contains("# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"), text);
        assertTrue(text.contains("\nDCGM_FI_DEV_FB_USED{" + card1 + "} 20480\n"), text);
        assertTrue(text.contains("\nDCGM_FI_DEV_FB_FREE{" + card1 + "} 61440\n"), text);
        assertTrue(text.contains("\nDCGM_FI_DEV_POWER_USAGE{" + card1 + "} 612.4\n"), text);
        assertTrue(text.contains("\nDCGM_FI_DEV_CLOCK_THROTTLE_REASONS{" + card1 + "} 68\n"), text);
        assertTrue(text.contains("\nDCGM_FI_PROF_SM_ACTIVE{" + card1 + "} 0.5\n"), text);
        assertTrue(text.contains("\nDCGM_FI_DEV_XID_ERRORS{" + card1 + "} 0\n"), "no XID yet reads 0, as DCGM's");
        // the derived series: card 0 works (ratio 0.5 / 0.8), card 1 runs nothing, so it is not idle either
        assertTrue(text.contains("\ngpuwatch_card_sm_active_of_busy{" + card0 + "} 0.625\n"), text);
        assertTrue(text.contains("\ngpuwatch_card_allocated{" + card0 + "} 1\n"), text);
        assertTrue(text.contains("\ngpuwatch_card_allocated{" + card1 + "} 0\n"), text);
        assertTrue(text.contains("\ngpuwatch_card_idle{" + card1 + "} 0\n"), text);
        assertFalse(text.contains("DCGM_FI_DEV_PCIE_TX_THROUGHPUT"), "a reading the probe did not send is left out");
        assertFalse(text.contains("NVLINK_BANDWIDTH"), "nothing the probe never reports");
    }

    @Test
    void everyFamilyHasOneHelpAndTypeBeforeItsSamplesAndGpuwatchCountersEndInTotal() {
        FleetState fleet = fleet();
        fleet.event("gpu-a17", new Event(2, 1000, "GPU-1", "xid", 79, "fell off the bus", null), 1000);
        String text = GpuExposition.text(fleet.snapshot(1000, 30_000));
        Set<String> seen = new HashSet<>();
        String family = null;
        String type = null;
        for (String line : text.split("\n")) {
            if (line.startsWith("# HELP ")) {
                family = line.split(" ")[2];
                assertTrue(seen.add(family), "one HELP per family: " + family);
            } else if (line.startsWith("# TYPE ")) {
                assertEquals(family, line.split(" ")[2], "TYPE follows its HELP");
                type = line.split(" ")[3];
                if (type.equals("counter") && family.startsWith("gpuwatch_")) {
                    assertTrue(family.endsWith("_total"), family);
                }
            } else {
                assertTrue(line.startsWith(family + "{"), "a sample of the family just opened: " + line);
            }
        }
        assertTrue(seen.containsAll(List.of("DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_MEM_CLOCK", "DCGM_FI_DEV_MEMORY_TEMP",
                "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
                "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL",
                "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_FB_USED",
                "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DEV_ROW_REMAP_FAILURE",
                "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_PROF_SM_OCCUPANCY",
                "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_PROF_DRAM_ACTIVE", "gpuwatch_xid_errors_total")), seen.toString());
    }

    @Test
    void xidsAreCountedPerCodeAndTheLastOneIsDcgmsGauge() {
        FleetState fleet = fleet();
        fleet.event("gpu-a17", new Event(2, 1000, "GPU-1", "xid", 79, "", null), 1000);
        fleet.event("gpu-a17", new Event(3, 1000, "GPU-1", "xid", 48, "", null), 1000);
        fleet.event("gpu-a17", new Event(4, 1000, "GPU-1", "xid", 79, "", null), 1000);
        fleet.event("gpu-a17", new Event(5, 1000, "GPU-1", "ecc_uncorrected", null, "", null), 1000);
        String text = GpuExposition.text(fleet.snapshot(1000, 30_000));
        String card1 = "gpu=\"1\",UUID=\"GPU-1\",pci_bus_id=\"00000000:11:00.0\",device=\"nvidia1\",modelName=\""
                + H100 + "\",Hostname=\"gpu-a17\",DCGM_FI_DRIVER_VERSION=\"550.54.15\"";
        assertTrue(text.contains("# TYPE gpuwatch_xid_errors_total counter\n"
                + "gpuwatch_xid_errors_total{code=\"79\"," + card1 + "} 2\n"
                + "gpuwatch_xid_errors_total{code=\"48\"," + card1 + "} 1\n"), text);
        assertTrue(text.contains("\nDCGM_FI_DEV_XID_ERRORS{" + card1 + "} 79\n"), text);
        assertFalse(text.contains("gpuwatch_xid_errors_total{code=\"79\",gpu=\"0\""), "only the card that had it");
    }

    @Test
    void idleTimeAccruesOverIntervalsACardWasAllocatedAndIdle() {
        FleetState fleet = new FleetState();
        fleet.hello(hello("n1", "GPU-0"), 0);
        ProcessInfo p = new ProcessInfo(1, null, "t", "o", "b");
        fleet.sample("n1", new Sample(1, 1000, List.of(busy("GPU-0", 1, p))), 1000, c -> { });
        fleet.sample("n1", new Sample(2, 6000, List.of(busy("GPU-0", 90, p))), 6000, c -> { });
        fleet.sample("n1", new Sample(3, 8000, List.of(busy("GPU-0", 2, p))), 8000, c -> { });
        CardSnapshot card = fleet.snapshot(8000, 30_000).get(0);
        assertEquals(5.0, card.idleSeconds(), "idle from 1 s to 6 s, busy from 6 s to 8 s");
        assertTrue(GpuExposition.text(List.of(card)).contains("gpuwatch_card_idle{gpu=\"0\""));
    }

    @Test
    void aLostNodesCardsAndACardThatStoppedReportingDropOut() {
        FleetState fleet = fleet();
        fleet.hello(hello("gpu-b02", "GPU-9"), 0);
        fleet.sample("gpu-b02", new Sample(1, 1000, List.of(busy("GPU-9", 50))), 1000, c -> { });
        assertEquals(List.of("GPU-0", "GPU-1", "GPU-9"), uuids(fleet.snapshot(1000, 30_000)));
        fleet.disconnected("gpu-a17");
        assertEquals(List.of("GPU-9"), uuids(fleet.snapshot(2000, 30_000)), "a disconnected node's cards go");
        assertFalse(GpuExposition.text(fleet.snapshot(2000, 30_000)).contains("gpu-a17"));
        assertEquals(List.of(), uuids(fleet.snapshot(31_001, 30_000)), "a reading older than the bound goes");
        fleet.hello(hello("gpu-a17", "GPU-0", "GPU-1"), 40_000);
        assertEquals(List.of(), uuids(fleet.snapshot(40_000, 30_000)), "back, but nothing read since");
        fleet.sample("gpu-a17", new Sample(2, 41_000, List.of(busy("GPU-1", 3))), 41_000, c -> { });
        assertEquals(List.of("GPU-1"), uuids(fleet.snapshot(41_000, 30_000)));
    }

    @Test
    void everyCardMetricLeadsTheProtocolsListSoACardKeepsThemAll() {
        boolean others = false;
        for (Metric m : Metric.values()) {
            others |= m.source() != Metric.Source.CARD;
            assertFalse(others && m.source() == Metric.Source.CARD, m + " comes after a metric of another frame");
        }
    }

    @Test
    void aLargeExpositionEncodedChunkByChunkIsTheSameText() throws Exception {
        FleetState fleet = new FleetState();
        for (int n = 0; n < 40; n++) {
            fleet.hello(hello("n" + n, "GPU-" + n + "-0", "GPU-" + n + "-1", "GPU-" + n + "-2"), 0);
            fleet.sample("n" + n, new Sample(1, 1000, List.of(busy("GPU-" + n + "-0", 80), busy("GPU-" + n + "-1", 7,
                    new ProcessInfo(1, null, "t" + n, "o", "b")), busy("GPU-" + n + "-2", 0))), 1000, c -> { });
        }
        List<CardSnapshot> cards = fleet.snapshot(1000, 30_000);
        String text = GpuExposition.text(cards);
        assertTrue(text.length() > 3 * TextFormat.CHUNK_CHARS, "spans several chunks: " + text.length());
        assertEquals(text, new String(GpuExposition.encode(cards, false).body(), StandardCharsets.UTF_8));
        Encoding z = GpuExposition.encode(cards, true);
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(z.body()))) {
            assertEquals(text, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    private static List<String> uuids(List<CardSnapshot> cards) {
        return cards.stream().map(CardSnapshot::uuid).toList();
    }
}
