package io.gpuwatch.probe.uplink;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * An uplink's connections over the JDK's own WebSocket client ({@code java.net.http}), so that a probe that
 * needs nothing else from Vert.x loads neither Vert.x nor Netty. One daemon thread runs the uplink, its timers
 * and the client's callbacks; the client adds its selector thread.
 */
final class JdkTransport implements Transport {
    private static final Logger LOG = Logger.getLogger(JdkTransport.class.getName());
    /** Characters queued on a connection beyond which the uplink waits for a drain, as Vert.x's 64 KiB. */
    private static final int WRITE_QUEUE_MAX = 64 * 1024;

    private final UplinkConfig config;
    private final ScheduledThreadPoolExecutor loop;
    private volatile Thread loopThread;
    private HttpClient plain;
    private HttpClient tls;

    JdkTransport(UplinkConfig config) {
        this.config = config;
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
        HttpClient client;
        try {
            client = client(to.ssl());
        } catch (IOException | GeneralSecurityException e) {
            listener.failed("TLS: " + e.getMessage());
            return;
        }
        JdkSocket socket = new JdkSocket(listener);
        WebSocket.Builder builder = client.newWebSocketBuilder().connectTimeout(Duration.ofMillis(timeoutMs));
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        builder.buildAsync(URI.create(to.toString()), socket).whenComplete((ws, e) -> execute(() -> {
            if (e != null) {
                listener.failed(why(e));
                return;
            }
            socket.ws = ws;
            listener.opened(socket);
            ws.request(1);
        }));
    }

    private static String why(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof WebSocketHandshakeException h && h.getResponse().statusCode() == 401) {
            return "the gateway refused the token (HTTP 401)";
        }
        return cause.getMessage() != null ? cause.getMessage() : cause.toString();
    }

    /**
     * The client for plain or TLS connections, made on first use: a JDK client loads the default trust store
     * when it is given no SSL context, which a plain ws:// uplink has no use for.
     */
    private synchronized HttpClient client(boolean ssl) throws IOException, GeneralSecurityException {
        if (ssl && tls == null) {
            tls = builder().sslContext(config.trustPemPath() == null ? SSLContext.getDefault()
                    : trusting(Path.of(config.trustPemPath()))).build();
        } else if (!ssl && plain == null) {
            SSLContext none = SSLContext.getInstance("TLS");
            none.init(new KeyManager[0], new TrustManager[0], null);
            plain = builder().sslContext(none).build();
        }
        return ssl ? tls : plain;
    }

    private HttpClient.Builder builder() {
        return HttpClient.newBuilder().executor(this::execute)
                .connectTimeout(Duration.ofMillis(config.welcomeTimeoutMs()));
    }

    /** A TLS context that trusts the PEM certificates in {@code pem}; the client checks the host name. */
    private static SSLContext trusting(Path pem) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        try (InputStream in = Files.newInputStream(pem)) {
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("trusted-" + i++, c);
            }
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    @Override
    public CompletableFuture<Void> close() {
        loop.shutdown();
        return CompletableFuture.completedFuture(null);
    }

    /**
     * One connection. The JDK's WebSocket takes one text message at a time, so it queues the rest and sends
     * each when the last is out; the listener hears of everything on the uplink's thread.
     */
    private final class JdkSocket implements Socket, WebSocket.Listener {
        private final Listener listener;
        private final ArrayDeque<String> queue = new ArrayDeque<>();
        private final StringBuilder partial = new StringBuilder();
        private WebSocket ws;
        private long queuedChars;
        private boolean sending;
        private Runnable drain;
        private short closeCode;
        private String closeReason;
        private CompletableFuture<Void> closing;
        private boolean closed;

        JdkSocket(Listener listener) {
            this.listener = listener;
        }

        @Override
        public void send(String text) {
            if (closing != null || closed) {
                return;
            }
            queue.addLast(text);
            queuedChars += text.length();
            next();
        }

        private void next() {
            if (sending || closed) {
                return;
            }
            String text = queue.pollFirst();
            if (text == null) {
                if (closing != null) {
                    ws.sendClose(closeCode, closeReason).whenComplete((w, e) -> execute(() -> ended(closeCode,
                            closeReason)));
                    sending = true;
                }
                return;
            }
            sending = true;
            ws.sendText(text, true).whenComplete((w, e) -> execute(() -> {
                sending = false;
                queuedChars -= text.length();
                if (e != null) {
                    ended(null, null);
                    return;
                }
                if (drain != null && queuedChars <= WRITE_QUEUE_MAX / 2) {
                    Runnable d = drain;
                    drain = null;
                    d.run();
                }
                next();
            }));
        }

        @Override
        public boolean writeQueueFull() {
            return queuedChars > WRITE_QUEUE_MAX;
        }

        @Override
        public void drainHandler(Runnable handler) {
            this.drain = handler;
        }

        @Override
        public CompletableFuture<Void> close(short code, String reason) {
            if (closed) {
                return CompletableFuture.completedFuture(null);
            }
            if (closing == null) {
                closing = new CompletableFuture<>();
                closeCode = code;
                closeReason = reason;
                next();
            }
            return closing;
        }

        /** The connection is over: closed by us or the gateway, or failed. */
        private void ended(Short code, String reason) {
            if (closed) {
                return;
            }
            closed = true;
            queue.clear();
            ws.abort();
            if (closing != null) {
                closing.complete(null);
            }
            listener.closed(this, code, reason);
        }

        /** Asks for nothing yet: the first message is requested once the uplink holds this connection. */
        @Override
        public void onOpen(WebSocket webSocket) {
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                String text = partial.toString();
                partial.setLength(0);
                execute(() -> {
                    if (!closed) {
                        listener.text(this, text);
                    }
                });
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
            LOG.fine("ignoring a binary frame from the gateway");
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            execute(() -> ended((short) statusCode, reason.isEmpty() ? null : reason));
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            LOG.fine(() -> "uplink connection: " + error);
            execute(() -> ended(null, null));
        }
    }
}
