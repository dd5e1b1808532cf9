package io.gpuwatch.gateway;

import io.gpuwatch.gateway.ingest.IngestConfig;

/**
 * How a gateway listens and paces itself.
 *
 * @param host        address to bind
 * @param port        port to bind, 0 for any free one
 * @param ingest      probe endpoint limits
 * @param tickMs      period of node-rule evaluation and silence detection
 * @param externalUrl how users reach this gateway, for links in notifications
 */
public record GatewayConfig(String host, int port, IngestConfig ingest, long tickMs, String externalUrl) {
    public static GatewayConfig defaults(int port) {
        return new GatewayConfig("0.0.0.0", port, IngestConfig.DEFAULTS, 1000, "http://localhost:" + port);
    }
}
