package io.gpuwatch.gateway.ingest;

import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.protocol.codec.FrameCodec;
import io.gpuwatch.protocol.codec.FrameLimits;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.internal.ContextInternal;

import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * {@code GET /v1/probe}: checks the bearer token at the handshake (401 and nothing kept when wrong), then
 * runs one {@link ProbeSession} per connection. Runs on the gateway's event loop.
 */
public final class ProbeEndpoint {
    /** The path probes connect to. */
    public static final String PATH = "/v1/probe";
    private static final Logger LOG = Logger.getLogger(ProbeEndpoint.class.getName());

    private final Vertx vertx;
    private final IngestConfig config;
    private final Supplier<TokenFile> tokens;
    private final FrameSink sink;
    private final InstantSource clock;
    private final FrameCodec codec;
    private final SeqBook seqs = new SeqBook();
    private final IngestCounters counters = new IngestCounters();
    private final DecisionLatency sampleLatency = new DecisionLatency();
    private final DecisionLatency eventLatency = new DecisionLatency();
    private final LongSupplier nanos;
    /** Samples a gateway holds before shedding: about a second of 50,000 cards' frames (8 cards each). */
    static final int MAX_QUEUED_SAMPLES = 8_192;
    /**
     * How long the event loop evaluates queued samples before it reads its sockets again: what an event read
     * behind a backlog waits at most, besides the reads themselves.
     */
    static final long SAMPLE_TURN_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final Map<String, ProbeSession> byNode = new HashMap<>();
    private final SampleQueue queue;
    private Function<String, Optional<String>> owners = node -> Optional.empty();
    private Function<String, Future<Void>> takeOver = node -> Future.succeededFuture();
    private boolean ackWhenDurable;

    /** An endpoint timing its decisions on {@link System#nanoTime()}. */
    public ProbeEndpoint(Vertx vertx, IngestConfig config, Supplier<TokenFile> tokens, FrameSink sink,
                         InstantSource clock) {
        this(vertx, config, tokens, sink, clock, System::nanoTime);
    }

    /** @param nanos the monotonic clock the time from reading a frame to deciding on it is measured on */
    public ProbeEndpoint(Vertx vertx, IngestConfig config, Supplier<TokenFile> tokens, FrameSink sink,
                         InstantSource clock, LongSupplier nanos) {
        this.vertx = vertx;
        this.nanos = nanos;
        this.config = config;
        this.tokens = tokens;
        this.sink = sink;
        this.clock = clock;
        this.codec = new FrameCodec(new FrameLimits(config.maxFrameBytes(), config.maxCardsPerNode(),
                FrameLimits.DEFAULTS.maxProcessesPerCard(), FrameLimits.DEFAULTS.maxStringChars()));
        this.queue = new SampleQueue(MAX_QUEUED_SAMPLES, SAMPLE_TURN_NANOS, task -> vertx.runOnContext(v -> task.run()),
                ProbeEndpoint::afterReads, sink, counters, nanos, sampleLatency);
    }

    /**
     * Runs a task on the current context after its event loop's next socket reads. Netty moves due timers to its
     * task queue only between reading and running tasks, so a timer of no delay set by a task waits for the next
     * reads, where a task queued by a task runs straight after it.
     */
    private static void afterReads(Runnable task) {
        ContextInternal context = (ContextInternal) Vertx.currentContext();
        context.nettyEventLoop().schedule(() -> context.dispatch(task), 0, TimeUnit.NANOSECONDS);
    }

    public IngestCounters counters() {
        return counters;
    }

    /** From reading a sample to the end of its evaluation, its wait behind other samples included. */
    public DecisionLatency sampleLatency() {
        return sampleLatency;
    }

    /** From reading an event to the end of its evaluation (events never wait behind samples). */
    public DecisionLatency eventLatency() {
        return eventLatency;
    }

    /** Samples taken and waiting for the sink; near {@value #MAX_QUEUED_SAMPLES} the gateway is shedding. */
    public int queuedSamples() {
        return queue.size();
    }

    /** Number of nodes with an open, welcomed connection. */
    public int connectedNodes() {
        return byNode.size();
    }

    /**
     * Serves a request on {@link #PATH}: 401 with a Bearer challenge without a known token, 426 when it asks
     * for no WebSocket, else upgraded and served by a new {@link ProbeSession}. Decided before the upgrade, so
     * a refused probe gets a plain HTTP answer and nothing is kept.
     */
    public void upgrade(HttpServerRequest request) {
        Optional<TokenFile.Entry> entry = tokens.get().find(bearer(request.getHeader("Authorization")));
        if (entry.isEmpty()) {
            counters.refusedHandshakes.incrementAndGet();
            LOG.info(() -> "refused probe handshake from " + request.remoteAddress() + ": missing or unknown token");
            request.response().setStatusCode(401).putHeader("WWW-Authenticate", "Bearer realm=\"gpuwatch\"")
                    .end("a probe token is needed: Authorization: Bearer <token>\n");
            return;
        }
        if (!"websocket".equalsIgnoreCase(request.getHeader("Upgrade"))) {
            request.response().setStatusCode(426).putHeader("Upgrade", "websocket")
                    .end("the probe endpoint speaks WebSocket (protocol v1, docs/protocol.md)\n");
            return;
        }
        request.toWebSocket().onSuccess(ws -> {
            counters.connections.incrementAndGet();
            new ProbeSession(this, ws, entry.get()).start();
        }).onFailure(e -> LOG.warning("WebSocket upgrade failed: " + e.getMessage()));
    }

    /** The largest message taken off the socket: above the protocol's limit, so the codec can name the size. */
    int transportCap() {
        return transportCap(config);
    }

    /** {@link #transportCap()} of a configuration, for the HTTP server's own WebSocket limits. */
    public static int transportCap(IngestConfig config) {
        return (int) Math.min(Integer.MAX_VALUE, 4L * config.maxFrameBytes());
    }

    private static String bearer(String header) {
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        return header.substring(7).strip();
    }

    Vertx vertx() {
        return vertx;
    }

    /** The limits this endpoint runs under. */
    public IngestConfig config() {
        return config;
    }

    FrameSink sink() {
        return sink;
    }

    SampleQueue queue() {
        return queue;
    }

    long now() {
        return clock.millis();
    }

    long nanos() {
        return nanos.getAsLong();
    }

    FrameCodec codec() {
        return codec;
    }

    SeqBook seqs() {
        return seqs;
    }

    /**
     * From now on a frame is acknowledged only once what it brought is on disk ({@link #durable}), so the probe
     * keeps it until then and a gateway killed in between gets it again; without this, frames are acknowledged
     * as they are taken. Call before the endpoint takes connections.
     */
    public void ackWhenDurable() {
        ackWhenDurable = true;
    }

    /** True when frames are acknowledged only once on disk. */
    boolean acksWhenDurable() {
        return ackWhenDurable;
    }

    /**
     * Takes back where a node's stream stood when its state was last kept (a restart or a cluster takeover):
     * the probe resumes after {@code samplesUpTo}, and a replayed event up to {@code eventsUpTo} is a duplicate.
     * Call before the node's probe connects.
     */
    public void resume(String node, String bootId, long samplesUpTo, long eventsUpTo) {
        seqs.resume(node, bootId, samplesUpTo, eventsUpTo);
    }

    /** What the node's boot {@code bootId} sent up to {@code seq} is on disk: the probe may let go of it. */
    public void durable(String node, String bootId, long seq) {
        seqs.durable(node, bootId, seq);
    }

    /**
     * Makes this endpoint one of a cluster's: {@code redirect} names the probe URL a node's hello is sent on
     * to, or is empty for the nodes this gateway owns; the welcome of an owned node waits for
     * {@code takeOver}, which brings back what a former owner knew, so the node's frames come after it.
     */
    public void clustered(Function<String, Optional<String>> redirect, Function<String, Future<Void>> takeOver) {
        this.owners = redirect;
        this.takeOver = takeOver;
    }

    /** Closes the connections of the nodes {@code keep} refuses, which then reconnect to their owners. */
    public void release(Predicate<String> keep) {
        for (Map.Entry<String, ProbeSession> e : List.copyOf(byNode.entrySet())) {
            if (!keep.test(e.getKey())) {
                e.getValue().moved();
            }
        }
    }

    Optional<String> redirectFor(String node) {
        return owners.apply(node);
    }

    Future<Void> takeOver(String node) {
        return takeOver.apply(node);
    }

    /** A node's new connection replaces its old one, which may be half-open. */
    void welcomed(String node, ProbeSession session) {
        ProbeSession old = byNode.put(node, session);
        if (old != null && old != session) {
            old.replaced();
        }
    }

    /** True when this session was still the node's current one. */
    boolean closed(String node, ProbeSession session) {
        return byNode.remove(node, session);
    }
}
