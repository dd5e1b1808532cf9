package io.gpuwatch.probe.load;

import java.util.List;

/**
 * What a load run offers the gateway: how many simulated nodes with how many cards, how often each samples, for how
 * long, and when the scripted XID 79 faults happen.
 *
 * @param nodePrefix node names are this prefix and a five-digit index, e.g. {@code bench-00042}
 * @param xidAtMs offsets from the start of the run at which one XID 79 is sent, each on another card (see
 *                {@link #xidNode(int)} and {@link #xidCard(int)})
 * @param appEvery every how many samples a node also sends an {@code app} frame; 0 sends none
 * @param maxUnacked most unacknowledged frames a node holds for replay; over it the oldest goes
 * @param rampMs nodes come online one after another over this time (at least one interval), connecting and then
 *               sampling, so that a large fleet does not open all its connections in the same instant
 */
public record LoadPlan(int nodes, int cardsPerNode, long intervalMs, long durationMs, String nodePrefix,
                       List<Long> xidAtMs, int appEvery, int maxUnacked, long rampMs) {
    /** The most cards a hello may list (protocol v1 default limit). */
    public static final int MAX_CARDS = 64;

    public LoadPlan {
        if (nodes < 1 || nodes > 99_999) {
            throw new IllegalArgumentException("--nodes must be between 1 and 99999, got " + nodes);
        }
        if (cardsPerNode < 1 || cardsPerNode > MAX_CARDS) {
            throw new IllegalArgumentException("--cards must be between 1 and " + MAX_CARDS + ", got " + cardsPerNode);
        }
        if (intervalMs < 10) {
            throw new IllegalArgumentException("--interval must be at least 10 ms, got " + intervalMs + " ms");
        }
        if (durationMs < intervalMs) {
            throw new IllegalArgumentException("--duration must be at least one interval, got " + durationMs + " ms");
        }
        if (!nodePrefix.matches("[A-Za-z0-9._-]{1,200}")) {
            throw new IllegalArgumentException("--node-prefix may hold letters, digits, '.', '_' and '-', got '" + nodePrefix + "'");
        }
        xidAtMs = List.copyOf(xidAtMs);
        for (long at : xidAtMs) {
            if (at < 0 || at >= durationMs) {
                throw new IllegalArgumentException("--xid-at " + at + " ms is outside the run (0 to " + durationMs + " ms)");
            }
        }
        if (xidAtMs.size() > (long) nodes * cardsPerNode) {
            throw new IllegalArgumentException("--xid-at lists " + xidAtMs.size() + " faults but the fleet has only "
                    + (long) nodes * cardsPerNode + " cards");
        }
        if (appEvery < 0) {
            throw new IllegalArgumentException("--app-every cannot be negative, got " + appEvery);
        }
        if (rampMs < 0 || rampMs >= durationMs) {
            throw new IllegalArgumentException("the ramp-up (" + rampMs + " ms) must be shorter than --duration ("
                    + durationMs + " ms); lower --connect-rate or raise --duration");
        }
        if (maxUnacked < 1) {
            throw new IllegalArgumentException("--max-unacked must be at least 1, got " + maxUnacked);
        }
    }

    /** When node {@code index} comes online, in ms from the start: spread evenly over the ramp-up. */
    public long onlineAtMs(int index) {
        return (long) index * Math.max(intervalMs, rampMs) / nodes;
    }

    /** The name of node {@code index}. */
    public String nodeName(int index) {
        return String.format("%s%05d", nodePrefix, index);
    }

    /**
     * The node of the k-th XID: spread over the fleet with a stride prime to the node count, so that no node gets two
     * while there are nodes left (two XIDs on one node would also trip the node-wide repeated-XID rule).
     */
    public int xidNode(int k) {
        return (int) ((1 + (long) k * stride()) % nodes);
    }

    /** The card, on {@link #xidNode(int)}, of the k-th XID. */
    public int xidCard(int k) {
        return (int) (((long) k / nodes + xidNode(k)) % cardsPerNode);
    }

    private long stride() {
        long s = Math.max(1, nodes / 7 + 1);
        while (gcd(s, nodes) != 1) {
            s++;
        }
        return s;
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    /** Card readings (one card in one sample) the fleet sends per second. */
    public double cardReadingsPerSecond() {
        return (double) nodes * cardsPerNode * 1000.0 / intervalMs;
    }
}
