package io.gpuwatch.probe.uplink;

import io.gpuwatch.probe.net.Dialer;
import io.gpuwatch.probe.net.TlsTrust;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * An uplink's connections as a small RFC 6455 client over the JDK's blocking sockets ({@link Dialer}: TLS for
 * {@code wss://}), for the lean NVML probe: the JDK's {@code java.net.http} client loaded some 290 classes of its
 * own and about 470 of TLS and security even for a plain {@code ws://} gateway (it builds an SSL context for
 * every client), 9.5 MiB of the probe's RSS (docs/performance.md#node-probe). It speaks what the probe
 * needs: the upgrade with a bearer token, text messages out (masked, unfragmented), text messages in (fragments
 * joined), ping, pong and close. One daemon thread runs the uplink and its timers; each connection adds a reader
 * and a writer thread, so a stalled gateway never blocks the uplink's thread.
 */
final class SocketTransport implements Transport {
    private static final Logger LOG = Logger.getLogger(SocketTransport.class.getName());
    /** Bytes queued on a connection beyond which the uplink waits for a drain, as Vert.x's 64 KiB. */
    private static final int WRITE_QUEUE_MAX = 64 * 1024;
    /** The longest message taken from the gateway (its frames are acks, config and redirects: a few hundred bytes). */
    private static final int MAX_MESSAGE = 1 << 20;
    /** How long a close waits for the gateway's close before the socket is dropped. */
    private static final long CLOSE_WAIT_MS = 5_000;
    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    private static final byte[] NO_BYTES = new byte[0];

    private final Dialer dialer;
    private final ScheduledThreadPoolExecutor loop;
    private final SecureRandom random = new SecureRandom();
    private volatile Thread loopThread;

    SocketTransport(UplinkConfig config) {
        this.dialer = new Dialer(TlsTrust.pem(config.trustPemPath() == null ? null : Path.of(config.trustPemPath())));
        this.loop = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "gpuwatch-uplink");
            t.setDaemon(true);
            loopThread = t;
            return t;
        });
        loop.setRemoveOnCancelPolicy(true);
    }

    /** Runs on the uplink's thread; once the uplink is closed, there is nothing left to run. */
    @Override
    public void execute(Runnable action) {
        try {
            loop.execute(action);
        } catch (RejectedExecutionException closed) {
            LOG.fine("uplink closed: dropping a late callback");
        }
    }

    @Override
    public boolean onLoop() {
        return Thread.currentThread() == loopThread;
    }

    @Override
    public Runnable timer(long delayMs, Runnable action) {
        try {
            ScheduledFuture<?> f = loop.schedule(action, delayMs, TimeUnit.MILLISECONDS);
            return () -> f.cancel(false);
        } catch (RejectedExecutionException closed) {
            return () -> { };
        }
    }

    @Override
    public void connect(Target to, String token, long timeoutMs, Listener listener) {
        Thread reader = new Thread(() -> open(to, token, timeoutMs, listener), "gpuwatch-uplink-read");
        reader.setDaemon(true);
        reader.start();
    }

    /** On the reader thread: connects, upgrades, then reads until the connection ends. */
    private void open(Target to, String token, long timeoutMs, Listener listener) {
        java.net.Socket socket = null;
        Conn conn;
        try {
            socket = dialer.open(to.host(), to.port(), to.ssl(), (int) Math.min(Integer.MAX_VALUE, timeoutMs));
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            String refused = upgrade(to, token, in, out);
            if (refused != null) {
                Dialer.closeQuietly(socket);
                execute(() -> listener.failed(refused));
                return;
            }
            socket.setSoTimeout(0);
            conn = new Conn(socket, in, out, listener);
        } catch (IOException | GeneralSecurityException e) {
            Dialer.closeQuietly(socket);
            String why = e.getMessage() != null ? e.getMessage() : e.toString();
            execute(() -> listener.failed(why));
            return;
        }
        conn.writer.start();
        execute(() -> listener.opened(conn));
        conn.read();
    }

    /** Sends the upgrade request and reads the answer: null when switched, else why not. */
    private String upgrade(Target to, String token, InputStream in, OutputStream out) throws IOException,
            GeneralSecurityException {
        byte[] nonce = new byte[16];
        random.nextBytes(nonce);
        String key = Base64.getEncoder().encodeToString(nonce);
        boolean defaultPort = to.port() == (to.ssl() ? 443 : 80);
        StringBuilder req = new StringBuilder(256).append("GET ").append(to.path()).append(" HTTP/1.1\r\n")
                .append("Host: ").append(to.host()).append(defaultPort ? "" : ":" + to.port()).append("\r\n")
                .append("Upgrade: websocket\r\nConnection: Upgrade\r\n")
                .append("Sec-WebSocket-Key: ").append(key).append("\r\nSec-WebSocket-Version: 13\r\n");
        if (token != null) {
            req.append("Authorization: Bearer ").append(token).append("\r\n");
        }
        out.write(req.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
        out.flush();

        String head = readHead(in);
        String[] lines = head.split("\r\n");
        String[] status = lines[0].split(" ", 3);
        int code;
        try {
            code = status.length >= 2 && status[0].startsWith("HTTP/") ? Integer.parseInt(status[1]) : -1;
        } catch (NumberFormatException e) {
            code = -1;
        }
        if (code == 401) {
            return "the gateway refused the token (HTTP 401)";
        }
        if (code != 101) {
            return "no WebSocket upgrade: " + lines[0];
        }
        String accept = null;
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0 && lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT).equals("sec-websocket-accept")) {
                accept = lines[i].substring(colon + 1).trim();
            }
        }
        String expected = Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-1")
                .digest((key + GUID).getBytes(StandardCharsets.ISO_8859_1)));
        return expected.equals(accept) ? null : "the gateway's WebSocket accept key does not match";
    }

    /** The response head, up to its blank line (16 KiB at most); nothing of the WebSocket stream is read. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream(512);
        int state = 0;
        while (state < 4) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("the gateway closed the connection during the upgrade");
            }
            head.write(b);
            if (head.size() > 16 * 1024) {
                throw new IOException("the gateway's upgrade answer is over 16 KiB");
            }
            state = b == (state % 2 == 0 ? '\r' : '\n') ? state + 1 : b == '\r' ? 1 : 0;
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public CompletableFuture<Void> close() {
        loop.shutdown();
        return CompletableFuture.completedFuture(null);
    }

    /** A frame for the writer: its bytes, and how many of them count against the write queue. */
    private record Out(byte[] bytes, int counted) {
    }

    private static final Out STOP = new Out(NO_BYTES, 0);

    /**
     * One connection. The uplink's thread sends; the writer thread writes what it queued in order; the reader
     * thread reads. The listener hears of everything on the uplink's thread, and of the end once.
     */
    private final class Conn implements Transport.Socket {
        private final java.net.Socket socket;
        private final InputStream in;
        private final OutputStream out;
        private final Listener listener;
        private final LinkedBlockingQueue<Out> queue = new LinkedBlockingQueue<>();
        private final AtomicLong queued = new AtomicLong();
        private final Thread writer;
        // on the uplink's thread
        private Runnable drain;
        private CompletableFuture<Void> closing;
        private boolean closed;
        // a close frame queued (by either side's close), and written
        private volatile boolean closeQueued;
        private volatile boolean closeSent;

        Conn(java.net.Socket socket, InputStream in, OutputStream out, Listener listener) {
            this.socket = socket;
            this.in = in;
            this.out = out;
            this.listener = listener;
            this.writer = new Thread(this::write, "gpuwatch-uplink-write");
            writer.setDaemon(true);
        }

        @Override
        public void send(String text) {
            if (closing != null || closed) {
                return;
            }
            byte[] frame = frame(0x1, text.getBytes(StandardCharsets.UTF_8));
            queued.addAndGet(frame.length);
            queue.add(new Out(frame, frame.length));
        }

        @Override
        public boolean writeQueueFull() {
            return queued.get() > WRITE_QUEUE_MAX;
        }

        @Override
        public void drainHandler(Runnable handler) {
            this.drain = handler;
            if (queued.get() <= WRITE_QUEUE_MAX / 2) {
                execute(this::drained);
            }
        }

        private void drained() {
            if (drain != null && !closed && queued.get() <= WRITE_QUEUE_MAX / 2) {
                Runnable d = drain;
                drain = null;
                d.run();
            }
        }

        @Override
        public CompletableFuture<Void> close(short code, String reason) {
            if (closed) {
                return CompletableFuture.completedFuture(null);
            }
            if (closing == null) {
                closing = new CompletableFuture<>();
                closeQueued = true;
                queue.add(new Out(closeFrame(code, reason), 0));
                timer(CLOSE_WAIT_MS, () -> ended(null, null));
            }
            return closing;
        }

        /** The connection is over: closed by us or the gateway, or failed. On the uplink's thread. */
        private void ended(Short code, String reason) {
            if (closed) {
                return;
            }
            closed = true;
            queue.clear();
            queue.add(STOP);
            Dialer.closeQuietly(socket);
            if (closing != null) {
                closing.complete(null);
            }
            listener.closed(this, code, reason);
        }

        /** The writer thread: frames in order until the connection ends. */
        private void write() {
            try {
                while (true) {
                    Out o = queue.take();
                    if (o == STOP) {
                        return;
                    }
                    out.write(o.bytes);
                    out.flush();
                    if ((o.bytes[0] & 0x0F) == 0x8) {
                        closeSent = true;
                    }
                    if (o.counted > 0 && queued.addAndGet(-o.counted) <= WRITE_QUEUE_MAX / 2) {
                        execute(this::drained);
                    }
                }
            } catch (IOException e) {
                LOG.fine(() -> "uplink connection: " + e);
                execute(() -> ended(null, null));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** The reader thread: messages until the gateway closes or the connection fails. */
        private void read() {
            ByteArrayOutputStream message = new ByteArrayOutputStream(1024);
            int messageOp = -1;
            try {
                while (true) {
                    int b0 = readByte();
                    int b1 = readByte();
                    boolean fin = (b0 & 0x80) != 0;
                    int op = b0 & 0x0F;
                    long len = b1 & 0x7F;
                    if (len == 126) {
                        len = (readByte() << 8) | readByte();
                    } else if (len == 127) {
                        len = 0;
                        for (int i = 0; i < 8; i++) {
                            len = (len << 8) | readByte();
                        }
                    }
                    byte[] mask = null;
                    if ((b1 & 0x80) != 0) {
                        mask = in.readNBytes(4);
                    }
                    if (len < 0 || len + message.size() > MAX_MESSAGE || (op >= 0x8 && len > 125)) {
                        fail((short) 1009, "message too big");
                        return;
                    }
                    byte[] payload = in.readNBytes((int) len);
                    if (payload.length < len) {
                        throw new EOFException("the connection ended inside a frame");
                    }
                    if (mask != null) {
                        for (int i = 0; i < payload.length; i++) {
                            payload[i] ^= mask[i & 3];
                        }
                    }
                    switch (op) {
                        case 0x0 -> {
                            if (messageOp < 0) {
                                fail((short) 1002, "continuation without a message");
                                return;
                            }
                            message.write(payload);
                        }
                        case 0x1, 0x2 -> {
                            message.reset();
                            message.write(payload);
                            messageOp = op;
                        }
                        case 0x8 -> {
                            Short code = payload.length >= 2 ? (short) (((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF))
                                    : null;
                            String reason = payload.length > 2
                                    ? new String(payload, 2, payload.length - 2, StandardCharsets.UTF_8) : null;
                            if (!closeQueued) {
                                closeQueued = true;
                                queue.add(new Out(closeFrame(code == null ? 1000 : code, null), 0));
                            }
                            // let the writer answer before the socket goes
                            waitForWriter();
                            execute(() -> ended(code, reason));
                            return;
                        }
                        case 0x9 -> queue.add(new Out(frame(0xA, payload), 0));
                        case 0xA -> { }
                        default -> {
                            fail((short) 1002, "unknown opcode " + op);
                            return;
                        }
                    }
                    if (fin && op <= 0x2) {
                        if (messageOp == 0x1) {
                            String text = message.toString(StandardCharsets.UTF_8);
                            execute(() -> {
                                if (!closed) {
                                    listener.text(this, text);
                                }
                            });
                        } else {
                            LOG.fine("ignoring a binary message from the gateway");
                        }
                        message.reset();
                        messageOp = -1;
                    }
                }
            } catch (IOException e) {
                LOG.fine(() -> "uplink connection: " + e);
                execute(() -> ended(null, null));
            }
        }

        /** Waits briefly for the writer to have sent the close frame. */
        private void waitForWriter() {
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1000);
            while (!closeSent && !queue.isEmpty() && System.nanoTime() < until) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        /** A protocol error from the gateway: close with {@code code} and end. */
        private void fail(short code, String why) {
            LOG.fine(() -> "uplink connection: " + why);
            closeQueued = true;
            queue.add(new Out(closeFrame(code, why), 0));
            waitForWriter();
            execute(() -> ended(null, null));
        }

        private int readByte() throws IOException {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("the gateway closed the connection");
            }
            return b;
        }
    }

    private byte[] closeFrame(int code, String reason) {
        byte[] r = reason == null ? NO_BYTES : reason.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(r.length, 123);
        byte[] payload = new byte[2 + n];
        payload[0] = (byte) (code >> 8);
        payload[1] = (byte) code;
        System.arraycopy(r, 0, payload, 2, n);
        return frame(0x8, payload);
    }

    /** One final client frame: {@code op}, masked with a fresh key as RFC 6455 asks of a client. */
    private byte[] frame(int op, byte[] payload) {
        int n = payload.length;
        int header = n < 126 ? 2 : n < 65_536 ? 4 : 10;
        byte[] f = new byte[header + 4 + n];
        f[0] = (byte) (0x80 | op);
        if (n < 126) {
            f[1] = (byte) (0x80 | n);
        } else if (n < 65_536) {
            f[1] = (byte) (0x80 | 126);
            f[2] = (byte) (n >> 8);
            f[3] = (byte) n;
        } else {
            f[1] = (byte) (0x80 | 127);
            for (int i = 0; i < 8; i++) {
                f[2 + i] = (byte) ((long) n >> (56 - 8 * i));
            }
        }
        int key = random.nextInt();
        byte[] mask = {(byte) (key >> 24), (byte) (key >> 16), (byte) (key >> 8), (byte) key};
        System.arraycopy(mask, 0, f, header, 4);
        for (int i = 0; i < n; i++) {
            f[header + 4 + i] = (byte) (payload[i] ^ mask[i & 3]);
        }
        return f;
    }
}
