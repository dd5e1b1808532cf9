package io.gpuwatch.probe.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.gpuwatch.probe.scenario.XidCatalog;
import io.gpuwatch.protocol.Event;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * Blocks in {@code nvmlEventSetWait_v2} on a daemon thread of its own and hands each XID, ECC and clock event
 * to a consumer the moment NVML reports it, as a protocol {@link Event} with the card's uuid. The wait is
 * bounded, so {@link #close()} takes at most one wait to stop the thread; it then frees the event set.
 */
public final class NvmlEventWaiter implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(NvmlEventWaiter.class.getName());
    // nvmlEventType bits
    private static final long SINGLE_BIT_ECC = 0x1L;
    private static final long DOUBLE_BIT_ECC = 0x2L;
    private static final long XID_CRITICAL = 0x8L;
    private static final long CLOCK = 0x10L;
    private static final long WANTED = SINGLE_BIT_ECC | DOUBLE_BIT_ECC | XID_CRITICAL | CLOCK;

    private final Nvml nvml;
    private final Pointer set;
    private final Map<Pointer, String> uuids;
    private final Consumer<Event> sink;
    private final LongSupplier clock;
    private final int timeoutMs;
    private final CountDownLatch closing = new CountDownLatch(1);
    private final Thread thread;
    private volatile boolean running = true;
    private boolean closed;

    private NvmlEventWaiter(Nvml nvml, Pointer set, Map<Pointer, String> uuids, Consumer<Event> sink,
                            LongSupplier clock, int timeoutMs) {
        this.nvml = nvml;
        this.set = set;
        this.uuids = uuids;
        this.sink = sink;
        this.clock = clock;
        this.timeoutMs = timeoutMs;
        if (set == null) {
            this.thread = null;
        } else {
            this.thread = new Thread(this::run, "gpuwatch-nvml-events");
            thread.setDaemon(true);
            thread.start();
        }
    }

    /**
     * Registers every card for the wanted events it supports and starts waiting. Problems are reported to
     * {@code sink} as {@code probe_degraded} events; with nothing registered no thread is started.
     *
     * @param cards each card's uuid by its handle
     * @param timeoutMs the longest single wait, which bounds how long {@link #close()} takes
     */
    public static NvmlEventWaiter start(Nvml nvml, Map<NvmlDevice, String> cards, Consumer<Event> sink,
                                        LongSupplier clock, int timeoutMs) {
        NvmlResult<Pointer> created = nvml.eventSetCreate();
        if (!(created instanceof NvmlResult.Ok<Pointer> ok)) {
            sink.accept(degraded(clock, null, "no NVML events: " + created.error()));
            return new NvmlEventWaiter(nvml, null, Map.of(), sink, clock, timeoutMs);
        }
        Pointer set = ok.value();
        Map<Pointer, String> registered = new HashMap<>();
        for (Map.Entry<NvmlDevice, String> card : cards.entrySet()) {
            NvmlDevice d = card.getKey();
            NvmlResult<Long> types = nvml.supportedEventTypes(d)
                    .then(supported -> {
                        long wanted = supported & WANTED;
                        return wanted == 0 ? NvmlResult.ok(0L) : nvml.registerEvents(d, wanted, set).map(v -> wanted);
                    });
            NvmlError e = types.error();
            if (e == null && types.orElse(0L) != 0) {
                registered.put(d.handle(), card.getValue());
            } else if (e != null && e.code() != NvmlReturn.NOT_SUPPORTED && e.code() != NvmlReturn.GPU_IS_LOST) {
                // a lost card is the collector's to report
                sink.accept(degraded(clock, card.getValue(), "no NVML events for this card: " + e));
            }
        }
        if (registered.isEmpty()) {
            nvml.eventSetFree(set);
            return new NvmlEventWaiter(nvml, null, Map.of(), sink, clock, timeoutMs);
        }
        return new NvmlEventWaiter(nvml, set, registered, sink, clock, timeoutMs);
    }

    private void run() {
        // an nvmlEventData_t, read only when an event came: most waits time out
        Memory data = new Memory(NvmlLibrary.EventData.SIZE);
        boolean failing = false;
        while (running) {
            NvmlResult<Nvml.EventRecord> r = nvml.eventWait(set, data, timeoutMs);
            if (r instanceof NvmlResult.Ok<Nvml.EventRecord> ok) {
                failing = false;
                deliver(ok.value());
            } else if (r.error().code() == NvmlReturn.TIMEOUT) {
                failing = false;
            } else {
                if (!failing) {
                    sink.accept(degraded(clock, null, "waiting for NVML events failed: " + r.error()));
                }
                failing = true;
                // a wait that fails at once would spin: pause as long as a wait would have lasted
                pause();
            }
        }
    }

    private void deliver(Nvml.EventRecord e) {
        String uuid = uuids.get(e.device());
        long now = clock.getAsLong();
        if ((e.type() & XID_CRITICAL) != 0) {
            int xid = (int) e.data();
            sink.accept(new Event(0, now, uuid, "xid", xid, XidCatalog.text(xid), null));
        } else if ((e.type() & DOUBLE_BIT_ECC) != 0) {
            sink.accept(new Event(0, now, uuid, "ecc_uncorrected", null, "double-bit ECC error", null));
        } else if ((e.type() & SINGLE_BIT_ECC) != 0) {
            sink.accept(new Event(0, now, uuid, "ecc_corrected", null, "single-bit ECC error", null));
        } else if ((e.type() & CLOCK) != 0) {
            sink.accept(new Event(0, now, uuid, "clock_change", null, "clocks changed", null));
        } else {
            LOG.fine(() -> "ignoring NVML event type 0x" + Long.toHexString(e.type()));
        }
    }

    private void pause() {
        try {
            closing.await(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    private static Event degraded(LongSupplier clock, String uuid, String text) {
        LOG.warning(() -> (uuid == null ? "" : uuid + ": ") + text);
        return new Event(0, clock.getAsLong(), uuid, "probe_degraded", null, text, null);
    }

    /** Stops the thread after its current wait and frees the event set. */
    @Override
    public synchronized void close() {
        if (thread == null || closed) {
            return;
        }
        closed = true;
        running = false;
        closing.countDown();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        nvml.eventSetFree(set);
    }
}
