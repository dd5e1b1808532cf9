package io.gpuwatch.gateway.ingest;

import java.util.HashMap;
import java.util.Map;

/**
 * The last sequence number taken from each node and boot, for at-least-once de-duplication.
 * A new bootId starts the node's stream afresh.
 */
final class SeqBook {
    /**
     * The furthest a frame's seq may jump past the last one taken: a probe sending a frame a millisecond for
     * a hundred years stays below it, and a seq near 2^63 (which would make every later frame a duplicate) does not.
     */
    static final long MAX_JUMP = 1L << 42;

    /** Updated in place: a new entry per frame would be a reference from this long-lived map to a young object. */
    private static final class Stream {
        final String bootId;
        long lastSeq;

        Stream(String bootId) {
            this.bootId = bootId;
        }
    }

    private final Map<String, Stream> streams = new HashMap<>();

    /** The last seq taken from this node+boot (0 when none), resetting the stream on a new boot. */
    long open(String node, String bootId) {
        Stream s = streams.get(node);
        if (s == null || !s.bootId.equals(bootId)) {
            streams.put(node, new Stream(bootId));
            return 0;
        }
        return s.lastSeq;
    }

    /** The last seq taken from the node's current boot (0 when none). */
    long last(String node) {
        Stream s = streams.get(node);
        return s == null ? 0 : s.lastSeq;
    }

    /** True when the seq is new for the node's current boot, and records it as taken. */
    boolean take(String node, long seq) {
        Stream s = streams.get(node);
        if (s == null || seq <= s.lastSeq) {
            return false;
        }
        s.lastSeq = seq;
        return true;
    }
}
