package io.gpuwatch.gateway.ingest;

import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.protocol.Ack;
import io.gpuwatch.protocol.ConfigFrame;
import io.gpuwatch.protocol.ErrorFrame;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Welcome;
import io.gpuwatch.protocol.codec.Decoded;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.http.WebSocketFrame;

import java.util.Optional;
import java.util.UUID;
import java.util.logging.Logger;

/** One probe connection: hello, then numbered frames, de-duplicated, rate-limited and acknowledged. */
final class ProbeSession {
    private static final Logger LOG = Logger.getLogger(ProbeSession.class.getName());
    private static final short POLICY_VIOLATION = 1008;
    private static final short TOO_BIG = 1009;
    /** At most this many hello timeouts pass before a connection whose hello is still being admitted is closed. */
    static final int HELLO_PATIENCE = 3;

    private final ProbeEndpoint endpoint;
    private final ServerWebSocket ws;
    private final TokenFile.Entry token;
    private final TokenBucket bucket;
    private final TextMessages messages;
    private String node;
    private int badInRow;
    private long unackedSeq = -1;
    /** The last seq acknowledged while acknowledging only what is on disk. */
    private long ackedDurable;
    private long lastRateError;
    private long ackTimer = -1;
    private long helloTimer = -1;
    private boolean closing;
    private boolean admitting;

    ProbeSession(ProbeEndpoint endpoint, ServerWebSocket ws, TokenFile.Entry token) {
        this.endpoint = endpoint;
        this.ws = ws;
        this.token = token;
        IngestConfig c = endpoint.config();
        this.bucket = new TokenBucket(c.maxFramesPerSecond(), c.burstFrames(), endpoint.now());
        this.messages = new TextMessages(endpoint.transportCap());
    }

    void start() {
        ws.frameHandler(this::onFrame);
        ws.exceptionHandler(e -> LOG.fine(() -> where() + ": " + e.getMessage()));
        ws.closeHandler(v -> onClose());
        awaitHello(0);
    }

    /**
     * Closes a connection that has not said hello within the timeout; a hello that came and is being admitted
     * (a cluster takeover under way) is not late, and is given up to {@value #HELLO_PATIENCE} timeouts in all.
     */
    private void awaitHello(long waited) {
        long timeout = endpoint.config().helloTimeoutMs();
        helloTimer = endpoint.vertx().setTimer(timeout, id -> {
            helloTimer = -1;
            if (node != null || closing) {
                return;
            }
            long total = waited + timeout;
            if (admitting && total < HELLO_PATIENCE * timeout) {
                awaitHello(total);
                return;
            }
            fail("hello_timeout", null, admitting ? "hello not admitted within " + total + " ms"
                    : "no hello within " + timeout + " ms", POLICY_VIOLATION);
        });
    }

    private void onFrame(WebSocketFrame frame) {
        if (closing) {
            return;
        }
        TextMessages.Message m = messages.accept(frame);
        if (m instanceof TextMessages.Text t) {
            onText(t.text());
        } else if (m instanceof TextMessages.Refused r) {
            endpoint.counters().frames.incrementAndGet();
            bad(new Decoded.Bad(r.code(), null, "", r.message()));
        }
    }

    private void onText(String text) {
        if (closing) {
            return;
        }
        endpoint.counters().frames.incrementAndGet();
        long readAt = endpoint.nanos();
        if (node != null && endpoint.queue().full()) {
            long seq = SampleQueue.sampleSeq(text);
            if (seq > 0 && !tooFarAhead(seq)) {
                shedUnread(seq);
                return;
            }
        }
        Decoded decoded = endpoint.codec().decode(text);
        if (decoded instanceof Decoded.Bad bad) {
            bad(bad);
            return;
        }
        Frame frame = ((Decoded.Ok) decoded).frame();
        if (frame instanceof Hello hello) {
            badInRow = 0;
            hello(hello);
            return;
        }
        if (node == null) {
            fail("hello_required", frame.seq(), "the first frame must be hello, got '" + frame.type() + "'", POLICY_VIOLATION);
            return;
        }
        if (tooFarAhead(frame.seq())) {
            bad(new Decoded.Bad("bad_seq", frame.seq(), "seq", "seq " + frame.seq() + " is more than "
                    + SeqBook.MAX_JUMP + " past the last one taken (" + endpoint.seqs().last(node)
                    + "); the frame is not taken, and later frames are"));
            return;
        }
        badInRow = 0;
        if (frame instanceof Sample s) {
            sample(s, readAt);
        } else if (frame instanceof Event e) {
            event(e, readAt);
        } else if (frame instanceof Welcome || frame instanceof Ack || frame instanceof ErrorFrame
                || frame instanceof ConfigFrame) {
            refuseGatewayFrame(frame);
        } else {
            taken(frame);
        }
    }

    /**
     * A seq far beyond the stream's last one is a broken or hostile producer: taking it would make every later
     * frame of the boot look like a duplicate.
     */
    private boolean tooFarAhead(long seq) {
        // the last seq is never negative, so only a seq above the jump itself needs the stream looked up
        return seq > SeqBook.MAX_JUMP && seq - endpoint.seqs().last(node) > SeqBook.MAX_JUMP;
    }

    private void hello(Hello hello) {
        if (node != null && !node.equals(hello.node())) {
            fail("bad_hello", null, "this connection speaks for node '" + node + "', not '" + hello.node() + "'", POLICY_VIOLATION);
            return;
        }
        if (!token.allows(hello.node())) {
            fail("forbidden_node", null, "this token may not speak for node '" + hello.node() + "'", POLICY_VIOLATION);
            return;
        }
        if (node == null) {
            Optional<String> owner = endpoint.redirectFor(hello.node());
            if (owner.isPresent()) {
                redirect(hello.node(), owner.get());
                return;
            }
            if (!admitting) {
                admitting = true;
                endpoint.takeOver(hello.node()).onComplete(ar -> {
                    admitting = false;
                    if (!closing && !ws.isClosed()) {
                        admit(hello);
                    }
                });
            }
            return;
        }
        admit(hello);
    }

    private void admit(Hello hello) {
        boolean first = node == null;
        node = hello.node();
        if (helloTimer >= 0) {
            endpoint.vertx().cancelTimer(helloTimer);
            helloTimer = -1;
        }
        long acked = endpoint.seqs().open(node, hello.bootId());
        if (endpoint.acksWhenDurable()) {
            // what was taken but is not on disk yet stays with the probe, which sends it again: a duplicate now
            acked = Math.min(acked, endpoint.seqs().durableSeq(node));
            ackedDurable = acked;
        }
        endpoint.sink().hello(hello);
        if (first) {
            endpoint.welcomed(node, this);
            ackTimer = endpoint.vertx().setPeriodic(endpoint.config().ackIntervalMs(), id -> flushAck());
        }
        write(new Welcome(Frame.VERSION, UUID.randomUUID().toString(), acked, endpoint.config().intervalMs()));
    }

    private void sample(Sample s, long readAt) {
        if (!endpoint.seqs().take(node, s.seq())) {
            duplicate(s.seq());
            return;
        }
        unackedSeq = s.seq();
        long now = endpoint.now();
        if (!bucket.take(now)) {
            // shedding samples keeps the connection's events flowing; the probe is told, at most once a second
            endpoint.counters().shedSamples.incrementAndGet();
            shed(now, s.seq(), "over " + endpoint.config().maxFramesPerSecond()
                    + " frames/s: samples are being dropped; events are still taken");
            return;
        }
        // events skip the queue: they go to the sink the moment they are read
        if (!endpoint.queue().offer(node, s, readAt)) {
            shed(now, s.seq(), "the gateway is behind: samples are being dropped; events are still taken");
        }
    }

    /** A sample shed undecoded while the gateway is behind: still taken in seq order, and acknowledged. */
    private void shedUnread(long seq) {
        if (!endpoint.seqs().take(node, seq)) {
            duplicate(seq);
            return;
        }
        unackedSeq = seq;
        endpoint.queue().shedUnread();
        shed(endpoint.now(), seq, "the gateway is behind: samples are being dropped; events are still taken");
    }

    /**
     * After a sample was dropped: the node is still heard from, since our being behind must not make a talking
     * node look silent, and the probe is told its samples are being dropped, at most once a second.
     */
    private void shed(long now, long seq, String message) {
        endpoint.sink().shed(node, now, seq);
        if (now - lastRateError >= 1000) {
            lastRateError = now;
            write(new ErrorFrame("rate_limited", seq, message));
        }
    }

    private void event(Event e, long readAt) {
        if (!endpoint.seqs().take(node, e.seq()) || endpoint.seqs().eventRestored(node, e.seq())) {
            duplicate(e.seq());
            ackEvent(e.seq());
            return;
        }
        endpoint.counters().events.incrementAndGet();
        endpoint.sink().frame(node, e);
        endpoint.eventLatency().record(endpoint.nanos() - readAt);
        ackEvent(e.seq());
    }

    /**
     * An event is acknowledged at once, so the probe's buffer lets go of it, unless acknowledgements wait for the
     * disk: then it goes with the next periodic acknowledgement that the checkpoint allows.
     */
    private void ackEvent(long seq) {
        if (endpoint.acksWhenDurable()) {
            return;
        }
        unackedSeq = -1;
        write(new Ack(seq));
    }

    private void taken(Frame frame) {
        if (!endpoint.seqs().take(node, frame.seq())) {
            duplicate(frame.seq());
            return;
        }
        unackedSeq = frame.seq();
        endpoint.sink().frame(node, frame);
    }

    private void duplicate(long seq) {
        endpoint.counters().duplicates.incrementAndGet();
        unackedSeq = Math.max(unackedSeq, seq);
    }

    private void refuseGatewayFrame(Frame frame) {
        bad(new Decoded.Bad("bad_frame", null, "type",
                "frame type '" + frame.type() + "' is sent by the gateway, not by producers"));
    }

    private void flushAck() {
        if (endpoint.acksWhenDurable()) {
            long durable = endpoint.seqs().durableSeq(node);
            if (durable > ackedDurable) {
                ackedDurable = durable;
                write(new Ack(durable));
            }
            return;
        }
        if (unackedSeq >= 0) {
            write(new Ack(unackedSeq));
            unackedSeq = -1;
        }
    }

    private void bad(Decoded.Bad bad) {
        endpoint.counters().badFrames.incrementAndGet();
        LOG.info(() -> where() + ": " + bad.code() + " at '" + bad.path() + "': " + bad.message());
        if (bad.code().equals(Decoded.Bad.TOO_LARGE)) {
            fail(bad.code(), bad.seq(), bad.message(), TOO_BIG);
            return;
        }
        if (node == null) {
            // nothing before a welcome is worth keeping a connection for
            fail(bad.code(), bad.seq(), bad.message(), POLICY_VIOLATION);
            return;
        }
        write(new ErrorFrame(bad.code(), bad.seq(), bad.message()));
        if (++badInRow >= endpoint.config().maxBadFrames()) {
            fail("too_many_bad_frames", bad.seq(), badInRow + " malformed frames in a row", POLICY_VIOLATION);
        }
    }

    private void fail(String code, Long seq, String message, short closeCode) {
        LOG.info(() -> where() + ": closing with " + closeCode + ": " + message);
        write(new ErrorFrame(code, seq, message));
        closing = true;
        ws.close(closeCode, code);
    }

    /** Another gateway of the cluster owns the node: the welcome says where to go, and nothing is kept here. */
    private void redirect(String to, String url) {
        if (helloTimer >= 0) {
            endpoint.vertx().cancelTimer(helloTimer);
            helloTimer = -1;
        }
        LOG.fine(() -> "probe " + to + " from " + ws.remoteAddress() + ": owned by " + url + ", redirecting");
        write(new Welcome(Frame.VERSION, UUID.randomUUID().toString(), 0, endpoint.config().intervalMs(), url));
        closing = true;
        ws.close((short) 1000, "redirected to the node's gateway");
    }

    /** The cluster gave the node to another gateway; the probe reconnects and is redirected there. */
    void moved() {
        closing = true;
        ws.close((short) 1001, "node moved to another gateway");
    }

    /** A newer connection of the same node took over. */
    void replaced() {
        closing = true;
        ws.close((short) 1000, "replaced by a newer connection of the same node");
    }

    private void write(Frame frame) {
        if (!ws.isClosed()) {
            ws.writeTextMessage(endpoint.codec().encode(frame));
        }
    }

    private void onClose() {
        if (ackTimer >= 0) {
            endpoint.vertx().cancelTimer(ackTimer);
        }
        if (helloTimer >= 0) {
            endpoint.vertx().cancelTimer(helloTimer);
        }
        if (node != null && endpoint.closed(node, this)) {
            endpoint.sink().disconnected(node);
        }
    }

    private String where() {
        return "probe " + (node == null ? "?" : node) + " from " + ws.remoteAddress();
    }
}
