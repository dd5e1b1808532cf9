package io.gpuwatch.gateway.state;

import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.ProcessInfo;

/**
 * One card as a scrape exports it, copied on the event loop so that it can be formatted on another thread.
 *
 * @param node        the node's name
 * @param driver      the driver version the node's hello named, or null
 * @param info        the card's facts from hello, or null when a sample named a card hello did not list
 * @param attribution the first process's task, owner and business; null while the card runs none
 * @param latest      the latest reading by {@link Metric} ordinal, NaN where absent, of the card metrics only
 *                    (those leading the protocol's list); owned by the snapshot
 * @param latestAt    the gateway's time of arrival of that reading; {@link Long#MIN_VALUE} before the first
 * @param idleSeconds seconds spent allocated and idle since the gateway first saw the card
 * @param xidCodes    XID codes seen since the gateway started, parallel to {@code xidCounts}
 * @param lastXid     the latest XID code, 0 before any
 */
public record CardSnapshot(String node, String driver, String uuid, CardInfo info, ProcessInfo attribution,
                           double[] latest, long latestAt, double idleSeconds, int[] xidCodes, long[] xidCounts,
                           int lastXid) {
    /** The latest reading of {@code m}, NaN when absent or not a card metric. */
    public double get(Metric m) {
        return m.ordinal() < latest.length ? latest[m.ordinal()] : Double.NaN;
    }
}
