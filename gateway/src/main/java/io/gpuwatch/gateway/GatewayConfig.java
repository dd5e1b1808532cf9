package io.gpuwatch.gateway;

import io.gpuwatch.gateway.ingest.IngestConfig;

import java.nio.file.Path;

/**
 * How a gateway listens and paces itself.
 *
 * @param host        address to bind
 * @param port        port to bind, 0 for any free one
 * @param ingest      probe endpoint limits
 * @param tickMs      period of node-rule evaluation and silence detection
 * @param externalUrl how users reach this gateway, for links in notifications
 * @param dataDir     where learned baselines are kept across restarts; null keeps them in memory only
 */
public record GatewayConfig(String host, int port, IngestConfig ingest, long tickMs, String externalUrl,
                            Path dataDir) {
    /** A gateway that keeps nothing across restarts. */
    public GatewayConfig(String host, int port, IngestConfig ingest, long tickMs, String externalUrl) {
        this(host, port, ingest, tickMs, externalUrl, null);
    }

    /** The same configuration keeping its baselines in {@code dir}. */
    public GatewayConfig withDataDir(Path dir) {
        return new GatewayConfig(host, port, ingest, tickMs, externalUrl, dir);
    }

    /** Loopback only, so an API without tokens is reachable from this machine alone. */
    public static GatewayConfig defaults(int port) {
        return new GatewayConfig("127.0.0.1", port, IngestConfig.DEFAULTS, 1000, "http://localhost:" + port);
    }
}
