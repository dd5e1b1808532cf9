package io.gpuwatch.probe.uplink;

import java.util.concurrent.CompletableFuture;

/**
 * What an {@link UplinkCore} needs from a WebSocket client: one thread (or context) that runs its actions in
 * order, timers on it, and connections whose callbacks arrive on it. Two exist: Vert.x's ({@link Uplink}) for
 * producers that already run Vert.x, and a small one on the JDK's sockets ({@link SocketTransport}) for the
 * lean NVML probe.
 */
interface Transport {
    /** Runs {@code action} on the uplink's thread, in submission order. */
    void execute(Runnable action);

    /** Whether the caller is on the uplink's thread. */
    boolean onLoop();

    /** Runs {@code action} on the uplink's thread after {@code delayMs}; the result cancels it. */
    Runnable timer(long delayMs, Runnable action);

    /** Opens a WebSocket to {@code target}, with the bearer token when not null; {@code listener} hears of it. */
    void connect(Target target, String token, long timeoutMs, Listener listener);

    /** Releases the client. */
    CompletableFuture<Void> close();

    /** One gateway's probe endpoint. */
    record Target(boolean ssl, String host, int port, String path) {
        static Target of(java.net.URI u) {
            boolean tls = "wss".equals(u.getScheme());
            return new Target(tls, u.getHost(), u.getPort() > 0 ? u.getPort() : tls ? 443 : 80, UplinkConfig.pathOf(u));
        }

        @Override
        public String toString() {
            return (ssl ? "wss://" : "ws://") + host + ":" + port + path;
        }
    }

    /** An open connection. */
    interface Socket {
        void send(String text);

        /** More written than the connection has taken yet: wait for the drain handler. */
        boolean writeQueueFull();

        /** Called once on the uplink's thread when a full write queue has room again. */
        void drainHandler(Runnable handler);

        /** Sends a close frame after what is queued; completes when the connection is closed (never fails). */
        CompletableFuture<Void> close(short code, String reason);
    }

    /** Hears of one connection attempt, always on the uplink's thread. */
    interface Listener {
        void opened(Socket socket);

        /** The attempt failed; {@code why} says so for a log line. */
        void failed(String why);

        void text(Socket socket, String text);

        /** The connection closed, by either side or by failing; the code and reason are null when none came. */
        void closed(Socket socket, Short code, String reason);
    }
}
