package io.gpuwatch.probe.load;

import io.gpuwatch.probe.uplink.Backoff;
import io.gpuwatch.protocol.Ack;
import io.gpuwatch.protocol.ConfigFrame;
import io.gpuwatch.protocol.ErrorFrame;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Welcome;
import io.gpuwatch.protocol.codec.Decoded;
import io.gpuwatch.protocol.codec.FrameCodec;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * The simulated nodes of one event loop: each has its own WebSocket, seq stream and replay buffer, and samples at
 * its own phase of the interval (set by when it came online) so that the fleet's frames are spread evenly over time
 * rather than sent in a burst.
 * Speaks protocol v1 as the probe's uplink does (hello, replay after {@code welcome.ackedSeq}, jittered back-off,
 * failover along the gateway list and a welcome's redirect), but with one WebSocket client, one text builder and one
 * timer for all its nodes.
 */
final class LoadSender extends VerticleBase {
    private static final Logger LOG = Logger.getLogger(LoadSender.class.getName());
    private static final String ACK_PREFIX = "{\"type\":\"ack\",\"seq\":";
    private static final long TICK_MS = 5;
    private static final long WELCOME_TIMEOUT_MS = 10_000;
    private static final int MAX_LOGGED = 5;
    private static final short NORMAL = 1000;
    private static final Backoff BACKOFF = new Backoff(1000, 30_000);
    /** Redirects followed in a row without a welcome that keeps the node, as the probe's uplink allows. */
    private static final int MAX_REDIRECTS = 3;

    private enum State { NEW, CONNECTING, AWAITING_WELCOME, READY, BACKING_OFF, CLOSED }

    /** One simulated node's connection and stream; touched only on this sender's event loop. */
    private static final class Node {
        final NodeTexts texts;
        final UnackedFrames unacked;
        long due;
        long seq;
        long acked;
        long writtenUpTo;
        long samplesTaken;
        State state = State.NEW;
        WebSocket ws;
        int attempt;
        long timer = -1;
        int targetIndex;
        LoadTarget redirect;
        int redirectsInRow;

        Node(NodeTexts texts, long firstDue, int maxUnacked, int firstTarget) {
            this.texts = texts;
            this.due = firstDue;
            this.unacked = new UnackedFrames(maxUnacked);
            this.targetIndex = firstTarget;
        }
    }

    private final LoadPlan plan;
    private final List<LoadTarget> targets;
    private final FrameTemplates templates;
    private final LongSupplier clock;
    private final long endMs;
    private final Node[] nodes;
    private final StringBuilder text = new StringBuilder(16_384);
    private final FrameCodec codec = new FrameCodec();
    private final SplittableRandom random;
    private final int valuesPerSample;
    private WebSocketClient client;
    private long tick = -1;
    private boolean stopping;
    private int logged;
    private boolean toldInterval;
    private volatile long threadId = -1;

    private int connected;
    private long frames;
    private long sampleFrames;
    private long appFrames;
    private long events;
    private long samples;
    private long acks;
    private long reconnects;
    private long bytes;
    private long errors;
    private long maxLagMs;
    private long windowLagMs;

    /**
     * @param targets the gateways, tried in turn from a node's first one when a connection fails or drops
     * @param firstDueMs per node of {@code texts}, when it comes online and takes its first sample
     * @param firstTarget per node of {@code texts}, the index into {@code targets} it connects to first
     */
    LoadSender(LoadPlan plan, List<LoadTarget> targets, FrameTemplates templates, List<NodeTexts> texts,
               long[] firstDueMs, int[] firstTarget, long startMs, LongSupplier clock, long seed) {
        this.plan = plan;
        this.targets = List.copyOf(targets);
        this.templates = templates;
        this.clock = clock;
        this.endMs = startMs + plan.durationMs();
        this.random = new SplittableRandom(seed);
        this.valuesPerSample = templates.valuesPerSample();
        this.nodes = new Node[texts.size()];
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] = new Node(texts.get(i), firstDueMs[i], plan.maxUnacked(), firstTarget[i]);
        }
    }

    @Override
    public Future<?> start() {
        threadId = Thread.currentThread().getId();
        WebSocketClientOptions options = new WebSocketClientOptions().setMaxConnections(nodes.length + 16)
                .setConnectTimeout((int) WELCOME_TIMEOUT_MS);
        // each connection says whether it is TLS; a wss:// one checks the host
        if (targets.stream().anyMatch(LoadTarget::ssl)) {
            options.setSsl(targets.get(0).ssl()).setVerifyHost(true);
        }
        client = vertx.createWebSocketClient(options);
        if (nodes.length > 0) {
            tick = vertx.setPeriodic(TICK_MS, id -> tick());
        }
        return Future.succeededFuture();
    }

    @Override
    public Future<?> stop() {
        stopping = true;
        if (tick >= 0) {
            vertx.cancelTimer(tick);
        }
        List<Future<Void>> closing = new ArrayList<>();
        for (Node n : nodes) {
            if (n.timer >= 0) {
                vertx.cancelTimer(n.timer);
            }
            n.state = State.CLOSED;
            if (n.ws != null) {
                closing.add(n.ws.close(NORMAL, "bench over").recover(e -> Future.succeededFuture()));
                n.ws = null;
            }
        }
        return Future.join(closing).transform(ar -> client.close());
    }

    /** Sends one XID 79 on a card of the node at {@code local} (an index into this sender's nodes). */
    Future<XidSent> sendXid(int local, int card) {
        Promise<XidSent> sent = Promise.promise();
        context.runOnContext(v -> {
            Node n = nodes[local];
            long seq = ++n.seq;
            long now = clock.getAsLong();
            String uuid = n.texts.uuids().get(card);
            events++;
            enqueue(n, seq, templates.xid(text, seq, now, uuid), true);
            sent.complete(new XidSent(n.texts.name(), card, uuid, seq, now));
        });
        return sent.future();
    }

    /** This sender's counters, read on its event loop; starts a new window for {@link LoadStats#windowLagMs()}. */
    Future<LoadStats> stats() {
        Promise<LoadStats> out = Promise.promise();
        context.runOnContext(v -> {
            long acked = 0;
            long created = 0;
            long dropped = 0;
            for (Node n : nodes) {
                acked += n.acked;
                created += n.seq;
                dropped += n.unacked.droppedSamples() + n.unacked.droppedEvents();
            }
            out.complete(new LoadStats(nodes.length, connected, frames, sampleFrames, appFrames, events, samples, acks,
                    acked, created, reconnects, bytes, errors, dropped, maxLagMs, windowLagMs, 0));
            windowLagMs = 0;
        });
        return out.future();
    }

    /** The event-loop thread this sender runs on, -1 before it started. */
    long threadId() {
        return threadId;
    }

    static long cpuNanos(long threadId) {
        long t = threadId < 0 ? -1 : ManagementFactory.getThreadMXBean().getThreadCpuTime(threadId);
        return Math.max(0, t);
    }

    // ---- sampling

    private void tick() {
        long now = clock.getAsLong();
        if (stopping || now >= endMs) {
            vertx.cancelTimer(tick);
            tick = -1;
            return;
        }
        // a scan of every node costs a comparison each, far less than the frames it leads to
        for (Node n : nodes) {
            if (n.due > now) {
                continue;
            }
            if (n.state == State.NEW) {
                connect(n);
            }
            maxLagMs = Math.max(maxLagMs, now - n.due);
            windowLagMs = Math.max(windowLagMs, now - n.due);
            sample(n, now);
            // a late node keeps its phase rather than catching up with a burst
            while (n.due <= now) {
                n.due += plan.intervalMs();
            }
        }
    }

    private void sample(Node n, long now) {
        long seq = ++n.seq;
        sampleFrames++;
        samples += valuesPerSample;
        enqueue(n, seq, templates.sample(text, n.texts, seq, now), false);
        if (plan.appEvery() > 0 && ++n.samplesTaken % plan.appEvery() == 0) {
            long appSeq = ++n.seq;
            appFrames++;
            samples += FrameTemplates.valuesPerApp();
            enqueue(n, appSeq, templates.app(text, n.texts, appSeq, now), false);
        }
    }

    private void enqueue(Node n, long seq, String frame, boolean event) {
        n.unacked.add(seq, frame, event);
        if (n.state == State.READY) {
            pump(n);
        }
    }

    /** Writes the held frames after the last one written, in seq order, as far as the socket takes them. */
    private void pump(Node n) {
        if (n.ws.isClosed()) {
            // the close handler, on its way, backs off and reconnects
            return;
        }
        UnackedFrames held = n.unacked;
        int i = held.size();
        while (i > 0 && held.seq(i - 1) > n.writtenUpTo) {
            i--;
        }
        for (; i < held.size(); i++) {
            if (n.ws.writeQueueFull()) {
                WebSocket ws = n.ws;
                ws.drainHandler(v -> {
                    if (n.ws == ws && n.state == State.READY) {
                        pump(n);
                    }
                });
                return;
            }
            String frame = held.text(i);
            n.ws.writeTextMessage(frame);
            n.writtenUpTo = held.seq(i);
            frames++;
            bytes += frame.length();
        }
    }

    // ---- connection

    private static LoadTarget target(Node n, List<LoadTarget> targets) {
        return n.redirect != null ? n.redirect : targets.get(n.targetIndex);
    }

    private void connect(Node n) {
        n.state = State.CONNECTING;
        LoadTarget target = target(n, targets);
        WebSocketConnectOptions options = new WebSocketConnectOptions().setHost(target.host()).setPort(target.port())
                .setURI(target.path()).setSsl(target.ssl());
        if (target.token() != null) {
            options.addHeader("Authorization", "Bearer " + target.token());
        }
        client.connect(options).onComplete(ar -> {
            if (stopping || n.state != State.CONNECTING) {
                if (ar.succeeded()) {
                    ar.result().close(NORMAL, "bench over");
                }
                return;
            }
            if (ar.failed()) {
                Throwable e = ar.cause();
                warn(n.texts.name() + ": cannot connect to " + target.url() + ": "
                        + (e instanceof UpgradeRejectedException r && r.getStatus() == 401
                        ? "the gateway refused the token (HTTP 401)" : e.getMessage()));
                retry(n);
                return;
            }
            opened(n, ar.result());
        });
    }

    private void opened(Node n, WebSocket ws) {
        n.ws = ws;
        n.state = State.AWAITING_WELCOME;
        ws.textMessageHandler(t -> onText(n, t));
        ws.exceptionHandler(e -> LOG.fine(() -> n.texts.name() + ": " + e.getMessage()));
        ws.closeHandler(v -> closed(n, ws));
        ws.writeTextMessage(n.texts.hello());
        bytes += n.texts.hello().length();
        n.timer = vertx.setTimer(WELCOME_TIMEOUT_MS, id -> {
            n.timer = -1;
            if (n.state == State.AWAITING_WELCOME && n.ws == ws) {
                warn(n.texts.name() + ": no welcome from " + target(n, targets).url() + " within " + WELCOME_TIMEOUT_MS + " ms");
                ws.close(NORMAL, "no welcome");
            }
        });
    }

    private void closed(Node n, WebSocket ws) {
        if (n.ws != ws) {
            return;
        }
        n.ws = null;
        if (n.state == State.READY) {
            connected--;
        }
        if (stopping || n.state == State.CLOSED) {
            return;
        }
        Short code = ws.closeStatusCode();
        warn(n.texts.name() + ": connection closed by " + target(n, targets).url() + (code == null ? "" : " (" + code
                + (ws.closeReason() == null ? "" : " " + ws.closeReason()) + ")"));
        retry(n);
    }

    /**
     * After a failure the node tries the next gateway of the list, unless the failed one was a redirect's target:
     * then it asks the gateway that redirected again, which names the node's owner once the cluster knows.
     */
    private void retry(Node n) {
        if (n.timer >= 0) {
            vertx.cancelTimer(n.timer);
        }
        if (n.redirect != null) {
            n.redirect = null;
        } else {
            n.targetIndex = (n.targetIndex + 1) % targets.size();
        }
        n.redirectsInRow = 0;
        n.state = State.BACKING_OFF;
        n.timer = vertx.setTimer(BACKOFF.delayMs(n.attempt++, targets.size(), random.nextDouble()), id -> {
            n.timer = -1;
            if (n.state == State.BACKING_OFF && !stopping) {
                reconnects++;
                connect(n);
            }
        });
    }

    // ---- gateway frames

    private void onText(Node n, String frame) {
        // acks are nearly all the gateway sends: read them without a parser
        if (frame.startsWith(ACK_PREFIX) && frame.endsWith("}")) {
            long seq = digits(frame, ACK_PREFIX.length(), frame.length() - 1);
            if (seq >= 0) {
                acks++;
                acked(n, seq);
                return;
            }
        }
        Decoded decoded = codec.decode(frame);
        if (decoded instanceof Decoded.Bad bad) {
            warn(n.texts.name() + ": unreadable frame from the gateway: " + bad.message());
            return;
        }
        Frame f = ((Decoded.Ok) decoded).frame();
        if (f instanceof Ack a) {
            acks++;
            acked(n, a.seq());
        } else if (f instanceof Welcome w) {
            welcomed(n, w);
        } else if (f instanceof ErrorFrame e) {
            errors++;
            warn(n.texts.name() + ": gateway error " + e.code() + (e.frameSeq() == null ? "" : " on seq " + e.frameSeq())
                    + ": " + e.message());
            if (n.state == State.AWAITING_WELCOME && n.ws != null) {
                n.ws.close(NORMAL, "refused");
            }
        } else if (f instanceof ConfigFrame c) {
            otherInterval(c.intervalMs());
        }
    }

    private void welcomed(Node n, Welcome w) {
        if (n.state != State.AWAITING_WELCOME) {
            return;
        }
        if (n.timer >= 0) {
            vertx.cancelTimer(n.timer);
            n.timer = -1;
        }
        if (w.redirect() != null) {
            redirected(n, w.redirect());
            return;
        }
        n.state = State.READY;
        n.attempt = 0;
        n.redirectsInRow = 0;
        connected++;
        acked(n, w.ackedSeq());
        n.writtenUpTo = w.ackedSeq();
        otherInterval(w.intervalMs());
        pump(n);
    }

    private void redirected(Node n, String url) {
        WebSocket ws = n.ws;
        n.ws = null;
        ws.close(NORMAL, "redirected");
        if (++n.redirectsInRow > MAX_REDIRECTS) {
            warn(n.texts.name() + ": " + MAX_REDIRECTS + " redirects in a row, the last to " + url + "; backing off");
            retry(n);
            return;
        }
        // the codec let through only a ws:// or wss:// URL with a host
        n.redirect = LoadTarget.parse(url, targets.get(0).token());
        connect(n);
    }

    /** The bench offers the load it was asked for, whatever interval the gateway would like; said once. */
    private void otherInterval(long intervalMs) {
        if (intervalMs != plan.intervalMs() && !toldInterval) {
            toldInterval = true;
            LOG.warning("the gateway asks for a " + intervalMs + " ms interval; the bench keeps its " + plan.intervalMs()
                    + " ms, the load it was asked to offer");
        }
    }

    private void acked(Node n, long seq) {
        if (seq > n.acked) {
            n.acked = seq;
        }
        n.unacked.ackUpTo(seq);
    }

    /** The non-negative decimal in {@code s[from, to)}, or -1 when it is not one. */
    private static long digits(String s, int from, int to) {
        if (from >= to || to - from > 18) {
            return -1;
        }
        long v = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    /** The first few problems of a sender are worth a warning each; a fleet-wide outage would flood the log. */
    private void warn(String message) {
        if (logged < MAX_LOGGED) {
            logged++;
            LOG.warning(message + (logged == MAX_LOGGED ? " (further problems of these nodes are logged at FINE)" : ""));
        } else {
            LOG.fine(message);
        }
    }
}
