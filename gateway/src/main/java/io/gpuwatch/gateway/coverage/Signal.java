package io.gpuwatch.gateway.coverage;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.Layer;

import java.util.ArrayList;
import java.util.List;

/**
 * One signal whose arrival coverage counts: every protocol metric (by its ordinal), and a few facts that are no
 * metric but decide what can be monitored (per-process memory, scheduler listings, task attribution). {@code reason}
 * says why it is most likely absent when no member of a group reports it.
 */
public record Signal(int index, String name, Layer layer, String reason) {
    /** Readings listing processes, of which {@link #PROCESS_MEMORY} counts those with a process's memory. */
    static final int PROCESSES_LISTED = Metric.count();
    static final int PROCESS_MEMORY = Metric.count() + 1;
    static final int SCHEDULER_LISTED = Metric.count() + 2;
    static final int TASK_ATTRIBUTED = Metric.count() + 3;
    /** Length of a card's tally. */
    static final int COUNT = Metric.count() + 4;

    static final String NO_APP_SCRAPE = "no application scrape (no app frames from these nodes' tasks)";
    static final String NO_SCHEDULER = "no scheduler adapter (no sched frames at all)";

    private static final List<Signal> METRICS = new ArrayList<>();

    static {
        for (int i = 0; i < Metric.count(); i++) {
            Metric m = Metric.of(i);
            METRICS.add(new Signal(i, m.field(), layerOf(m.source()), reasonOf(m)));
        }
    }

    static final Signal PROCESS_MEMORY_SIGNAL = new Signal(PROCESS_MEMORY, "processMemory", Layer.DEVICE,
            "no per-process memory (processes listed without used memory: a container without the host's PID "
                    + "namespace, vGPU or MIG)");
    static final Signal SCHEDULER_SIGNAL = new Signal(SCHEDULER_LISTED, "schedulerListing", Layer.SCHEDULING,
            "no scheduler lists the tasks on these cards");
    static final Signal ATTRIBUTION_SIGNAL = new Signal(TASK_ATTRIBUTED, "taskAttribution", Layer.BUSINESS,
            "no process on these cards names its task (no attribution: cost and idle time per task are unknown)");

    /** The signal of this index; {@link #PROCESSES_LISTED} is a denominator, no signal. */
    static Signal byIndex(int i) {
        if (i < Metric.count()) {
            return METRICS.get(i);
        }
        for (Signal s : List.of(PROCESS_MEMORY_SIGNAL, SCHEDULER_SIGNAL, ATTRIBUTION_SIGNAL)) {
            if (s.index == i) {
                return s;
            }
        }
        throw new IllegalArgumentException("no signal of index " + i);
    }

    /** The signal of {@code m}. */
    static Signal of(Metric m) {
        return METRICS.get(m.ordinal());
    }

    static Layer layerOf(Metric.Source source) {
        return switch (source) {
            case CARD -> Layer.DEVICE;
            case APP -> Layer.APPLICATION;
            case SCHED -> Layer.SCHEDULING;
        };
    }

    private static String reasonOf(Metric m) {
        return switch (m) {
            case SM_ACTIVE, SM_OCCUPANCY, TENSOR_ACTIVE, DRAM_ACTIVE ->
                    "profiling (GPM or DCGM) unsupported or disabled";
            case NVLINK_ERRORS, NVLINK_LINKS_DOWN -> "no NVLink counters (PCIe-only card, or not exposed)";
            case ECC_CORRECTED_VOLATILE, ECC_UNCORRECTED_VOLATILE, RETIRED_PAGES_PENDING -> "ECC off or not exposed";
            case REMAPPED_ROWS_CORRECTABLE, REMAPPED_ROWS_UNCORRECTABLE, REMAPPED_ROWS_PENDING, REMAPPED_ROWS_FAILED ->
                    "no row remapping (pre-Ampere card, or not exposed)";
            case MEM_TEMP_C -> "no memory temperature sensor exposed";
            case PCIE_TX_KBPS, PCIE_RX_KBPS, PCIE_REPLAYS, PCIE_LINK_GEN, PCIE_LINK_WIDTH ->
                    "PCIe counters not exposed (virtualised card?)";
            case ENERGY_J -> "no energy counter (pre-Volta card, or not exposed)";
            default -> switch (m.source()) {
                case CARD -> "not read by the probe on these cards";
                case APP -> "not exported by the scraped applications";
                case SCHED -> "not reported by the scheduler adapter";
            };
        };
    }
}
