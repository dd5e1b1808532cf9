package io.gpuwatch.probe.nvml;

import io.gpuwatch.probe.attribution.ProcessAttributor;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

import static io.gpuwatch.protocol.Metric.CLOCK_EVENT_REASONS;
import static io.gpuwatch.protocol.Metric.DRAM_ACTIVE;
import static io.gpuwatch.protocol.Metric.ECC_CORRECTED_VOLATILE;
import static io.gpuwatch.protocol.Metric.ECC_UNCORRECTED_VOLATILE;
import static io.gpuwatch.protocol.Metric.ENERGY_J;
import static io.gpuwatch.protocol.Metric.GPU_UTIL;
import static io.gpuwatch.protocol.Metric.MEM_CLOCK_MHZ;
import static io.gpuwatch.protocol.Metric.MEM_TEMP_C;
import static io.gpuwatch.protocol.Metric.MEM_USED_BYTES;
import static io.gpuwatch.protocol.Metric.MEM_UTIL;
import static io.gpuwatch.protocol.Metric.NVLINK_ERRORS;
import static io.gpuwatch.protocol.Metric.NVLINK_LINKS_DOWN;
import static io.gpuwatch.protocol.Metric.PCIE_LINK_GEN;
import static io.gpuwatch.protocol.Metric.PCIE_LINK_WIDTH;
import static io.gpuwatch.protocol.Metric.PCIE_REPLAYS;
import static io.gpuwatch.protocol.Metric.PCIE_RX_KBPS;
import static io.gpuwatch.protocol.Metric.PCIE_TX_KBPS;
import static io.gpuwatch.protocol.Metric.POWER_W;
import static io.gpuwatch.protocol.Metric.PSTATE;
import static io.gpuwatch.protocol.Metric.REMAPPED_ROWS_CORRECTABLE;
import static io.gpuwatch.protocol.Metric.REMAPPED_ROWS_FAILED;
import static io.gpuwatch.protocol.Metric.REMAPPED_ROWS_PENDING;
import static io.gpuwatch.protocol.Metric.REMAPPED_ROWS_UNCORRECTABLE;
import static io.gpuwatch.protocol.Metric.RETIRED_PAGES_PENDING;
import static io.gpuwatch.protocol.Metric.SM_ACTIVE;
import static io.gpuwatch.protocol.Metric.SM_CLOCK_MHZ;
import static io.gpuwatch.protocol.Metric.SM_OCCUPANCY;
import static io.gpuwatch.protocol.Metric.TEMP_C;
import static io.gpuwatch.protocol.Metric.TENSOR_ACTIVE;

/**
 * Reads the node's cards through NVML: their static facts once, for {@code hello}, then on each {@link #poll()}
 * one {@link Sample} with every reading each card supports (see docs/nvml.md for the call behind each field).
 * <ul>
 *   <li>A reading the card does not support (NOT_SUPPORTED, or a function the driver lacks) is left absent and
 *       never asked for again on that card.</li>
 *   <li>GPU_IS_LOST makes the card lost: one {@code gpu_lost} event, then the card is listed with its uuid alone
 *       and NVML is not asked about it again.</li>
 *   <li>Any other failure leaves the reading absent and produces one {@code probe_degraded} event per failure
 *       episode: again only after the reading has succeeded in between.</li>
 * </ul>
 * Not thread-safe: one poller thread calls {@link #poll()}.
 */
public final class NvmlCollector {
    /** Leaves processes unattributed: pid and memory only. */
    public static final ProcessAttributor UNATTRIBUTED = (pid, usedMemBytes) ->
            new ProcessInfo(pid, usedMemBytes, null, null, null);

    private static final Logger LOG = Logger.getLogger(NvmlCollector.class.getName());
    private static final int FI_DEV_MEMORY_TEMP = 82;
    private static final int NVLINK_MAX_LINKS = 18;
    private static final int PSTATE_MAX = 15;

    /** What one poll produced: the events to send first, then the sample. */
    public record Poll(List<Event> events, Sample sample) {
        public Poll {
            events = List.copyOf(events);
        }
    }

    /** One NVML query and the protocol fields it feeds; {@code name} lists those fields. */
    private record Field(String name, Reader reader) {
    }

    @FunctionalInterface
    private interface Reader {
        NvmlResult<?> read(Card card, Draft out);
    }

    /** A card's readings while they are being collected. */
    private static final class Draft {
        final MetricValues.Builder values = MetricValues.builder();
        // by pid, compute processes then graphics ones: a process with both contexts is listed once
        final Map<Long, Nvml.Process> processes = new LinkedHashMap<>();

        /**
         * Adds a process list. A pid already listed keeps its entry (both lists give the process's memory on the
         * card, which adding would count twice), unless that entry lacks the memory figure and this one has it.
         */
        Draft add(List<Nvml.Process> list) {
            for (Nvml.Process p : list) {
                processes.merge(p.pid(), p, (had, now) -> had.usedMemBytes() == null ? now : had);
            }
            return this;
        }
    }

    /** What the collector knows about one card between polls. */
    private static final class Card {
        final NvmlDevice device;
        final String uuid;
        final boolean[] unsupported;
        final NvmlReturn[] failing;
        final boolean[] nvlinkCounterUnsupported = new boolean[Nvml.NvlinkCounter.values().length];
        String pciBusId;
        boolean lost;
        int nvlinks = -1;
        GpmSampler gpm;

        Card(NvmlDevice device, String uuid, int fields) {
            this.device = device;
            this.uuid = uuid;
            this.unsupported = new boolean[fields];
            this.failing = new NvmlReturn[fields];
        }
    }

    private final Nvml nvml;
    private final LongSupplier clock;
    private final ProcessAttributor attributor;
    private final List<Field> fields;
    private final List<Card> cards = new ArrayList<>();
    private final List<CardInfo> infos = new ArrayList<>();
    private final List<Event> pending = new ArrayList<>();
    private final String driverVersion;
    private final String nvmlVersion;

    private NvmlCollector(Nvml nvml, LongSupplier clock, ProcessAttributor attributor, int count) {
        this.nvml = nvml;
        this.clock = clock;
        this.attributor = attributor;
        this.fields = fields();
        long now = clock.getAsLong();
        this.driverVersion = nodeFact("the driver version", nvml.driverVersion(), now);
        this.nvmlVersion = nodeFact("the NVML version", nvml.nvmlVersion(), now);
        for (int index = 0; index < count; index++) {
            NvmlResult<NvmlDevice> device = nvml.device(index);
            NvmlResult<Card> card = device.then(d -> nvml.uuid(d).map(uuid -> new Card(d, uuid, fields.size())));
            if (card instanceof NvmlResult.Ok<Card> ok) {
                open(ok.value(), now);
            } else {
                pending.add(degraded(now, null, "card " + index + " is left out: " + card.error()));
            }
        }
    }

    /** Lists the node's cards and reads their static facts; fails only when NVML cannot count the cards. */
    public static NvmlResult<NvmlCollector> open(Nvml nvml, LongSupplier clock, ProcessAttributor attributor) {
        return nvml.deviceCount().map(n -> new NvmlCollector(nvml, clock, attributor, n));
    }

    /** The cards for {@code hello}, in NVML index order. */
    public List<CardInfo> cards() {
        return List.copyOf(infos);
    }

    /** The node's {@code hello}: the caller's identity of the node plus what NVML says about it. */
    public Hello hello(String node, String bootId, String probe, Map<String, String> labels) {
        return new Hello(Frame.VERSION, node, bootId, probe, driverVersion, nvmlVersion, labels, infos);
    }

    /** Each card's uuid by its handle, for the event waiter; lost cards included. */
    Map<NvmlDevice, String> uuids() {
        Map<NvmlDevice, String> out = new LinkedHashMap<>();
        cards.forEach(c -> out.put(c.device, c.uuid));
        return out;
    }

    /** Reads every card now; the first poll also carries what went wrong while opening. */
    public Poll poll() {
        long now = clock.getAsLong();
        List<Event> events = new ArrayList<>(pending);
        pending.clear();
        List<CardReading> readings = new ArrayList<>(cards.size());
        for (Card card : cards) {
            readings.add(read(card, now, events));
        }
        return new Poll(events, new Sample(0, now, readings));
    }

    /** Frees the GPM samples; NVML itself stays open. */
    public void close() {
        for (Card card : cards) {
            if (card.gpm != null) {
                card.gpm.close();
                card.gpm = null;
            }
        }
    }

    // ---- opening

    private void open(Card card, long now) {
        cards.add(card);
        NvmlDevice d = card.device;
        String name = cardFact(card, "name", nvml.name(d), now);
        card.pciBusId = cardFact(card, "pciBusId", nvml.pciBusId(d), now);
        Long memTotal = cardFact(card, "memTotalBytes", nvml.memory(d).map(Nvml.Memory::totalBytes), now);
        Double powerLimitW = cardFact(card, "powerLimitW",
                nvml.enforcedPowerLimitMilliwatts(d).map(mw -> mw / 1000.0), now);
        Long maxSm = cardFact(card, "maxSmClockMHz", nvml.maxClockMHz(d, Nvml.Clock.SM), now);
        Boolean mig = cardFact(card, "migMode", nvml.migEnabled(d), now);
        infos.add(new CardInfo(card.uuid, d.index(), name, card.pciBusId, memTotal, powerLimitW,
                maxSm == null ? null : maxSm.intValue(), mig));
    }

    private <T> T nodeFact(String what, NvmlResult<T> result, long now) {
        NvmlError e = result.error();
        if (e != null && !unsupported(e.code())) {
            pending.add(degraded(now, null, "cannot read " + what + ": " + e));
        }
        return result.orElse(null);
    }

    private <T> T cardFact(Card card, String fact, NvmlResult<T> result, long now) {
        NvmlError e = result.error();
        if (e == null || unsupported(e.code()) || card.lost) {
            return result.orElse(null);
        }
        if (e.code() == NvmlReturn.GPU_IS_LOST) {
            lose(card, e, now, pending);
        } else {
            pending.add(degraded(now, card.uuid, "cannot read " + fact + ": " + e));
        }
        return null;
    }

    // ---- polling

    private CardReading read(Card card, long now, List<Event> events) {
        if (card.lost) {
            return new CardReading(card.uuid, MetricValues.empty(), List.of());
        }
        Draft draft = new Draft();
        for (int i = 0; i < fields.size(); i++) {
            if (card.unsupported[i]) {
                continue;
            }
            Field field = fields.get(i);
            NvmlError e = field.reader().read(card, draft).error();
            if (e == null) {
                if (card.failing[i] != null) {
                    LOG.info(() -> card.uuid + ": " + field.name() + " can be read again");
                    card.failing[i] = null;
                }
            } else if (unsupported(e.code())) {
                LOG.fine(() -> card.uuid + ": " + field.name() + " not supported (" + e + ")");
                card.unsupported[i] = true;
            } else if (e.code() == NvmlReturn.GPU_IS_LOST) {
                lose(card, e, now, events);
                return new CardReading(card.uuid, MetricValues.empty(), List.of());
            } else {
                if (card.failing[i] == null) {
                    events.add(degraded(now, card.uuid, "cannot read " + field.name() + ": " + e));
                }
                card.failing[i] = e.code();
            }
        }
        List<ProcessInfo> processes = new ArrayList<>(draft.processes.size());
        draft.processes.values().forEach(p -> processes.add(attributor.attribute(p.pid(), p.usedMemBytes())));
        return new CardReading(card.uuid, draft.values.build(), processes);
    }

    private static boolean unsupported(NvmlReturn code) {
        return code == NvmlReturn.NOT_SUPPORTED || code == NvmlReturn.FUNCTION_NOT_FOUND;
    }

    private static void lose(Card card, NvmlError e, long now, List<Event> events) {
        card.lost = true;
        String text = "NVML_ERROR_GPU_IS_LOST: GPU " + (card.pciBusId != null ? card.pciBusId : card.uuid)
                + " is lost (" + e.function() + ")";
        LOG.warning(() -> card.uuid + ": " + text);
        events.add(new Event(0, now, card.uuid, "gpu_lost", null, text, null));
    }

    private static Event degraded(long now, String uuid, String text) {
        LOG.warning(() -> (uuid == null ? "" : uuid + ": ") + text);
        return new Event(0, now, uuid, "probe_degraded", null, text, null);
    }

    // ---- the readings

    private List<Field> fields() {
        return List.of(
                new Field("gpuUtil,memUtil", (c, o) -> nvml.utilization(c.device)
                        .map(u -> o.values.set(GPU_UTIL, u.gpuPercent()).set(MEM_UTIL, u.memoryPercent()))),
                new Field("memUsedBytes", (c, o) -> nvml.memory(c.device)
                        .map(m -> o.values.set(MEM_USED_BYTES, m.usedBytes()))),
                new Field("tempC", (c, o) -> nvml.gpuTemperatureC(c.device).map(t -> o.values.set(TEMP_C, t))),
                new Field("memTempC", (c, o) -> nvml.fieldValue(c.device, FI_DEV_MEMORY_TEMP)
                        .map(t -> o.values.set(MEM_TEMP_C, t))),
                new Field("powerW", (c, o) -> nvml.powerMilliwatts(c.device)
                        .map(mw -> o.values.set(POWER_W, mw / 1000.0))),
                new Field("energyJ", (c, o) -> nvml.totalEnergyMillijoules(c.device)
                        .map(mj -> o.values.set(ENERGY_J, mj / 1000.0))),
                new Field("smClockMHz", (c, o) -> nvml.clockMHz(c.device, Nvml.Clock.SM)
                        .map(mhz -> o.values.set(SM_CLOCK_MHZ, mhz))),
                new Field("memClockMHz", (c, o) -> nvml.clockMHz(c.device, Nvml.Clock.MEM)
                        .map(mhz -> o.values.set(MEM_CLOCK_MHZ, mhz))),
                // 32 is NVML's "unknown" P-state: absent, like any reading NVML cannot give
                new Field("pstate", (c, o) -> nvml.performanceState(c.device)
                        .map(p -> p >= 0 && p <= PSTATE_MAX ? o.values.set(PSTATE, p) : o.values)),
                new Field("clockEventReasons", (c, o) -> nvml.clocksEventReasons(c.device)
                        .map(mask -> o.values.set(CLOCK_EVENT_REASONS, mask))),
                new Field("eccCorrectedVolatile", (c, o) -> nvml.volatileEccErrors(c.device, false)
                        .map(n -> o.values.set(ECC_CORRECTED_VOLATILE, n))),
                new Field("eccUncorrectedVolatile", (c, o) -> nvml.volatileEccErrors(c.device, true)
                        .map(n -> o.values.set(ECC_UNCORRECTED_VOLATILE, n))),
                new Field("retiredPagesPending", (c, o) -> nvml.retiredPagesPending(c.device)
                        .map(p -> o.values.set(RETIRED_PAGES_PENDING, p ? 1 : 0))),
                new Field("remappedRowsCorrectable,remappedRowsUncorrectable,remappedRowsPending,remappedRowsFailed",
                        (c, o) -> nvml.remappedRows(c.device).map(r -> o.values
                                .set(REMAPPED_ROWS_CORRECTABLE, r.correctable())
                                .set(REMAPPED_ROWS_UNCORRECTABLE, r.uncorrectable())
                                .set(REMAPPED_ROWS_PENDING, r.pending() ? 1 : 0)
                                .set(REMAPPED_ROWS_FAILED, r.failed() ? 1 : 0))),
                new Field("pcieTxKBps", (c, o) -> nvml.pcieThroughputKBps(c.device, Nvml.PcieCounter.TX)
                        .map(kbps -> o.values.set(PCIE_TX_KBPS, kbps))),
                new Field("pcieRxKBps", (c, o) -> nvml.pcieThroughputKBps(c.device, Nvml.PcieCounter.RX)
                        .map(kbps -> o.values.set(PCIE_RX_KBPS, kbps))),
                new Field("pcieReplays", (c, o) -> nvml.pcieReplays(c.device)
                        .map(n -> o.values.set(PCIE_REPLAYS, n))),
                new Field("pcieLinkGen", (c, o) -> nvml.pcieLinkGeneration(c.device)
                        .map(g -> o.values.set(PCIE_LINK_GEN, g))),
                new Field("pcieLinkWidth", (c, o) -> nvml.pcieLinkWidth(c.device)
                        .map(w -> o.values.set(PCIE_LINK_WIDTH, w))),
                new Field("nvlinkErrors,nvlinkLinksDown", this::nvlink),
                new Field("smActive,smOccupancy,tensorActive,dramActive", this::gpm),
                // two fields, so that a driver refusing one list still sends the other
                new Field("processes (compute)", (c, o) -> nvml.computeProcesses(c.device).map(o::add)),
                new Field("processes (graphics)", (c, o) -> nvml.graphicsProcesses(c.device).map(o::add)));
    }

    /** Links down, and the sum of every error counter the card supports over all its links. */
    private NvmlResult<?> nvlink(Card card, Draft out) {
        if (card.nvlinks < 0) {
            NvmlResult<Integer> links = countLinks(card.device);
            if (links.error() != null) {
                return links;
            }
            card.nvlinks = links.orElse(0);
        }
        long down = 0;
        long errors = 0;
        boolean counted = false;
        for (int link = 0; link < card.nvlinks; link++) {
            NvmlResult<Boolean> active = nvml.nvlinkActive(card.device, link);
            if (!(active instanceof NvmlResult.Ok<Boolean> ok)) {
                return active;
            }
            down += ok.value() ? 0 : 1;
            for (Nvml.NvlinkCounter counter : Nvml.NvlinkCounter.values()) {
                if (card.nvlinkCounterUnsupported[counter.ordinal()]) {
                    continue;
                }
                NvmlResult<Long> n = nvml.nvlinkErrors(card.device, link, counter);
                if (n instanceof NvmlResult.Ok<Long> value) {
                    errors += value.value();
                    counted = true;
                } else if (unsupported(n.error().code())) {
                    card.nvlinkCounterUnsupported[counter.ordinal()] = true;
                } else {
                    return n;
                }
            }
        }
        out.values.set(NVLINK_LINKS_DOWN, down);
        if (counted) {
            out.values.set(NVLINK_ERRORS, errors);
        }
        return NvmlResult.ok(card.nvlinks);
    }

    /** The card's links are 0..n-1: the first one NVML rejects as invalid is past the last. */
    private NvmlResult<Integer> countLinks(NvmlDevice device) {
        for (int link = 0; link < NVLINK_MAX_LINKS; link++) {
            NvmlError e = nvml.nvlinkActive(device, link).error();
            if (e != null) {
                boolean pastLast = link > 0
                        && (e.code() == NvmlReturn.INVALID_ARGUMENT || e.code() == NvmlReturn.NOT_SUPPORTED);
                return pastLast ? NvmlResult.ok(link) : new NvmlResult.Failed<>(e);
            }
        }
        return NvmlResult.ok(NVLINK_MAX_LINKS);
    }

    private NvmlResult<?> gpm(Card card, Draft out) {
        if (card.gpm == null) {
            NvmlResult<GpmSampler> opened = GpmSampler.open(nvml, card.device);
            if (!(opened instanceof NvmlResult.Ok<GpmSampler> ok)) {
                return opened;
            }
            card.gpm = ok.value();
        }
        return card.gpm.next().map(r -> out.values.set(SM_ACTIVE, r[0]).set(SM_OCCUPANCY, r[1])
                .set(TENSOR_ACTIVE, r[2]).set(DRAM_ACTIVE, r[3]));
    }
}
