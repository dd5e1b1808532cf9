package io.gpuwatch.gateway;

import io.gpuwatch.gateway.ingest.IngestConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How a gateway listens and paces itself.
 *
 * @param host            address to bind
 * @param port            port to bind, 0 for any free one
 * @param ingest          probe endpoint limits
 * @param tickMs          period of node-rule evaluation and silence detection
 * @param externalUrl     how users reach this gateway, for links in notifications
 * @param dataDir         where learned baselines are kept across restarts; null keeps them in memory only
 * @param runbookBaseUrl  what a rule's runbook path is joined to in notifications; null keeps the path
 * @param shutdownTimeout how long stopping may spend sending what is pending before it leaves the rest in the
 *                        outbox
 */
public record GatewayConfig(String host, int port, IngestConfig ingest, long tickMs, String externalUrl,
                            Path dataDir, String runbookBaseUrl, Duration shutdownTimeout) {
    /** Ten seconds, within what service managers wait for a stop before they kill. */
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

    public GatewayConfig {
        Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
        if (shutdownTimeout.isNegative()) {
            throw new IllegalArgumentException("shutdownTimeout must not be negative, got " + shutdownTimeout);
        }
    }

    /** A gateway keeping its baselines in {@code dataDir}, with runbooks as written and the default shutdown. */
    public GatewayConfig(String host, int port, IngestConfig ingest, long tickMs, String externalUrl, Path dataDir) {
        this(host, port, ingest, tickMs, externalUrl, dataDir, null, DEFAULT_SHUTDOWN_TIMEOUT);
    }

    /** A gateway that keeps nothing across restarts. */
    public GatewayConfig(String host, int port, IngestConfig ingest, long tickMs, String externalUrl) {
        this(host, port, ingest, tickMs, externalUrl, null);
    }

    /** The same configuration keeping its baselines in {@code dir}. */
    public GatewayConfig withDataDir(Path dir) {
        return new GatewayConfig(host, port, ingest, tickMs, externalUrl, dir, runbookBaseUrl, shutdownTimeout);
    }

    /** The same configuration with runbook paths joined to {@code url} (null: kept as written). */
    public GatewayConfig withRunbookBaseUrl(String url) {
        return new GatewayConfig(host, port, ingest, tickMs, externalUrl, dataDir, url, shutdownTimeout);
    }

    /** The same configuration spending at most {@code timeout} on sending what is pending at stop. */
    public GatewayConfig withShutdownTimeout(Duration timeout) {
        return new GatewayConfig(host, port, ingest, tickMs, externalUrl, dataDir, runbookBaseUrl, timeout);
    }

    /** Loopback only, so an API without tokens is reachable from this machine alone. */
    public static GatewayConfig defaults(int port) {
        return new GatewayConfig("127.0.0.1", port, IngestConfig.DEFAULTS, 1000, "http://localhost:" + port);
    }
}
