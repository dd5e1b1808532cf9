package io.gpuwatch.probe.sim;

import io.gpuwatch.probe.scenario.CardModel;
import io.gpuwatch.probe.scenario.XidCatalog;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.ClockEventReason;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;

import java.util.List;
import java.util.random.RandomGenerator;

/**
 * One simulated card. Utilisation follows the workload; power follows utilisation; temperature follows power
 * with a lag; the SM clock boosts under load and drops when the card throttles to hold its slowdown threshold.
 */
final class SimCard {
    /** Memory the driver holds on every card, which nvidia-smi counts as used. */
    static final long RESERVED_BYTES = 535L << 20;
    private static final long OOM_HEADROOM_BYTES = 256L << 20;
    private static final double CONTEXT_W = 12;
    private static final double TEMP_TAU_S = 20;
    private static final double UTIL_TAU_S = 2;
    private static final long WARMUP_MS = 20_000;
    private static final long RESTART_AFTER_OOM_MS = 15_000;
    private static final double COOLING_FAILURE_FACTOR = 1.9;

    final int index;
    final String uuid;
    final String pciBusId;
    private final CardModel model;
    private final RandomGenerator random;
    private final SimNode node;
    private final Workload baseline;
    private final double inletC;
    private final double thermalR;

    private SimProcess proc;
    private boolean lost;
    private boolean coolingFailed;
    private boolean thermalSlowdown;
    private boolean powerCapped;
    private double climbBytesPerMs;

    private double util;
    private double memUtil;
    private double tempC;
    private double memTempC;
    private double powerW;
    private double energyJ;
    private int smClockMHz;
    private double pcieTxKBps;
    private double pcieRxKBps;
    private double smActive;
    private double smOccupancy;
    private double tensorActive;
    private double dramActive;
    private final long eccCorrected;
    private long eccUncorrected;
    private long remappedUncorrectable;
    private boolean remappedPending;
    private boolean remapFailed;
    private final long pcieReplays;

    SimCard(SimNode node, int index, String uuid, String pciBusId, CardModel model, Workload baseline,
            RandomGenerator random) {
        this.node = node;
        this.index = index;
        this.uuid = uuid;
        this.pciBusId = pciBusId;
        this.model = model;
        this.baseline = baseline;
        this.random = random;
        // cards further back in the chassis breathe warmer air
        this.inletC = 24 + 5.0 * index / 8 + random.nextDouble(0, 2);
        this.thermalR = 45 / model.powerLimitW() * random.nextDouble(0.92, 1.08);
        this.energyJ = random.nextDouble(1e8, 4e8);
        this.eccCorrected = random.nextInt(6) == 0 ? random.nextInt(1, 13) : 0;
        this.pcieReplays = random.nextInt(10) == 0 ? random.nextInt(1, 4) : 0;
        this.proc = baselineProcess(baseline.basePid() + index, -WARMUP_MS, true);
    }

    CardInfo info() {
        return new CardInfo(uuid, index, model.name(), pciBusId, model.memTotalBytes(), model.powerLimitW(),
                model.maxSmClockMHz(), false);
    }

    /** Makes the card start the run as idle-but-allocated, without a process_start: it was so before the probe. */
    void startIdleHeld() {
        proc = idleProcess(node.newPid(), 0);
    }

    /** Puts readings at the steady state of the current load, so a run does not begin with a warm-up transient. */
    void settle() {
        util = targetUtil(0);
        memUtil = proc == null || proc.idleHold ? 0 : util * proc.workload.memRatio();
        double demand = demandW();
        powerW = demand;
        tempC = inletC + thermalR * demand;
        clock(demand, demand);
        secondary(0);
    }

    // ---- incidents

    void xid(long at, int code, String text) {
        if (lost) {
            return;
        }
        Long pid = proc == null ? null : proc.pid;
        node.emit(at, uuid, "xid", code, text, pid);
        if (code == 79) {
            // the driver can no longer reach the card: NVML answers GPU_IS_LOST from now on
            node.emit(at, uuid, "gpu_lost", null, "NVML_ERROR_GPU_IS_LOST: GPU " + pciBusId + " is lost", pid);
            lost = true;
            proc = null;
        }
    }

    void coolingFailed(boolean failed) {
        coolingFailed = failed;
    }

    void climb(double bytesPerMs) {
        climbBytesPerMs = bytesPerMs;
    }

    void idleHeld(long at) {
        if (lost) {
            return;
        }
        if (proc != null) {
            node.emit(at, uuid, "process_exit", null, "pid " + proc.pid + " (" + proc.task + ") exited with code 0", proc.pid);
        }
        proc = idleProcess(node.newPid(), at);
        node.emit(at, uuid, "process_start", null, "pid " + proc.pid + " (" + proc.task + ") started", proc.pid);
    }

    void idleReleased(long at) {
        if (lost || proc == null || !proc.idleHold) {
            return;
        }
        node.emit(at, uuid, "process_exit", null, "pid " + proc.pid + " (" + proc.task + ") exited with code 0", proc.pid);
        startBaseline(at);
    }

    /** With {@code remapFailure} the rows cannot be remapped: nothing is pending, and the failure stays. */
    void eccUncorrected(long at, int count, Integer xid, boolean remapFailure) {
        if (lost) {
            return;
        }
        eccUncorrected += count;
        if (remapFailure) {
            remapFailed = true;
        } else {
            remappedUncorrectable += count;
            remappedPending = true;
        }
        Long pid = proc == null ? null : proc.pid;
        node.emit(at, uuid, "ecc_uncorrected", null, count + " uncorrectable ECC error" + (count == 1 ? "" : "s")
                + " in device memory; row remapping " + (remapFailure ? "failed" : "pending"), pid);
        if (xid != null) {
            node.emit(at, uuid, "xid", xid, XidCatalog.text(xid), pid);
        }
    }

    private void oom(long at) {
        long pid = proc.pid;
        String total = String.format("%.2f GiB", model.memTotalBytes() / (double) (1L << 30));
        node.emit(at, uuid, "oom", null, "CUDA out of memory. Tried to allocate 2.00 GiB. GPU " + index
                + " has a total capacity of " + total + " of which 20.00 MiB is free (" + proc.task + ")", pid);
        node.emit(at, uuid, "process_exit", null, "pid " + pid + " (" + proc.task + ") exited with code 1 after CUDA OOM", pid);
        proc = null;
        climbBytesPerMs = 0;
        // the scheduler restarts the failed rank
        node.schedule(at + RESTART_AFTER_OOM_MS, this::restartBaseline);
    }

    private void restartBaseline(long at) {
        if (!lost && proc == null) {
            startBaseline(at);
        }
    }

    private void startBaseline(long at) {
        proc = baselineProcess(node.newPid(), at, false);
        node.emit(at, uuid, "process_start", null, "pid " + proc.pid + " (" + proc.task + ") started", proc.pid);
    }

    private SimProcess baselineProcess(long pid, long at, boolean steady) {
        double target = baseline.memFraction() * model.memTotalBytes() * random.nextDouble(0.99, 1.01);
        return new SimProcess(pid, baseline.task(), baseline.owner(), baseline.business(), baseline, false, at,
                target, steady ? target : 0);
    }

    private SimProcess idleProcess(long pid, long at) {
        String[] users = {"lchen", "mgarcia", "apatel", "okim"};
        String user = users[random.nextInt(users.length)];
        double held = random.nextDouble(24, 34) * (1L << 30);
        return new SimProcess(pid, "jupyter-" + user, "team-research", "exploration", baseline, true, at, held, held);
    }

    // ---- dynamics

    /** Advances the card by {@code dtMs} (at most a second) from elapsed time {@code from}. */
    void step(long from, long dtMs) {
        if (lost) {
            return;
        }
        long to = from + dtMs;
        double s = dtMs / 1000.0;
        memory(from, dtMs);
        double target = targetUtil(to);
        if (target <= 0) {
            util = 0;
        } else {
            util += (target - util) * (1 - Math.exp(-s / UTIL_TAU_S)) + random.nextGaussian() * 1.5 * Math.sqrt(s);
            boolean steady = to - proc.startedAt >= WARMUP_MS;
            util = Math.max(steady ? 60 : 0, Math.min(util, 98));
        }
        memUtil = util <= 0 ? 0 : clamp(util * proc.workload.memRatio() + random.nextGaussian(), 1, 95);

        double demand = demandW();
        double r = thermalR * (coolingFailed ? COOLING_FAILURE_FACTOR : 1);
        if (tempC >= model.slowdownTempC() - 1) {
            thermalSlowdown = true;
        } else if (tempC < model.slowdownTempC() - 4) {
            thermalSlowdown = false;
        }
        double p = demand;
        if (thermalSlowdown) {
            // the driver trades clock for heat: hold just under the slowdown threshold
            double cap = (model.slowdownTempC() - 1.5 - inletC) / r;
            p = Math.max(idleW(), Math.min(demand, cap));
        }
        powerCapped = p > model.powerLimitW();
        p = Math.min(p, model.powerLimitW());
        tempC += (inletC + r * p - tempC) * (1 - Math.exp(-s / TEMP_TAU_S));
        energyJ += p * s;
        powerW = p * (1 + random.nextGaussian() * 0.008);

        clock(demand, p);
        secondary(to);
    }

    /** Boost under load, less as the card warms; scaled down with the power a thermal slowdown leaves. */
    private void clock(double demand, double power) {
        double idle = idleW();
        if (util <= 0) {
            smClockMHz = model.idleSmClockMHz();
            return;
        }
        double boost = model.maxSmClockMHz() - 15 * Math.floor(Math.max(0, tempC - 60) / 5);
        double ratio = demand > idle ? clamp((power - idle) / (demand - idle), 0.45, 1) : 1;
        double clock = boost * ratio - (random.nextInt(4) == 0 ? 15 : 0);
        smClockMHz = (int) (Math.round(clock / 15) * 15);
    }

    private void memory(long from, long dtMs) {
        if (proc == null || proc.idleHold) {
            return;
        }
        if (climbBytesPerMs > 0) {
            double room = model.memTotalBytes() - RESERVED_BYTES - OOM_HEADROOM_BYTES - proc.memBytes;
            double grow = climbBytesPerMs * dtMs;
            if (grow >= room) {
                oom(from + (long) Math.max(0, room / climbBytesPerMs));
            } else {
                proc.memBytes += grow;
            }
        } else if (proc.memBytes < proc.targetBytes) {
            proc.memBytes = Math.min(proc.targetBytes, proc.memBytes + proc.targetBytes * dtMs / WARMUP_MS);
        }
    }

    private double targetUtil(long at) {
        if (proc == null || proc.idleHold) {
            return 0;
        }
        Workload w = proc.workload;
        double base = w.utilBase();
        if (w.utilSwing() > 0) {
            base += w.utilSwing() * Math.sin(2 * Math.PI * at / w.periodMs() + w.phase());
        }
        double warm = Math.min(1, Math.max(0, (at - proc.startedAt) / (double) WARMUP_MS));
        return base * warm;
    }

    private double idleW() {
        return model.idlePowerW() + (proc != null ? CONTEXT_W : 0);
    }

    private double demandW() {
        if (proc == null || proc.idleHold || util <= 0) {
            return idleW();
        }
        double dynamic = model.powerLimitW() * 0.86 - model.idlePowerW();
        return idleW() + dynamic * util / 100 * proc.workload.intensity();
    }

    private void secondary(long at) {
        memTempC = tempC + 3 + 9 * memUtil / 100;
        if (util <= 0) {
            pcieTxKBps = random.nextDouble(40, 400);
            pcieRxKBps = random.nextDouble(40, 400);
            smActive = smOccupancy = tensorActive = dramActive = 0;
            return;
        }
        Workload w = proc.workload;
        pcieTxKBps = util * w.pcieKBpsPerPct() * random.nextDouble(0.8, 1.2);
        pcieRxKBps = pcieTxKBps * random.nextDouble(0.7, 1.0);
        smActive = clamp(util / 100 * w.smRatio() * random.nextDouble(0.97, 1.03), 0, 1);
        smOccupancy = smActive * w.occupancyRatio();
        tensorActive = smActive * w.tensorRatio();
        dramActive = clamp(memUtil / 100 * 0.85, 0, 1);
    }

    // ---- readings

    CardReading reading() {
        if (lost) {
            return new CardReading(uuid, MetricValues.empty(), List.of());
        }
        long reasons = 0;
        if (util <= 0) {
            reasons |= ClockEventReason.GPU_IDLE.bit();
        }
        if (thermalSlowdown) {
            reasons |= ClockEventReason.SW_THERMAL_SLOWDOWN.bit() | ClockEventReason.HW_THERMAL_SLOWDOWN.bit();
        }
        if (powerCapped) {
            reasons |= ClockEventReason.SW_POWER_CAP.bit();
        }
        MetricValues.Builder b = MetricValues.builder()
                .set(Metric.GPU_UTIL, Math.round(util))
                .set(Metric.MEM_UTIL, Math.round(memUtil))
                .set(Metric.MEM_USED_BYTES, memUsedBytes())
                .set(Metric.TEMP_C, Math.round(tempC))
                .set(Metric.MEM_TEMP_C, Math.round(memTempC))
                .set(Metric.POWER_W, round1(powerW))
                .set(Metric.ENERGY_J, round1(energyJ))
                .set(Metric.SM_CLOCK_MHZ, smClockMHz)
                .set(Metric.MEM_CLOCK_MHZ, model.memClockMHz())
                .set(Metric.PSTATE, 0)
                .set(Metric.CLOCK_EVENT_REASONS, reasons)
                .set(Metric.ECC_CORRECTED_VOLATILE, eccCorrected)
                .set(Metric.ECC_UNCORRECTED_VOLATILE, eccUncorrected)
                .set(Metric.REMAPPED_ROWS_CORRECTABLE, 0)
                .set(Metric.REMAPPED_ROWS_UNCORRECTABLE, remappedUncorrectable)
                .set(Metric.REMAPPED_ROWS_PENDING, remappedPending ? 1 : 0)
                .set(Metric.REMAPPED_ROWS_FAILED, remapFailed ? 1 : 0)
                .set(Metric.PCIE_TX_KBPS, Math.round(pcieTxKBps))
                .set(Metric.PCIE_RX_KBPS, Math.round(pcieRxKBps))
                .set(Metric.PCIE_REPLAYS, pcieReplays)
                .set(Metric.PCIE_LINK_GEN, model.pcieGen())
                .set(Metric.PCIE_LINK_WIDTH, model.pcieWidth());
        if (model.nvlinks() > 0) {
            b.set(Metric.NVLINK_ERRORS, 0).set(Metric.NVLINK_LINKS_DOWN, 0);
        }
        if (model.gpm()) {
            b.set(Metric.SM_ACTIVE, round2(smActive)).set(Metric.SM_OCCUPANCY, round2(smOccupancy))
                    .set(Metric.TENSOR_ACTIVE, round2(tensorActive)).set(Metric.DRAM_ACTIVE, round2(dramActive));
        }
        List<ProcessInfo> processes = proc == null ? List.of()
                : List.of(new ProcessInfo(proc.pid, Math.round(proc.memBytes), proc.task, proc.owner, proc.business));
        return new CardReading(uuid, b.build(), processes);
    }

    private long memUsedBytes() {
        return RESERVED_BYTES + (proc == null ? 0 : Math.round(proc.memBytes));
    }

    private static double clamp(double v, double lo, double hi) {
        return Math.max(lo, Math.min(hi, v));
    }

    private static double round1(double v) {
        return Math.round(v * 10) / 10.0;
    }

    private static double round2(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
