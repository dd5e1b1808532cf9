package io.gpuwatch.protocol;

/** Gateway's answer to hello: the last seq it holds from this node and boot, and the sampling interval. */
public record Welcome(int v, String session, long ackedSeq, long intervalMs) implements Frame {
    @Override
    public String type() {
        return "welcome";
    }

    @Override
    public long seq() {
        return 0;
    }
}
