package io.gpuwatch.probe.uplink;

import io.gpuwatch.probe.uplink.Transport.Target;
import io.gpuwatch.protocol.Ack;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.ConfigFrame;
import io.gpuwatch.protocol.ErrorFrame;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.protocol.Welcome;
import io.gpuwatch.protocol.codec.Decoded;
import io.gpuwatch.protocol.codec.FrameCodec;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.logging.Logger;
import java.util.random.RandomGenerator;

/**
 * One node's WebSocket connection to the gateway (protocol v1). It numbers frames with a seq that starts at 1
 * for the hello's bootId and survives reconnects, holds every frame until the gateway acknowledges it, replays
 * the frames after {@code welcome.ackedSeq} on each new connection, and reconnects with jittered exponential
 * back-off. Its buffer is bounded: when full it drops the oldest reading first and an event only when it holds
 * nothing else, then says so with a {@code probe_degraded} event after the next welcome.
 * With more than one gateway configured it tries them in turn when a connection fails or drops, the back-off
 * doubling per round through the list, and a welcome that carries a {@code redirect} (a clustered gateway that
 * does not own this node) sends it straight to the gateway named there, at most {@value #MAX_REDIRECTS} times in
 * a row before it backs off.
 * All state lives on the transport's one thread; methods may be called from any thread and never block.
 * {@link Uplink} runs it over Vert.x, {@link #overSockets} over a small WebSocket client on the JDK's sockets (no
 * Vert.x, Netty, java.net.http or, for ws://, TLS).
 */
public final class UplinkCore {
    private static final Logger LOG = Logger.getLogger(UplinkCore.class.getName());
    private static final short NORMAL = 1000;
    private static final short GOING_AWAY = 1001;
    /** Redirects followed in a row without a welcome that keeps the node: more means the gateways disagree. */
    public static final int MAX_REDIRECTS = 3;

    private enum State { NEW, CONNECTING, AWAITING_WELCOME, READY, BACKING_OFF, SUSPENDED, CLOSED }

    /** A numbered frame, in wire form, that the gateway has not acknowledged yet. */
    private record Held(long seq, String text, int bytes) {
    }

    private final Transport transport;
    private final UplinkConfig config;
    private final Hello hello;
    private final LongSupplier clock;
    private final RandomGenerator random;
    private final FrameCodec codec = new FrameCodec();
    private final String helloText;
    private final List<Target> targets = new ArrayList<>();

    private final TreeMap<Long, Held> buffer = new TreeMap<>();
    // seqs of the readings in the buffer, oldest first: the drop order when it is full
    private final ArrayDeque<Long> readingSeqs = new ArrayDeque<>();
    private long heldBytes;
    private long nextSeq = 1;
    private long writtenUpTo;
    private State state = State.NEW;
    private Transport.Socket ws;
    private int attempt;
    private long connectId;
    private Runnable timer;
    private long unreportedSamples;
    private long unreportedEvents;
    private long unreportedLow = Long.MAX_VALUE;
    private long unreportedHigh;
    private LongConsumer intervalHandler = ms -> { };
    private int targetIndex;
    private Target redirect;
    private int redirectsInRow;

    // written on the uplink's thread only, read from anywhere
    private volatile boolean connected;
    private volatile long lastSeq;
    private volatile long framesWritten;
    private volatile long ackedSeq;
    private volatile long droppedSamples;
    private volatile long droppedEvents;
    private volatile long reconnects;
    private volatile int bufferedFrames;
    private volatile long bufferedBytes;
    private volatile String gateway;

    /**
     * @param clock epoch ms, for the timestamp of the uplink's own {@code probe_degraded} events
     * @param random the back-off jitter
     */
    UplinkCore(Transport transport, UplinkConfig config, Hello hello, LongSupplier clock, RandomGenerator random) {
        this.transport = transport;
        this.config = config;
        this.hello = hello;
        this.clock = clock;
        this.random = random;
        this.helloText = codec.encode(hello);
        targets.add(new Target(config.ssl(), config.host(), config.port(), config.path()));
        config.others().forEach(u -> targets.add(Target.of(u)));
        this.gateway = targets.get(0).toString();
    }

    /**
     * An uplink over a small WebSocket client on the JDK's sockets ({@link SocketTransport}), on a thread of its
     * own, with an unseeded jitter source: the lean NVML probe's.
     */
    public static UplinkCore overSockets(UplinkConfig config, Hello hello, LongSupplier clock) {
        return new UplinkCore(new SocketTransport(config), config, hello, clock, new SplittableRandom());
    }

    /** The node this uplink speaks for. */
    public String node() {
        return hello.node();
    }

    /** Called on the uplink's thread when the gateway asks for another sampling interval (a config frame). */
    public UplinkCore intervalHandler(LongConsumer handler) {
        this.intervalHandler = handler;
        return this;
    }

    /** Starts connecting; succeeds at once, and the uplink keeps trying until it is closed. */
    public CompletableFuture<Void> start() {
        CompletableFuture<Void> started = new CompletableFuture<>();
        onContext(() -> {
            if (state != State.NEW) {
                started.completeExceptionally(new IllegalStateException("uplink of " + node() + " was already started"));
                return;
            }
            connect();
            started.complete(null);
        });
        return started;
    }

    /**
     * Numbers the frame, holds it until acknowledged and writes it when connected. Takes the numbered frames a
     * producer sends: sample, event, app, sched; their own seq is ignored.
     */
    public void send(Frame frame) {
        boolean reading = frame instanceof Sample || frame instanceof App || frame instanceof Sched;
        if (!reading && !(frame instanceof Event)) {
            throw new IllegalArgumentException("an uplink sends sample, event, app and sched frames, not '" + frame.type() + "'");
        }
        onContext(() -> hold(frame, reading));
    }

    /** Drops the connection and stays away, buffering what is sent, until {@link #resume()}. */
    public CompletableFuture<Void> suspend() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        onContext(() -> {
            if (state == State.CLOSED) {
                done.complete(null);
                return;
            }
            state = State.SUSPENDED;
            cancelTimer();
            disconnect(GOING_AWAY, "node silent").whenComplete((v, e) -> done.complete(null));
        });
        return done;
    }

    /** Connects again at once after {@link #suspend()}. */
    public void resume() {
        onContext(() -> {
            if (state == State.SUSPENDED) {
                attempt = 0;
                connect();
            }
        });
    }

    /** Closes the connection with 1000 and stops reconnecting; frames still unacknowledged are let go. */
    public CompletableFuture<Void> close() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        onContext(() -> {
            state = State.CLOSED;
            cancelTimer();
            disconnect(NORMAL, "probe stopping").thenCompose(v -> transport.close())
                    .whenComplete((v, e) -> done.complete(null));
        });
        return done;
    }

    /** The probe URL of the gateway this uplink is connected or connecting to now. */
    public String gateway() {
        return gateway;
    }

    /** The counters as they are now. */
    public UplinkStats stats() {
        return new UplinkStats(connected, lastSeq, framesWritten, ackedSeq, droppedSamples, droppedEvents, reconnects,
                bufferedFrames, bufferedBytes);
    }

    // ---- connection

    private void connect() {
        state = State.CONNECTING;
        Target to = target();
        gateway = to.toString();
        long id = ++connectId;
        transport.connect(to, config.token(), config.welcomeTimeoutMs(), new Transport.Listener() {
            @Override
            public void opened(Transport.Socket socket) {
                // a suspend, close or newer attempt since makes this result stale
                if (state != State.CONNECTING || id != connectId) {
                    socket.close(GOING_AWAY, "no longer wanted");
                    return;
                }
                UplinkCore.this.opened(socket);
            }

            @Override
            public void failed(String why) {
                if (state == State.CONNECTING && id == connectId) {
                    log(node() + ": cannot connect to " + where() + ": " + why);
                    retry();
                }
            }

            @Override
            public void text(Transport.Socket socket, String text) {
                if (socket == ws) {
                    onText(text);
                }
            }

            @Override
            public void closed(Transport.Socket socket, Short code, String reason) {
                UplinkCore.this.closed(socket, code, reason);
            }
        });
    }

    private void opened(Transport.Socket socket) {
        ws = socket;
        state = State.AWAITING_WELCOME;
        socket.send(helloText);
        timer = transport.timer(config.welcomeTimeoutMs(), () -> {
            timer = null;
            if (state == State.AWAITING_WELCOME && ws == socket) {
                log(node() + ": no welcome from " + where() + " within " + config.welcomeTimeoutMs() + " ms");
                socket.close(NORMAL, "no welcome");
            }
        });
    }

    private void closed(Transport.Socket socket, Short code, String reason) {
        if (socket != ws) {
            return;
        }
        ws = null;
        connected = false;
        if (state == State.AWAITING_WELCOME || state == State.READY) {
            log(node() + ": connection to " + where() + " closed" + (code == null ? "" : " (" + code
                    + (reason == null ? "" : " " + reason) + ")"));
            retry();
        }
    }

    private Target target() {
        return redirect != null ? redirect : targets.get(targetIndex);
    }

    /**
     * After a failure the next configured gateway is tried, unless the failed one was a redirect's target:
     * then the gateway that redirected is asked again, and names the node's new owner once the cluster knows.
     */
    private void retry() {
        cancelTimer();
        if (redirect != null) {
            redirect = null;
        } else {
            targetIndex = (targetIndex + 1) % targets.size();
        }
        redirectsInRow = 0;
        state = State.BACKING_OFF;
        long delay = config.backoff().delayMs(attempt++, targets.size(), random.nextDouble());
        timer = transport.timer(delay, () -> {
            timer = null;
            if (state == State.BACKING_OFF) {
                reconnects++;
                connect();
            }
        });
    }

    private CompletableFuture<Void> disconnect(short code, String reason) {
        connected = false;
        Transport.Socket socket = ws;
        ws = null;
        return socket == null ? CompletableFuture.completedFuture(null) : socket.close(code, reason);
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.run();
            timer = null;
        }
    }

    // ---- gateway frames

    private void onText(String text) {
        Decoded decoded = codec.decode(text);
        if (decoded instanceof Decoded.Bad bad) {
            LOG.warning(() -> node() + ": unreadable frame from the gateway: " + bad.message());
            return;
        }
        Frame frame = ((Decoded.Ok) decoded).frame();
        if (frame instanceof Welcome w) {
            welcomed(w);
        } else if (frame instanceof Ack a) {
            acked(a.seq());
        } else if (frame instanceof ErrorFrame e) {
            refused(e);
        } else if (frame instanceof ConfigFrame c) {
            intervalHandler.accept(c.intervalMs());
        } else {
            LOG.warning(() -> node() + ": the gateway sent a '" + frame.type() + "' frame, which only producers send");
        }
    }

    private void welcomed(Welcome w) {
        if (state != State.AWAITING_WELCOME) {
            LOG.fine(() -> node() + ": ignoring a second welcome");
            return;
        }
        if (w.redirect() != null) {
            redirected(w.redirect());
            return;
        }
        cancelTimer();
        state = State.READY;
        attempt = 0;
        redirectsInRow = 0;
        connected = true;
        acked(w.ackedSeq());
        writtenUpTo = w.ackedSeq();
        LOG.fine(() -> node() + ": welcomed by " + where() + ", gateway holds up to seq " + w.ackedSeq());
        pump();
        reportDrops();
    }

    private void redirected(String url) {
        cancelTimer();
        String from = where();
        if (++redirectsInRow > MAX_REDIRECTS) {
            LOG.warning(() -> node() + ": " + MAX_REDIRECTS + " redirects in a row, the last from " + from + " to "
                    + url + "; backing off");
            disconnect(NORMAL, "too many redirects");
            retry();
            return;
        }
        LOG.info(() -> node() + ": " + from + " redirects to " + url);
        disconnect(NORMAL, "redirected");
        // the codec let through only a ws:// or wss:// URL with a host
        redirect = Target.of(URI.create(url));
        connect();
    }

    private void refused(ErrorFrame e) {
        LOG.warning(() -> node() + ": gateway error " + e.code() + (e.frameSeq() == null ? "" : " on seq " + e.frameSeq())
                + ": " + e.message());
        if (state == State.AWAITING_WELCOME && ws != null) {
            // refused at hello: the close handler backs off
            ws.close(NORMAL, "refused");
        }
    }

    private void acked(long seq) {
        if (seq > ackedSeq) {
            ackedSeq = seq;
        }
        NavigableMap<Long, Held> done = buffer.headMap(seq, true);
        for (Held h : done.values()) {
            heldBytes -= h.bytes;
        }
        done.clear();
        while (!readingSeqs.isEmpty() && readingSeqs.peekFirst() <= seq) {
            readingSeqs.pollFirst();
        }
        sizes();
    }

    // ---- buffer

    private void hold(Frame frame, boolean reading) {
        hold(frame, reading, true);
    }

    /** {@code bounded} false lets the buffer overshoot by this frame: a drop report must not cause a drop. */
    private void hold(Frame frame, boolean reading, boolean bounded) {
        if (state == State.CLOSED) {
            LOG.fine(() -> node() + ": closed, not sending a '" + frame.type() + "' frame");
            return;
        }
        long seq = nextSeq++;
        String text = codec.encode(numbered(frame, seq));
        Held held = new Held(seq, text, text.getBytes(StandardCharsets.UTF_8).length);
        buffer.put(seq, held);
        if (reading) {
            readingSeqs.addLast(seq);
        }
        heldBytes += held.bytes;
        lastSeq = seq;
        while (bounded && (buffer.size() > config.maxBufferedFrames() || heldBytes > config.maxBufferedBytes())
                && buffer.size() > 1) {
            dropOne();
        }
        sizes();
        pump();
    }

    private void dropOne() {
        Held dropped;
        if (!readingSeqs.isEmpty()) {
            dropped = buffer.remove(readingSeqs.pollFirst());
            droppedSamples++;
            unreportedSamples++;
        } else {
            dropped = buffer.pollFirstEntry().getValue();
            droppedEvents++;
            unreportedEvents++;
        }
        heldBytes -= dropped.bytes;
        unreportedLow = Math.min(unreportedLow, dropped.seq);
        unreportedHigh = Math.max(unreportedHigh, dropped.seq);
    }

    private void reportDrops() {
        if (unreportedSamples + unreportedEvents == 0) {
            return;
        }
        String text = "uplink buffer full (" + config.maxBufferedFrames() + " frames / " + config.maxBufferedBytes()
                + " bytes): dropped " + unreportedSamples + " samples and " + unreportedEvents + " events between seq "
                + unreportedLow + " and " + unreportedHigh;
        LOG.warning(() -> node() + ": " + text);
        unreportedSamples = 0;
        unreportedEvents = 0;
        unreportedLow = Long.MAX_VALUE;
        unreportedHigh = 0;
        hold(new Event(0, clock.getAsLong(), null, "probe_degraded", null, text, null), false, false);
    }

    /** Writes the held frames after the last one written, in seq order, as far as the socket takes them. */
    private void pump() {
        if (state != State.READY || ws == null) {
            return;
        }
        for (Held h : buffer.tailMap(writtenUpTo, false).values()) {
            if (ws.writeQueueFull()) {
                ws.drainHandler(this::pump);
                return;
            }
            ws.send(h.text);
            writtenUpTo = h.seq;
            framesWritten++;
        }
    }

    private void sizes() {
        bufferedFrames = buffer.size();
        bufferedBytes = heldBytes;
    }

    private static Frame numbered(Frame f, long seq) {
        if (f instanceof Sample s) {
            return new Sample(seq, s.ts(), s.cards());
        }
        if (f instanceof Event e) {
            return new Event(seq, e.ts(), e.uuid(), e.kind(), e.xid(), e.text(), e.pid());
        }
        if (f instanceof App a) {
            return new App(seq, a.ts(), a.task(), a.business(), a.source(), a.values());
        }
        Sched s = (Sched) f;
        return new Sched(seq, s.ts(), s.queue(), s.values(), s.tasks());
    }

    private void onContext(Runnable action) {
        if (transport.onLoop()) {
            action.run();
        } else {
            transport.execute(action);
        }
    }

    private String where() {
        return gateway;
    }

    /** The first failure of a streak at each gateway is worth a warning; the retries that follow are not. */
    private void log(String message) {
        if (attempt < targets.size()) {
            LOG.warning(message);
        } else {
            LOG.fine(message);
        }
    }
}
