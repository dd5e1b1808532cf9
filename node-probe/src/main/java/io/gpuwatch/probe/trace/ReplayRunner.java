package io.gpuwatch.probe.trace;

import io.gpuwatch.probe.uplink.Uplink;
import io.gpuwatch.probe.uplink.UplinkConfig;
import io.gpuwatch.probe.uplink.UplinkStats;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * Plays a trace to a gateway as a live fleet: one {@link Uplink} per node, opened with the node's hello from the
 * trace, then the node's frames in trace order. Timestamps are moved onto the replay's start: a frame stamped
 * {@code ts} is sent at, and stamped with, {@code origin + (ts − firstTs) / speed}, where {@code origin} is the
 * clock when the replay started and {@code firstTs} the trace's first timestamp; at {@link ReplaySpeed#MAX} a
 * frame goes at once, stamped with the moment it is sent. The uplinks number the frames as usual. A node that
 * restarts in the trace (a hello with another bootId) gets a new uplink once the old one is acknowledged.
 * The trace is read lazily on a worker; waiting is done with timers on one Vert.x context, and every timeout is
 * measured on the injected clock. The replay ends by itself when every frame has been handed over and
 * acknowledged, or when the gateway has not acknowledged for the ack timeout.
 */
public final class ReplayRunner {
    /** How long the gateway may leave frames unacknowledged before the replay gives up on them. */
    public static final long DEFAULT_ACK_TIMEOUT_MS = 30_000;

    private static final Logger LOG = Logger.getLogger(ReplayRunner.class.getName());
    private static final int BATCH = 512;
    private static final long POLL_MS = 10;

    /** A node of the trace: its current uplink and the chain that starts a restarted boot's uplink in turn. */
    private static final class Node {
        final UplinkConfig config;
        Uplink uplink;
        String bootId;
        long sent;
        Future<Void> handover = Future.succeededFuture();

        Node(UplinkConfig config) {
            this.config = config;
        }
    }

    private final Vertx vertx;
    private final Path trace;
    private final Function<String, UplinkConfig> configFor;
    private final ReplaySpeed speed;
    private final LongSupplier clock;
    private final Context context;
    private final SplittableRandom jitter = new SplittableRandom();
    private final Promise<ReplayReport> done = Promise.promise();
    private long ackTimeoutMs = DEFAULT_ACK_TIMEOUT_MS;
    private Consumer<TraceError> errorHandler = e -> LOG.warning(e::toString);
    private String bootSuffix;

    // touched only by the blocking tasks, which run one at a time in order
    private volatile TraceReader reader;

    // the rest lives on the context
    private final ArrayDeque<TraceLine> pending = new ArrayDeque<>();
    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private final List<Uplink> uplinks = new ArrayList<>();
    private boolean started;
    private boolean reading;
    private boolean exhausted;
    private boolean ending;
    private boolean closing;
    private boolean stopped;
    private long timer = -1;
    private long origin;
    private long firstTs = -1;
    private long stalledSince = -1;
    private long framesSent;
    private int boots;
    private long badLines;
    private String traceFailure;

    /**
     * @param configFor the uplink settings of each node, by name (nodes usually differ only in their token)
     * @param clock epoch ms: the replay's "now", for rebasing timestamps, pacing and timeouts
     */
    public ReplayRunner(Vertx vertx, Path trace, Function<String, UplinkConfig> configFor, ReplaySpeed speed,
                        LongSupplier clock) {
        this.vertx = vertx;
        this.trace = trace;
        this.configFor = configFor;
        this.speed = speed;
        this.clock = clock;
        this.context = vertx.getOrCreateContext();
    }

    /** How long to wait for acknowledgements at the end, and at most while the gateway takes nothing. */
    public ReplayRunner ackTimeout(long ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("an ack timeout cannot be negative, got " + ms);
        }
        this.ackTimeoutMs = ms;
        return this;
    }

    /** Called on the runner's context with each trace line that is skipped; by default they are logged. */
    public ReplayRunner errorHandler(Consumer<TraceError> handler) {
        this.errorHandler = handler;
        return this;
    }

    /**
     * Replays each boot as {@code <bootId>-<suffix>}, so that a gateway which has seen the trace's boots (from
     * the recorded probe itself, or an earlier replay) takes the frames as a new run instead of dropping them as
     * duplicates of seqs it holds. Null keeps the trace's bootIds.
     */
    public ReplayRunner bootSuffix(String suffix) {
        this.bootSuffix = suffix;
        return this;
    }

    /** Starts the replay; completes when it has ended (by itself or by {@link #close()}), never with a failure. */
    public Future<ReplayReport> run() {
        context.runOnContext(v -> {
            if (started || ending) {
                return;
            }
            started = true;
            origin = clock.getAsLong();
            fill();
        });
        return done.future();
    }

    /** Stops the replay where it is, without waiting for acks, and closes every uplink; completes with the report. */
    public Future<ReplayReport> close() {
        context.runOnContext(v -> {
            closing = true;
            if (!ending) {
                stopped = true;
                end();
            }
        });
        return done.future();
    }

    // ---- reading

    /** Reads the next batch of lines on a worker, unless enough are waiting or a read is under way. */
    private void fill() {
        if (reading || exhausted || ending || pending.size() >= BATCH / 2) {
            return;
        }
        reading = true;
        context.<List<TraceLine>>executeBlocking(() -> {
            TraceReader r = reader;
            if (r == null) {
                r = TraceReader.open(trace);
                reader = r;
            }
            List<TraceLine> batch = new ArrayList<>(BATCH);
            while (batch.size() < BATCH && r.hasNext()) {
                batch.add(r.next());
            }
            return batch;
        }).onComplete(ar -> {
            reading = false;
            if (ar.failed()) {
                exhausted = true;
                problem(new TraceError(trace.toString(), 0, TraceError.UNREADABLE, "", "cannot read: "
                        + ar.cause().getMessage()));
            } else {
                pending.addAll(ar.result());
                exhausted = ar.result().size() < BATCH;
            }
            pump();
        });
    }

    // ---- playing

    /** Hands over every frame that is due, then waits for the next one, the reader, or the uplink's buffer. */
    private void pump() {
        if (ending) {
            return;
        }
        while (!pending.isEmpty()) {
            TraceLine line = pending.peekFirst();
            if (line instanceof TraceError e) {
                pending.pollFirst();
                problem(e);
                continue;
            }
            TraceEntry entry = (TraceEntry) line;
            if (entry.frame() instanceof Hello h) {
                pending.pollFirst();
                hello(h);
                continue;
            }
            Node node = nodes.get(entry.node());
            if (full(node)) {
                long now = clock.getAsLong();
                if (stalledSince < 0) {
                    stalledSince = now;
                } else if (now - stalledSince >= ackTimeoutMs) {
                    LOG.warning(() -> entry.node() + ": the gateway has taken nothing for " + ackTimeoutMs
                            + " ms; stopping the replay");
                    stopped = true;
                    end();
                    return;
                }
                later(POLL_MS);
                return;
            }
            stalledSince = -1;
            Frame frame = entry.frame();
            long ts = FrameStamps.ts(frame);
            if (firstTs < 0) {
                firstTs = ts;
            }
            long at;
            if (speed.isMax()) {
                at = clock.getAsLong();
            } else {
                at = speed.rebase(origin, firstTs, ts);
                long wait = at - clock.getAsLong();
                if (wait > 0) {
                    later(wait);
                    return;
                }
            }
            pending.pollFirst();
            node.uplink.send(FrameStamps.withTs(frame, at));
            node.sent++;
            framesSent++;
            fill();
        }
        if (exhausted && !reading) {
            end();
        } else {
            fill();
        }
    }

    private void hello(Hello h) {
        Node node = nodes.get(h.node());
        if (node != null && node.bootId.equals(h.bootId())) {
            // the same boot saying hello again: a reconnect, which the uplink does on its own
            return;
        }
        if (node == null) {
            node = new Node(configFor.apply(h.node()));
            nodes.put(h.node(), node);
        }
        boots++;
        Hello sent = bootSuffix == null ? h : new Hello(h.v(), h.node(), h.bootId() + "-" + bootSuffix, h.probe(),
                h.driver(), h.nvml(), h.labels(), h.cards());
        Uplink next = new Uplink(vertx, node.config, sent, clock, jitter.split());
        Uplink previous = node.uplink;
        node.uplink = next;
        node.bootId = h.bootId();
        uplinks.add(next);
        if (previous == null) {
            node.handover = next.start();
        } else {
            // the gateway keeps one connection per node: the new boot connects once the old one is done
            node.handover = node.handover.transform(ar -> drained(List.of(previous)))
                    .compose(v -> previous.close())
                    .transform(ar -> next.start());
        }
    }

    /** Whether the node's uplink holds half its buffer unacknowledged: sending more could make it drop frames. */
    private static boolean full(Node node) {
        UplinkStats s = node.uplink.stats();
        return s.buffered() >= Math.max(1, node.config.maxBufferedFrames() / 2)
                || s.bufferedBytes() >= Math.max(1, node.config.maxBufferedBytes() / 2);
    }

    private void later(long ms) {
        timer = vertx.setTimer(Math.max(1, ms), id -> {
            timer = -1;
            pump();
        });
    }

    private void problem(TraceError e) {
        if (e.lineNo() > 0) {
            badLines++;
        } else {
            traceFailure = e.toString();
        }
        errorHandler.accept(e);
    }

    // ---- ending

    /** Waits for the acks (unless stopped), closes the uplinks and the trace, and reports. */
    private void end() {
        ending = true;
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
        List<Future<Void>> handovers = new ArrayList<>();
        nodes.values().forEach(n -> handovers.add(n.handover));
        Future<Void> acked = stopped ? Future.succeededFuture()
                : Future.join(handovers).transform(ar -> drained(uplinks));
        acked.transform(ar -> {
            List<Future<Void>> closing = new ArrayList<>();
            uplinks.forEach(u -> closing.add(u.close()));
            return Future.join(closing);
        }).transform(ar -> context.executeBlocking(() -> {
            TraceReader r = reader;
            if (r != null) {
                r.close();
            }
            return null;
        })).onComplete(ar -> done.tryComplete(report()));
    }

    /** Succeeds when the uplinks hold nothing unacknowledged, or once the ack timeout has passed; never fails. */
    private Future<Void> drained(List<Uplink> which) {
        Promise<Void> p = Promise.promise();
        long since = clock.getAsLong();
        Runnable check = new Runnable() {
            @Override
            public void run() {
                if (closing || unacked(which) == 0 || clock.getAsLong() - since >= ackTimeoutMs) {
                    p.complete();
                } else {
                    vertx.setTimer(POLL_MS, id -> run());
                }
            }
        };
        check.run();
        return p.future();
    }

    private static long unacked(List<Uplink> which) {
        long n = 0;
        for (Uplink u : which) {
            n += u.stats().buffered();
        }
        return n;
    }

    private ReplayReport report() {
        Map<String, Long> sent = new LinkedHashMap<>();
        nodes.forEach((name, n) -> sent.put(name, n.sent));
        long dropped = 0;
        for (Uplink u : uplinks) {
            UplinkStats s = u.stats();
            dropped += s.droppedSamples() + s.droppedEvents();
        }
        return new ReplayReport(sent, framesSent, boots, badLines, traceFailure, unacked(uplinks), dropped, stopped,
                origin);
    }
}
