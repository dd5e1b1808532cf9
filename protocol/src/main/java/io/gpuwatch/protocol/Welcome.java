package io.gpuwatch.protocol;

/**
 * Gateway's answer to hello: the last seq it holds from this node and boot, and the sampling interval.
 * {@code redirect}, when not null, is the {@code ws://} or {@code wss://} probe URL of the clustered gateway
 * that owns this node: the probe closes this connection and sends its hello there instead.
 */
public record Welcome(int v, String session, long ackedSeq, long intervalMs, String redirect) implements Frame {
    /** A welcome that keeps the node here. */
    public Welcome(int v, String session, long ackedSeq, long intervalMs) {
        this(v, session, ackedSeq, intervalMs, null);
    }

    @Override
    public String type() {
        return "welcome";
    }

    @Override
    public long seq() {
        return 0;
    }
}
