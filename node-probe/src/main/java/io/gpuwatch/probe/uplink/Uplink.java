package io.gpuwatch.probe.uplink;

import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * An {@link UplinkCore} (protocol v1: seq, acks, replay, bounded buffer, back-off, failover, redirects) over
 * Vert.x's WebSocket client, for producers that run Vert.x anyway: simulated fleets, replays, scrape-only nodes,
 * {@code sched}. All state lives on one Vert.x context; methods may be called from any thread and never block.
 */
public final class Uplink {
    /** Redirects followed in a row without a welcome that keeps the node: more means the gateways disagree. */
    static final int MAX_REDIRECTS = UplinkCore.MAX_REDIRECTS;

    private final UplinkCore core;
    private final Context context;

    /** An uplink on the wall clock with an unseeded jitter source. */
    public Uplink(Vertx vertx, UplinkConfig config, Hello hello) {
        this(vertx, config, hello, System::currentTimeMillis, new SplittableRandom());
    }

    /**
     * @param clock epoch ms, for the timestamp of the uplink's own {@code probe_degraded} events
     * @param random the back-off jitter
     */
    public Uplink(Vertx vertx, UplinkConfig config, Hello hello, LongSupplier clock, RandomGenerator random) {
        VertxTransport transport = new VertxTransport(vertx, config);
        this.core = new UplinkCore(transport, config, hello, clock, random);
        this.context = transport.context();
    }

    private Uplink(UplinkCore core, Context context) {
        this.core = core;
        this.context = context;
    }

    /** The same protocol over {@link SocketTransport}, answering on {@code vertx}: the tests run both. */
    static Uplink overSockets(Vertx vertx, UplinkConfig config, Hello hello, LongSupplier clock,
                              RandomGenerator random) {
        return new Uplink(new UplinkCore(new SocketTransport(config), config, hello, clock, random),
                vertx.getOrCreateContext());
    }

    /** The node this uplink speaks for. */
    public String node() {
        return core.node();
    }

    /** Called on the uplink's context when the gateway asks for another sampling interval (a config frame). */
    public Uplink intervalHandler(LongConsumer handler) {
        core.intervalHandler(handler);
        return this;
    }

    /** Starts connecting; succeeds at once, and the uplink keeps trying until it is closed. */
    public Future<Void> start() {
        return onContext(core.start());
    }

    /** See {@link UplinkCore#send(Frame)}. */
    public void send(Frame frame) {
        core.send(frame);
    }

    /** Drops the connection and stays away, buffering what is sent, until {@link #resume()}. */
    public Future<Void> suspend() {
        return onContext(core.suspend());
    }

    /** Connects again at once after {@link #suspend()}. */
    public void resume() {
        core.resume();
    }

    /** Closes the connection with 1000 and stops reconnecting; frames still unacknowledged are let go. */
    public Future<Void> close() {
        return onContext(core.close());
    }

    /** The probe URL of the gateway this uplink is connected or connecting to now. */
    public String gateway() {
        return core.gateway();
    }

    /** The counters as they are now. */
    public UplinkStats stats() {
        return core.stats();
    }

    private Future<Void> onContext(CompletableFuture<Void> f) {
        return Future.fromCompletionStage(f, context);
    }
}
