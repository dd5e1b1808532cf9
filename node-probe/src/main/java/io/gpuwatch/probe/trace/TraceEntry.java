package io.gpuwatch.probe.trace;

import io.gpuwatch.protocol.Frame;

/**
 * One frame of a trace.
 *
 * @param lineNo the 1-based line it was read from
 * @param node its producer: a hello's own node, else the line's {@code "node"} key (or the only producer's)
 */
public record TraceEntry(long lineNo, String node, Frame frame) implements TraceLine {
}
