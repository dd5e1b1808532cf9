package io.gpuwatch.gateway.ingest;

/**
 * Limits of the probe endpoint.
 *
 * @param maxFrameBytes      largest frame taken; larger ones close the connection with 1009
 * @param maxFramesPerSecond sustained frames per second per connection; over it, samples are shed (never events)
 * @param burstFrames        frames a connection may send at once above the sustained rate
 * @param maxCardsPerNode    cards one node may report
 * @param maxBadFrames       malformed frames in a row after which the connection is closed with 1008
 * @param helloTimeoutMs     time a new connection has to send hello
 * @param ackIntervalMs      how often samples are acknowledged (events are acknowledged at once)
 * @param intervalMs         the sampling interval the gateway asks probes for in welcome
 */
public record IngestConfig(int maxFrameBytes, int maxFramesPerSecond, int burstFrames, int maxCardsPerNode,
                           int maxBadFrames, long helloTimeoutMs, long ackIntervalMs, long intervalMs) {
    public static final IngestConfig DEFAULTS = new IngestConfig(1 << 20, 50, 200, 64, 20, 10_000, 1_000, 1_000);
}
