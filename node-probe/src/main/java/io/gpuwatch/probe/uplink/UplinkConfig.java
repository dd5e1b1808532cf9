package io.gpuwatch.probe.uplink;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;

/**
 * Where and how a node's uplink connects, and how much it holds while the gateway has not acknowledged it.
 *
 * @param trustPemPath PEM file of the certificate(s) to trust for TLS; null trusts the JVM's default store
 * @param maxBufferedFrames most unacknowledged frames kept; over it the oldest sample goes first
 * @param maxBufferedBytes most unacknowledged bytes (UTF-8 frame text) kept, likewise
 * @param welcomeTimeoutMs how long to wait for {@code welcome} after {@code hello} before trying again
 * @param others probe URLs ({@code ws://} or {@code wss://}) of more gateways of the same cluster, tried in
 *               turn after {@code host:port} when a connection fails or drops
 */
public record UplinkConfig(String host, int port, boolean ssl, String trustPemPath, String path, String token,
                           int maxBufferedFrames, long maxBufferedBytes, Backoff backoff, long welcomeTimeoutMs,
                           List<URI> others) {
    /** The gateway's probe endpoint. */
    public static final String PROBE_PATH = "/v1/probe";

    /** @throws IllegalArgumentException for an empty buffer, or a gateway URL that is not ws:// or wss:// */
    public UplinkConfig {
        if (maxBufferedFrames < 1 || maxBufferedBytes < 1) {
            throw new IllegalArgumentException("the uplink buffer needs room for at least one frame");
        }
        others = List.copyOf(others);
        others.forEach(UplinkConfig::check);
    }

    /** A single gateway. */
    public UplinkConfig(String host, int port, boolean ssl, String trustPemPath, String path, String token,
                        int maxBufferedFrames, long maxBufferedBytes, Backoff backoff, long welcomeTimeoutMs) {
        this(host, port, ssl, trustPemPath, path, token, maxBufferedFrames, maxBufferedBytes, backoff,
                welcomeTimeoutMs, List.of());
    }

    /** Most unacknowledged bytes any uplink holds by default. */
    public static final long MAX_BUFFER_BYTES = 64L << 20;

    /**
     * The byte bound of the unacknowledged-frame buffer in a JVM whose heap may grow to {@code maxHeap}: a third
     * of it, at most {@link #MAX_BUFFER_BYTES}, so that a gateway outage fills the buffer and drops the oldest
     * readings instead of running the probe out of memory. The lean NVML probe runs in a heap of a few MiB (the
     * launcher's {@code -Xmx}); a frame's text costs about its UTF-8 length in the heap (Latin-1 strings) plus
     * some 150 bytes of bookkeeping, which the frame bound (10,000) keeps under 2 MiB.
     */
    public static long bufferBytesFor(long maxHeap) {
        return Math.max(1L << 20, Math.min(MAX_BUFFER_BYTES, maxHeap / 3));
    }

    /** Plain WebSocket to {@code host:port}, 10,000 frames or 64 MiB of buffer, default back-off. */
    public static UplinkConfig of(String host, int port, String token) {
        return new UplinkConfig(host, port, false, null, PROBE_PATH, token, 10_000, MAX_BUFFER_BYTES, Backoff.DEFAULT, 10_000);
    }

    /**
     * The gateways of one cluster, by their probe URLs: the first is the one connected to first, the others are
     * failed over to in turn. A URL without a path means {@value #PROBE_PATH}, without a port 80 (ws) or 443 (wss).
     * The buffer holds 10,000 frames or {@link #bufferBytesFor} this JVM's maximum heap, whichever is less.
     *
     * @param trustPemPath PEM certificate(s) for the {@code wss://} ones; null trusts the JVM's default store
     * @throws IllegalArgumentException for an empty list, or naming the first URL that is not ws:// or wss://
     */
    public static UplinkConfig of(List<URI> gateways, String token, String trustPemPath) {
        if (gateways.isEmpty()) {
            throw new IllegalArgumentException("no gateway URL given");
        }
        gateways.forEach(UplinkConfig::check);
        URI first = gateways.get(0);
        boolean tls = "wss".equals(first.getScheme());
        return new UplinkConfig(first.getHost(), first.getPort() > 0 ? first.getPort() : tls ? 443 : 80, tls,
                trustPemPath, pathOf(first), token, 10_000, bufferBytesFor(Runtime.getRuntime().maxMemory()),
                Backoff.DEFAULT, 10_000, gateways.subList(1, gateways.size()));
    }

    /**
     * Reads a gateway's probe URL as a user wrote it.
     *
     * @throws IllegalArgumentException naming the text when it is no ws:// or wss:// URL with a host
     */
    public static URI probeUrl(String text) {
        URI u;
        try {
            u = new URI(text);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("gateway URL " + text + ": not a URL (" + e.getReason() + " at index "
                    + e.getIndex() + ")");
        }
        check(u);
        return u;
    }

    /** The endpoint path of a probe URL: its own, or {@value #PROBE_PATH} when it names none. */
    static String pathOf(URI u) {
        String path = u.getRawPath();
        return path == null || path.isEmpty() || path.equals("/") ? PROBE_PATH : path;
    }

    /** @throws IllegalArgumentException naming the URL when it is no ws:// or wss:// URL with a host */
    static void check(URI u) {
        if (!("ws".equals(u.getScheme()) || "wss".equals(u.getScheme()))) {
            throw new IllegalArgumentException("gateway URL " + u + ": expected ws://HOST:PORT or wss://HOST:PORT");
        }
        if (u.getHost() == null) {
            throw new IllegalArgumentException("gateway URL " + u + ": no host (expected ws://HOST:PORT or wss://HOST:PORT)");
        }
    }

    /** The same over TLS, trusting the given PEM certificates (or the JVM's when null). */
    public UplinkConfig withTls(String trustPem) {
        return new UplinkConfig(host, port, true, trustPem, path, token, maxBufferedFrames, maxBufferedBytes, backoff,
                welcomeTimeoutMs, others);
    }

    public UplinkConfig withBuffer(int frames, long bytes) {
        return new UplinkConfig(host, port, ssl, trustPemPath, path, token, frames, bytes, backoff, welcomeTimeoutMs,
                others);
    }

    public UplinkConfig withBackoff(Backoff b) {
        return new UplinkConfig(host, port, ssl, trustPemPath, path, token, maxBufferedFrames, maxBufferedBytes, b,
                welcomeTimeoutMs, others);
    }

    /** The same, failing over to the gateways at {@code urls} in turn. */
    public UplinkConfig withOthers(List<URI> urls) {
        return new UplinkConfig(host, port, ssl, trustPemPath, path, token, maxBufferedFrames, maxBufferedBytes,
                backoff, welcomeTimeoutMs, urls);
    }
}
