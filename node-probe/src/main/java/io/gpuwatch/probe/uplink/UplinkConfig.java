package io.gpuwatch.probe.uplink;

import java.net.URI;
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
        for (URI u : others) {
            if (!("ws".equals(u.getScheme()) || "wss".equals(u.getScheme())) || u.getHost() == null) {
                throw new IllegalArgumentException("gateway URL: expected ws://HOST:PORT or wss://HOST:PORT, got " + u);
            }
        }
    }

    /** A single gateway. */
    public UplinkConfig(String host, int port, boolean ssl, String trustPemPath, String path, String token,
                        int maxBufferedFrames, long maxBufferedBytes, Backoff backoff, long welcomeTimeoutMs) {
        this(host, port, ssl, trustPemPath, path, token, maxBufferedFrames, maxBufferedBytes, backoff,
                welcomeTimeoutMs, List.of());
    }

    /** Plain WebSocket to {@code host:port}, 10,000 frames or 64 MiB of buffer, default back-off. */
    public static UplinkConfig of(String host, int port, String token) {
        return new UplinkConfig(host, port, false, null, PROBE_PATH, token, 10_000, 64L << 20, Backoff.DEFAULT, 10_000);
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
