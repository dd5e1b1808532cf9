package io.gpuwatch.probe.uplink;

/**
 * Where and how a node's uplink connects, and how much it holds while the gateway has not acknowledged it.
 *
 * @param trustPemPath PEM file of the certificate(s) to trust for TLS; null trusts the JVM's default store
 * @param maxBufferedFrames most unacknowledged frames kept; over it the oldest sample goes first
 * @param maxBufferedBytes most unacknowledged bytes (UTF-8 frame text) kept, likewise
 * @param welcomeTimeoutMs how long to wait for {@code welcome} after {@code hello} before trying again
 */
public record UplinkConfig(String host, int port, boolean ssl, String trustPemPath, String path, String token,
                           int maxBufferedFrames, long maxBufferedBytes, Backoff backoff, long welcomeTimeoutMs) {
    /** The gateway's probe endpoint. */
    public static final String PROBE_PATH = "/v1/probe";

    public UplinkConfig {
        if (maxBufferedFrames < 1 || maxBufferedBytes < 1) {
            throw new IllegalArgumentException("the uplink buffer needs room for at least one frame");
        }
    }

    /** Plain WebSocket to {@code host:port}, 10,000 frames or 64 MiB of buffer, default back-off. */
    public static UplinkConfig of(String host, int port, String token) {
        return new UplinkConfig(host, port, false, null, PROBE_PATH, token, 10_000, 64L << 20, Backoff.DEFAULT, 10_000);
    }

    /** The same over TLS, trusting the given PEM certificates (or the JVM's when null). */
    public UplinkConfig withTls(String trustPem) {
        return new UplinkConfig(host, port, true, trustPem, path, token, maxBufferedFrames, maxBufferedBytes, backoff,
                welcomeTimeoutMs);
    }

    public UplinkConfig withBuffer(int frames, long bytes) {
        return new UplinkConfig(host, port, ssl, trustPemPath, path, token, frames, bytes, backoff, welcomeTimeoutMs);
    }

    public UplinkConfig withBackoff(Backoff b) {
        return new UplinkConfig(host, port, ssl, trustPemPath, path, token, maxBufferedFrames, maxBufferedBytes, b,
                welcomeTimeoutMs);
    }
}
