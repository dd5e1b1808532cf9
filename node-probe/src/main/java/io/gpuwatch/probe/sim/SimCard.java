package io.gpuwatch.probe.sim;

import io.gpuwatch.probe.scenario.CardModel;
import io.gpuwatch.probe.scenario.Incident.Effect;
import io.gpuwatch.probe.scenario.XidCatalog;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.ClockEventReason;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;

import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * One simulated card. Utilisation follows the workload; power follows utilisation; temperature follows power
 * with a lag; the SM clock boosts under load and drops when the card throttles to hold its slowdown threshold.
 * Spells (see {@link Effect}) bend these while they hold.
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
    /** Utilisation while a starting job loads its data and compiles, before it warms up. */
    private static final double RAMP_UTIL_SHARE = 0.12;

    /** A spell on this card, from and until elapsed ms. */
    private record Active(Effect effect, long from, long until, double startTempC) {
    }

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
    private final List<Active> spells = new ArrayList<>();
    private double clockShare = 1;

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
    private long eccCorrected;
    private long eccUncorrected;
    private long remappedUncorrectable;
    private boolean remappedPending;
    private boolean remapFailed;
    private long pcieReplays;
    private long nvlinkErrors;

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

    void xid(long at, int code, String text, boolean fallsOff) {
        if (lost) {
            return;
        }
        Long pid = proc == null ? null : proc.pid;
        node.emit(at, uuid, "xid", code, text, pid);
        if (fallsOff) {
            // the driver can no longer reach the card: NVML answers GPU_IS_LOST from now on
            node.emit(at, uuid, "gpu_lost", null, "NVML_ERROR_GPU_IS_LOST: GPU " + pciBusId + " is lost", pid);
            lost = true;
            proc = null;
        }
    }

    void eccCorrected(long at, int count) {
        if (lost) {
            return;
        }
        eccCorrected += count;
        node.emit(at, uuid, "ecc_corrected", null, count + " corrected ECC error" + (count == 1 ? "" : "s")
                + " in device memory", proc == null ? null : proc.pid);
    }

    /** A spell starts; a {@link Effect.Vacant} one ends the card's process now. */
    void cast(long at, Effect effect, long until) {
        if (lost) {
            return;
        }
        if (effect instanceof Effect.Vacant v) {
            vacate(at, v.exitCode());
            return;
        }
        if (effect instanceof Effect.Links l) {
            nvlinkErrors += random.nextInt(20, 200) * (long) l.down();
        }
        spells.add(new Active(effect, at, until, tempC));
    }

    /** A spell ends; after a {@link Effect.Vacant} one the card's job starts again, ramping up. */
    void lift(long at, Effect effect) {
        spells.removeIf(a -> a.effect() == effect);
        if (effect instanceof Effect.Vacant v && !lost && proc == null) {
            startBaseline(at);
            proc.rampMs = v.ramp().toMillis();
        }
    }

    /** The card's process goes; {@code exitCode} null: silently, as if it never ran (a run that starts so). */
    void vacate(long at, Integer exitCode) {
        if (proc != null && exitCode != null) {
            String how = exitCode == 143 ? "was cancelled (SIGTERM, code 143)" : "exited with code " + exitCode;
            node.emit(at, uuid, "process_exit", null, "pid " + proc.pid + " (" + proc.task + ") " + how, proc.pid);
        }
        proc = null;
        climbBytesPerMs = 0;
    }

    /** The node is back from a reboot: counters since driver load restart, the card is readable again. */
    void rebooted(long at, boolean jobRestarts) {
        lost = false;
        proc = null;
        spells.clear();
        coolingFailed = false;
        climbBytesPerMs = 0;
        energyJ = random.nextDouble(1e3, 1e4);
        eccCorrected = 0;
        eccUncorrected = 0;
        pcieReplays = 0;
        nvlinkErrors = 0;
        tempC = inletC + thermalR * idleW();
        if (jobRestarts) {
            startBaseline(at);
            proc.rampMs = WARMUP_MS;
        }
    }

    /** The current process's task, owner and business, or null on an empty or lost card. */
    SimProcess process() {
        return lost ? null : proc;
    }

    /** Current utilisation, 0–100. */
    double util() {
        return lost ? 0 : util;
    }

    /** The product of the tokens/s shares of the Serving spells on the card. */
    double tokensShare() {
        return spells.stream().filter(a -> a.effect() instanceof Effect.Serving).mapToDouble(a ->
                ((Effect.Serving) a.effect()).tokens()).reduce(1, (x, y) -> x * y);
    }

    /** The product of the latency factors of the Serving spells on the card. */
    double latencyFactor() {
        return spells.stream().filter(a -> a.effect() instanceof Effect.Serving).mapToDouble(a ->
                ((Effect.Serving) a.effect()).latency()).reduce(1, (x, y) -> x * y);
    }

    /** The pace the card's work runs at now: the product of its Load spells (a dip is deepest at mid-spell). */
    double loadShare(long at) {
        double f = 1;
        for (Active a : spells) {
            if (a.effect() instanceof Effect.Load l) {
                double depth = 1;
                if (l.dip()) {
                    double x = (at - a.from()) / (double) Math.max(1, a.until() - a.from());
                    depth = Math.sin(Math.PI * Math.max(0, Math.min(1, x)));
                }
                f *= 1 - (1 - l.factor()) * depth;
            }
        }
        return f;
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
        node.oomed(proc.task);
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
            boolean steady = to - proc.startedAt >= proc.rampMs + WARMUP_MS;
            util = Math.max(steady ? 60 * loadShare(to) : 0, Math.min(util, 98));
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
        clockShare = 1;
        for (Active a : spells) {
            if (a.effect() instanceof Effect.Clock c && util > 0) {
                clockShare = Math.min(clockShare, c.clock());
                p = c.atLimit() ? model.powerLimitW() * random.nextDouble(0.975, 1.0)
                        : Math.max(idleW(), p * c.power());
            }
        }
        powerCapped = p > model.powerLimitW();
        p = Math.min(p, model.powerLimitW());
        double settled = inletC + r * p;
        for (Active a : spells) {
            if (a.effect() instanceof Effect.Heat h) {
                double goal = h.perMinute() > 0
                        ? Math.min(h.toC(), a.startTempC() + h.perMinute() * (to - a.from()) / 60_000.0) : h.toC();
                settled = Math.max(settled, goal);
            }
        }
        tempC += (settled - tempC) * (1 - Math.exp(-s / TEMP_TAU_S));
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
        double clock = boost * ratio * clockShare - (random.nextInt(4) == 0 ? 15 : 0);
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
            return;
        }
        double target = proc.targetBytes;
        for (Active a : spells) {
            if (a.effect() instanceof Effect.Memory mem) {
                target = mem.level() * model.memTotalBytes() - RESERVED_BYTES;
            }
        }
        boolean plateau = target != proc.targetBytes;
        double stepBytes = (plateau ? model.memTotalBytes() : proc.targetBytes) * dtMs / WARMUP_MS;
        proc.memBytes = proc.memBytes < target ? Math.min(target, proc.memBytes + stepBytes)
                : Math.max(target, proc.memBytes - stepBytes);
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
        long since = at - proc.startedAt - proc.rampMs;
        if (since < 0) {
            return base * RAMP_UTIL_SHARE;
        }
        double warm = Math.min(1, since / (double) WARMUP_MS);
        return base * warm * loadShare(at);
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
        int linksDown = 0;
        for (Active a : spells) {
            if (a.effect() instanceof Effect.Clock c && util > 0) {
                reasons |= c.reasons();
            } else if (a.effect() instanceof Effect.Links l) {
                linksDown = Math.max(linksDown, l.down());
            }
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
            b.set(Metric.NVLINK_ERRORS, nvlinkErrors).set(Metric.NVLINK_LINKS_DOWN, Math.min(linksDown, model.nvlinks()));
        }
        if (model.gpm()) {
            b.set(Metric.SM_ACTIVE, round2(smActive)).set(Metric.SM_OCCUPANCY, round2(smOccupancy))
                    .set(Metric.TENSOR_ACTIVE, round2(tensorActive)).set(Metric.DRAM_ACTIVE, round2(dramActive));
        }
        for (Active a : spells) {
            if (a.effect() instanceof Effect.Unsupported u) {
                u.metrics().forEach(m -> b.set(m, Double.NaN));
            }
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
