package io.gpuwatch.gateway.ingest;

import java.util.HashMap;
import java.util.Map;

/**
 * The last sequence number taken from each node and boot, for at-least-once de-duplication.
 * A new bootId starts the node's stream afresh. With durable acknowledgements it also keeps, per stream, the seq
 * up to which what was taken is on disk: only that much is acknowledged, so a gateway killed before its next
 * checkpoint gets the rest again from the probe.
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
        /** Up to this seq the node's state is on disk: what the probe may let go of. */
        long durableSeq;
        /** Events up to this seq are in the restored event log already: a replay of one is a duplicate. */
        long eventsUpTo;

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

    /**
     * Takes back where a node's stream stood at a checkpoint, before its probe connects again: samples up to
     * {@code samplesUpTo} are in the restored windows (the probe resumes after it), events up to
     * {@code eventsUpTo} in the restored event log. A stream already open (its probe was quicker) is left as is.
     */
    void resume(String node, String bootId, long samplesUpTo, long eventsUpTo) {
        if (streams.containsKey(node)) {
            return;
        }
        Stream s = new Stream(bootId);
        s.lastSeq = samplesUpTo;
        s.durableSeq = samplesUpTo;
        s.eventsUpTo = eventsUpTo;
        streams.put(node, s);
    }

    /** Up to {@code seq} of the node's boot {@code bootId} is on disk; an older boot's or a lower seq is ignored. */
    void durable(String node, String bootId, long seq) {
        Stream s = streams.get(node);
        if (s != null && s.bootId.equals(bootId) && seq > s.durableSeq) {
            s.durableSeq = Math.min(seq, s.lastSeq);
        }
    }

    /** The seq up to which the node's current stream is on disk (0 when none). */
    long durableSeq(String node) {
        Stream s = streams.get(node);
        return s == null ? 0 : s.durableSeq;
    }

    /** True when an event of this seq, newly taken, is one the restored event log holds already. */
    boolean eventRestored(String node, long seq) {
        Stream s = streams.get(node);
        return s != null && seq <= s.eventsUpTo;
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
