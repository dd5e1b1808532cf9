package io.gpuwatch.gateway.exposition;

import io.gpuwatch.gateway.state.CardSnapshot;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.rules.metric.DerivedMetric;

import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Per-card GPU series under dcgm-exporter's names, types, help texts and labels ({@code gpu}, {@code UUID},
 * {@code pci_bus_id}, {@code device}, {@code modelName}, {@code Hostname}, {@code DCGM_FI_DRIVER_VERSION}, then
 * the card's {@code task}, {@code owner} and {@code business}), in dcgm-exporter's units, so dashboards built for
 * it work unchanged; then gpuwatch's own per-card series. Only what the probe reports is exported, and a card
 * missing a reading has no sample in that family. Runs on any thread: it reads snapshots only.
 */
public final class GpuExposition {
    private static final double MIB = 1024 * 1024;

    /** One exported family: its name, type, help and how a card's value is found (NaN: no sample). */
    record Family(String name, String type, String help, ToDoubleFunction<CardSnapshot> value) {
    }

    /** Every family but the XID counter, in the order written; help texts are dcgm-exporter's where it has one. */
    static final List<Family> FAMILIES = List.of(
            reading("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", Metric.SM_CLOCK_MHZ, 1),
            reading("DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", Metric.MEM_CLOCK_MHZ, 1),
            reading("DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).", Metric.MEM_TEMP_C, 1),
            reading("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", Metric.TEMP_C, 1),
            reading("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", Metric.POWER_W, 1),
            // the probe reports joules, dcgm-exporter millijoules
            reading("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter",
                    "Total energy consumption since boot (in mJ).", Metric.ENERGY_J, 1000),
            reading("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter", "Total number of PCIe retries.",
                    Metric.PCIE_REPLAYS, 1),
            reading("DCGM_FI_DEV_PCIE_TX_THROUGHPUT", "gauge", "PCIe Tx throughput (in KB/s).", Metric.PCIE_TX_KBPS, 1),
            reading("DCGM_FI_DEV_PCIE_RX_THROUGHPUT", "gauge", "PCIe Rx throughput (in KB/s).", Metric.PCIE_RX_KBPS, 1),
            reading("DCGM_FI_DEV_PCIE_LINK_GEN", "gauge", "PCIe current link generation.", Metric.PCIE_LINK_GEN, 1),
            reading("DCGM_FI_DEV_PCIE_LINK_WIDTH", "gauge", "PCIe current link width (lanes).", Metric.PCIE_LINK_WIDTH,
                    1),
            reading("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", Metric.GPU_UTIL, 1),
            reading("DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", Metric.MEM_UTIL, 1),
            new Family("DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.",
                    c -> c.lastXid()),
            new Family("DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).", GpuExposition::fbFree),
            new Family("DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).",
                    c -> Math.floor(c.get(Metric.MEM_USED_BYTES) / MIB)),
            reading("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "counter", "Total number of single-bit volatile ECC errors.",
                    Metric.ECC_CORRECTED_VOLATILE, 1),
            reading("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter", "Total number of double-bit volatile ECC errors.",
                    Metric.ECC_UNCORRECTED_VOLATILE, 1),
            reading("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "counter",
                    "Number of remapped rows for uncorrectable errors", Metric.REMAPPED_ROWS_UNCORRECTABLE, 1),
            reading("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "counter", "Number of remapped rows for correctable errors",
                    Metric.REMAPPED_ROWS_CORRECTABLE, 1),
            reading("DCGM_FI_DEV_ROW_REMAP_FAILURE", "gauge", "Whether remapping of rows has failed",
                    Metric.REMAPPED_ROWS_FAILED, 1),
            reading("DCGM_FI_DEV_ROW_REMAP_PENDING", "gauge", "Whether remapping of rows is pending",
                    Metric.REMAPPED_ROWS_PENDING, 1),
            reading("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "gauge",
                    "Current clock throttle reasons (bit mask of NVML's clock-event reasons).",
                    Metric.CLOCK_EVENT_REASONS, 1),
            reading("DCGM_FI_DEV_PSTATE", "gauge", "Performance state (P-State) 0-15. 0=highest.", Metric.PSTATE, 1),
            reading("DCGM_FI_PROF_SM_ACTIVE", "gauge", "The ratio of cycles an SM has at least 1 warp assigned.",
                    Metric.SM_ACTIVE, 1),
            reading("DCGM_FI_PROF_SM_OCCUPANCY", "gauge", "The ratio of number of warps resident on an SM.",
                    Metric.SM_OCCUPANCY, 1),
            reading("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "gauge", "Ratio of cycles the tensor (HMMA) pipe is active.",
                    Metric.TENSOR_ACTIVE, 1),
            reading("DCGM_FI_PROF_DRAM_ACTIVE", "gauge",
                    "Ratio of cycles the device memory interface is active sending or receiving data.",
                    Metric.DRAM_ACTIVE, 1),
            // what dcgm-exporter has no field for: NVLink errors are summed over links and kinds by the probe
            reading("gpuwatch_card_nvlink_errors_total", "counter",
                    "NVLink CRC, replay and recovery errors, all links together, since driver load.",
                    Metric.NVLINK_ERRORS, 1),
            reading("gpuwatch_card_nvlink_links_down", "gauge", "NVLink links not active.", Metric.NVLINK_LINKS_DOWN,
                    1),
            reading("gpuwatch_card_retired_pages_pending", "gauge", "1 while a page retirement waits for a reset.",
                    Metric.RETIRED_PAGES_PENDING, 1),
            new Family("gpuwatch_card_allocated", "gauge", "1 while a process runs on the card, else 0.",
                    c -> Double.isNaN(c.get(Metric.GPU_UTIL)) ? Double.NaN : c.attribution() == null ? 0 : 1),
            new Family("gpuwatch_card_idle", "gauge", "1 while a process holds the card and gpuUtil is below "
                    + (int) DerivedMetric.IDLE_BELOW_PERCENT + " percent, else 0.",
                    c -> DerivedMetric.idle(c.get(Metric.GPU_UTIL), c.attribution() != null)),
            new Family("gpuwatch_card_idle_seconds_total", "counter", "Seconds the card spent allocated and idle "
                    + "since the gateway first saw it; rate() of it is the idle ratio.", CardSnapshot::idleSeconds),
            new Family("gpuwatch_card_sm_active_of_busy", "gauge", "smActive / (gpuUtil / 100), capped at 1: "
                    + "the share of the time counted busy in which the SMs really worked.",
                    c -> DerivedMetric.smActiveOfBusy(c.get(Metric.GPU_UTIL), c.get(Metric.SM_ACTIVE))));

    static final String XID_FAMILY = "gpuwatch_xid_errors_total";

    private GpuExposition() {
    }

    private static Family reading(String name, String type, String help, Metric metric, double scale) {
        return new Family(name, type, help, c -> c.get(metric) * scale);
    }

    private static double fbFree(CardSnapshot c) {
        Long total = c.info() == null ? null : c.info().memTotalBytes();
        double used = c.get(Metric.MEM_USED_BYTES);
        return total == null ? Double.NaN : Math.floor(total / MIB) - Math.floor(used / MIB);
    }

    /** The label set of a card, in dcgm-exporter's order, attribution last; empty values left out. */
    static String labels(CardSnapshot c) {
        CardInfo info = c.info();
        ProcessInfo p = c.attribution();
        return TextFormat.labels(
                "gpu", info == null ? null : Integer.toString(info.index()),
                "UUID", c.uuid(),
                "pci_bus_id", info == null ? null : info.pciBusId(),
                "device", info == null ? null : "nvidia" + info.index(),
                "modelName", info == null ? null : info.name(),
                "Hostname", c.node(),
                "DCGM_FI_DRIVER_VERSION", c.driver(),
                "task", p == null ? null : p.task(),
                "owner", p == null ? null : p.owner(),
                "business", p == null ? null : p.business());
    }

    /** Writes every family for these cards; a family no card has a value for is left out entirely. */
    public static void write(List<CardSnapshot> cards, TextFormat text) {
        String[] labels = new String[cards.size()];
        for (int i = 0; i < labels.length; i++) {
            labels[i] = labels(cards.get(i));
        }
        for (Family f : FAMILIES) {
            boolean started = false;
            for (int i = 0; i < labels.length; i++) {
                double v = f.value().applyAsDouble(cards.get(i));
                if (Double.isNaN(v)) {
                    continue;
                }
                if (!started) {
                    text.family(f.name(), f.type(), f.help());
                    started = true;
                }
                text.sample(f.name(), labels[i], v);
            }
        }
        boolean started = false;
        for (int i = 0; i < labels.length; i++) {
            CardSnapshot c = cards.get(i);
            for (int k = 0; k < c.xidCodes().length; k++) {
                if (!started) {
                    text.family(XID_FAMILY, "counter", "XID errors the card reported since the gateway started, "
                            + "by code.");
                    started = true;
                }
                text.sample(XID_FAMILY, "code", Integer.toString(c.xidCodes()[k]), labels[i], c.xidCounts()[k]);
            }
        }
    }

    /** The whole exposition of these cards as one string, for tests and small fleets. */
    public static String text(List<CardSnapshot> cards) {
        StringBuilder out = new StringBuilder();
        write(cards, new TextFormat(out));
        return out.toString();
    }

    /** About how many bytes of text {@code cards} cards make: 35 series of about 250 bytes each. */
    public static long textBytes(int cards) {
        return cards * 35L * 250;
    }

    /** The exposition of these cards, encoded as it is written. */
    public static Encoding encode(List<CardSnapshot> cards, boolean gzip) {
        return Encoding.write(gzip, textBytes(cards.size()), text -> write(cards, text));
    }
}
