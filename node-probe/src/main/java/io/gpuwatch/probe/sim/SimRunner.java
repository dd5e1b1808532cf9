package io.gpuwatch.probe.sim;

import io.gpuwatch.probe.uplink.Uplink;
import io.gpuwatch.probe.uplink.UplinkConfig;
import io.gpuwatch.protocol.Frame;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * Plays a {@link SimFleet} to a gateway: one {@link Uplink} per node and, every interval, each node's due events
 * and its sample. A node in a node-silent incident produces nothing and holds no connection; when the silence
 * ends it reconnects with the same boot and its uplink replays what the gateway has not acknowledged. A node in a
 * probe-disconnect incident keeps sampling into its uplink's buffer while the connection is down. A node-reboot's
 * new bootId is not sent live (an uplink keeps its hello): the gateway sees a silence and fresh readings.
 */
public final class SimRunner {
    private static final Logger LOG = Logger.getLogger(SimRunner.class.getName());

    private final Vertx vertx;
    private final SimFleet fleet;
    private final LongSupplier clock;
    private final Context context;
    private final Map<String, Uplink> uplinks = new LinkedHashMap<>();
    private final Set<String> silenced = new HashSet<>();
    private final Set<String> disconnected = new HashSet<>();
    private final Promise<Void> finished = Promise.promise();
    private volatile long intervalMs;
    private BiConsumer<String, Frame> tap = (node, frame) -> { };
    private long periodic = -1;
    private boolean closed;

    /**
     * @param configFor the uplink settings of each node, by name (nodes usually differ only in their token)
     * @param clock epoch ms; the fleet's readings are taken at these times
     */
    public SimRunner(Vertx vertx, SimFleet fleet, Function<String, UplinkConfig> configFor, LongSupplier clock) {
        this.vertx = vertx;
        this.fleet = fleet;
        this.clock = clock;
        this.context = vertx.getOrCreateContext();
        this.intervalMs = fleet.scenario().intervalMs();
        SplittableRandom jitter = new SplittableRandom(fleet.scenario().seed());
        for (String node : fleet.producers()) {
            Uplink uplink = new Uplink(vertx, configFor.apply(node), fleet.hello(node), clock, jitter.split());
            uplink.intervalHandler(this::changeInterval);
            uplinks.put(node, uplink);
        }
    }

    /** Also hands every frame the fleet produces to {@code tap} (a trace recorder), before it is sent. */
    public SimRunner tap(BiConsumer<String, Frame> tap) {
        this.tap = tap;
        return this;
    }

    /** Starts every uplink and the sampling timer; the first samples go at once. */
    public Future<Void> start() {
        List<Future<Void>> started = new ArrayList<>();
        uplinks.values().forEach(u -> started.add(u.start()));
        return Future.all(started).compose(all -> {
            Promise<Void> ticking = Promise.promise();
            context.runOnContext(v -> {
                if (!closed) {
                    tick();
                    schedule();
                }
                ticking.complete();
            });
            return ticking.future();
        });
    }

    /** Completes when the scenario's duration has passed and sampling stopped; never for an endless scenario. */
    public Future<Void> finished() {
        return finished.future();
    }

    /** Stops sampling and closes every uplink. */
    public Future<Void> close() {
        Promise<Void> stopped = Promise.promise();
        context.runOnContext(v -> {
            closed = true;
            cancel();
            stopped.complete();
        });
        return stopped.future().compose(v -> {
            List<Future<Void>> closing = new ArrayList<>();
            uplinks.values().forEach(u -> closing.add(u.close()));
            return Future.all(closing).mapEmpty();
        });
    }

    /** The node's uplink, for its counters. */
    public Uplink uplink(String node) {
        Uplink u = uplinks.get(node);
        if (u == null) {
            throw new IllegalArgumentException("no simulated node '" + node + "'");
        }
        return u;
    }

    /** The sampling interval now in force: the scenario's, or the gateway's last request. */
    public long intervalMs() {
        return intervalMs;
    }

    private void tick() {
        long now = clock.getAsLong();
        if (fleet.finished(now)) {
            cancel();
            LOG.info(() -> "scenario '" + fleet.scenario().name() + "' has run its course");
            finished.tryComplete();
            return;
        }
        for (Map.Entry<String, Uplink> e : uplinks.entrySet()) {
            String node = e.getKey();
            Uplink uplink = e.getValue();
            if (fleet.silent(node, now)) {
                if (silenced.add(node)) {
                    LOG.info(() -> node + " goes silent");
                    uplink.suspend();
                }
                continue;
            }
            boolean away = fleet.disconnected(node, now);
            if (away && disconnected.add(node)) {
                LOG.info(() -> node + " loses its gateway");
                uplink.suspend();
            }
            boolean wasSilent = silenced.remove(node);
            boolean reconnects = !away && disconnected.remove(node);
            if (wasSilent || reconnects) {
                LOG.info(() -> node + " is back");
                uplink.resume();
            }
            for (Frame frame : fleet.frames(node, now)) {
                tap.accept(node, frame);
                uplink.send(frame);
            }
        }
    }

    private void changeInterval(long ms) {
        context.runOnContext(v -> {
            if (ms == intervalMs || closed || periodic < 0) {
                return;
            }
            LOG.info(() -> "gateway asks for samples every " + ms + " ms (was " + intervalMs + ")");
            intervalMs = ms;
            cancel();
            schedule();
        });
    }

    private void schedule() {
        if (!finished.future().isComplete()) {
            periodic = vertx.setPeriodic(intervalMs, id -> tick());
        }
    }

    private void cancel() {
        if (periodic >= 0) {
            vertx.cancelTimer(periodic);
            periodic = -1;
        }
    }
}
