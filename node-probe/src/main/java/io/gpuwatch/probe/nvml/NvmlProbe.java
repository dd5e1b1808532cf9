package io.gpuwatch.probe.nvml;

import io.gpuwatch.probe.attribution.ProcessAttributor;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The real node probe's NVML side: an {@link NvmlCollector} polled every interval on a thread of its own and an
 * {@link NvmlEventWaiter} on another, both handing frames to one sink (events first, then the sample of each
 * poll; waiter events whenever they come). Neither thread is a Vert.x event loop; the sink must be thread-safe,
 * as {@code Uplink.send} is.
 */
public final class NvmlProbe implements AutoCloseable {
    /** The longest single wait for an NVML event, which bounds how long {@link #close()} takes. */
    public static final int EVENT_WAIT_MS = 1000;

    private static final Logger LOG = Logger.getLogger(NvmlProbe.class.getName());

    private final Nvml nvml;
    private final NvmlCollector collector;
    private final LongSupplier clock;
    private final int eventWaitMs;
    private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "gpuwatch-nvml-poll");
        t.setDaemon(true);
        return t;
    });
    private Consumer<Frame> sink;
    private NvmlEventWaiter waiter;
    private ScheduledFuture<?> polling;
    private boolean closed;

    private NvmlProbe(Nvml nvml, NvmlCollector collector, LongSupplier clock, int eventWaitMs) {
        this.nvml = nvml;
        this.collector = collector;
        this.clock = clock;
        this.eventWaitMs = eventWaitMs;
    }

    /** Opens NVML from {@link Nvml#defaultLibrary()} and reads the cards' static facts. */
    public static NvmlResult<NvmlProbe> open(LongSupplier clock, ProcessAttributor attributor) {
        return open(Nvml.defaultLibrary(), clock, attributor, EVENT_WAIT_MS);
    }

    /**
     * Opens NVML from {@code library} (a SONAME or a path) and reads the cards' static facts.
     *
     * @param clock epoch ms, the timestamp of every frame
     * @param attributor says whom each compute process works for ({@link NvmlCollector#UNATTRIBUTED} for nobody)
     * @param eventWaitMs the longest single wait for an NVML event
     */
    public static NvmlResult<NvmlProbe> open(String library, LongSupplier clock, ProcessAttributor attributor,
                                             int eventWaitMs) {
        return Nvml.open(library).then(nvml -> {
            NvmlResult<NvmlCollector> collector = NvmlCollector.open(nvml, clock, attributor);
            if (collector.error() != null) {
                nvml.shutdown();
            }
            return collector.map(c -> new NvmlProbe(nvml, c, clock, eventWaitMs));
        });
    }

    /** The cards NVML lists, as {@code hello} carries them. */
    public List<CardInfo> cards() {
        return collector.cards();
    }

    /** The node's {@code hello}, for the uplink. */
    public Hello hello(String node, String bootId, String probe, Map<String, String> labels) {
        return collector.hello(node, bootId, probe, labels);
    }

    /** Starts the event waiter and the polling, the first poll at once. */
    public synchronized void start(long intervalMs, Consumer<Frame> sink) {
        if (this.sink != null || closed) {
            throw new IllegalStateException(closed ? "the NVML probe is closed" : "the NVML probe is already started");
        }
        this.sink = sink;
        waiter = NvmlEventWaiter.start(nvml, collector.uuids(), sink::accept, clock, eventWaitMs);
        polling = poller.scheduleAtFixedRate(this::poll, 0, intervalMs, TimeUnit.MILLISECONDS);
    }

    /** Polls every {@code intervalMs} from now on (the gateway's config frame asks for this). */
    public synchronized void intervalMs(long intervalMs) {
        if (polling == null || closed) {
            return;
        }
        polling.cancel(false);
        polling = poller.scheduleAtFixedRate(this::poll, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    }

    private void poll() {
        try {
            NvmlCollector.Poll p = collector.poll();
            p.events().forEach(sink);
            sink.accept(p.sample());
        } catch (RuntimeException e) {
            // an exception would cancel the periodic task for good: log it and poll again next time
            LOG.log(Level.WARNING, "NVML poll failed", e);
        }
    }

    /** Stops polling and waiting, frees what NVML lent and shuts NVML down. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        poller.shutdown();
        try {
            if (!poller.awaitTermination(1, TimeUnit.MINUTES)) {
                LOG.warning("an NVML poll is still running after a minute; shutting NVML down regardless");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (waiter != null) {
            waiter.close();
        }
        collector.close();
        nvml.shutdown();
    }
}
