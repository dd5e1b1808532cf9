package io.gpuwatch.probe.load;

/**
 * What a load run has sent and had acknowledged so far, summed over its nodes.
 *
 * @param connected nodes welcomed by the gateway right now
 * @param frames numbered frames written to the socket (samples, app frames and events, replays included)
 * @param samples metric values in the sample and app frames created (a value of one metric of one card or task,
 *                as Prometheus counts samples)
 * @param acks ack frames received
 * @param acked frames the gateway has acknowledged (the sum of each node's acknowledged seq)
 * @param created numbered frames created (the sum of each node's last seq); {@code created - acked} are unacknowledged
 * @param bytes UTF-8 payload bytes written, hellos included, WebSocket framing not
 * @param errors error frames received
 * @param dropped frames let go unacknowledged because a node's replay buffer was full
 * @param maxLagMs the latest a sample was created after its due time over the whole run, a sign of the generator
 *                 falling behind (the first connections of a cold JVM show here too)
 * @param windowLagMs the same since the previous stats were taken
 * @param cpuNanos CPU time of the generator's event-loop threads
 */
public record LoadStats(int nodes, int connected, long frames, long sampleFrames, long appFrames, long events,
                        long samples, long acks, long acked, long created, long reconnects, long bytes, long errors,
                        long dropped, long maxLagMs, long windowLagMs, long cpuNanos) {
    /** An empty total, the start of a sum. */
    public static final LoadStats ZERO = new LoadStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    /** Frames created and not acknowledged yet. */
    public long unacked() {
        return created - acked;
    }

    LoadStats plus(LoadStats o) {
        return new LoadStats(nodes + o.nodes, connected + o.connected, frames + o.frames, sampleFrames + o.sampleFrames,
                appFrames + o.appFrames, events + o.events, samples + o.samples, acks + o.acks, acked + o.acked,
                created + o.created, reconnects + o.reconnects, bytes + o.bytes, errors + o.errors, dropped + o.dropped,
                Math.max(maxLagMs, o.maxLagMs), Math.max(windowLagMs, o.windowLagMs), cpuNanos + o.cpuNanos);
    }
}
