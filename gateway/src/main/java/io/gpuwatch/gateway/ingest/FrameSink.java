package io.gpuwatch.gateway.ingest;

import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;

/** Where ingest hands frames once they are authenticated, validated and de-duplicated. */
public interface FrameSink {
    /** A node said hello on a new connection. */
    void hello(Hello hello);

    /** A numbered frame of the node, seen for the first time. */
    void frame(String node, Frame frame);

    /**
     * A sample of the node, of this seq, arrived at {@code at} (the gateway's clock) and was shed: the node is
     * alive, though its readings are lost.
     */
    void shed(String node, long at, long seq);

    /** The node's connection closed. */
    void disconnected(String node);
}
