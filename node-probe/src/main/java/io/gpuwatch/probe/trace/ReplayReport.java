package io.gpuwatch.probe.trace;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a replay sent, and how it ended.
 *
 * @param sentByNode   frames handed to each node's uplink, nodes in the order of their first hello
 * @param framesSent   all frames handed over
 * @param boots        streams replayed: one per node, plus one for each restart (new bootId) in the trace
 * @param badLines     trace lines skipped because they held no usable frame
 * @param traceFailure why the trace could not be read to its end (it ended early, or cannot be read); null if it was
 * @param unacked      frames the gateway had not acknowledged when the replay stopped; 0 when it took them all
 * @param dropped      frames the uplinks dropped from a full buffer
 * @param stopped      the replay was stopped before the end of the trace
 * @param origin       the replay's "now" (epoch ms), onto which the trace's first timestamp was moved
 */
public record ReplayReport(Map<String, Long> sentByNode, long framesSent, int boots, long badLines,
                           String traceFailure, long unacked, long dropped, boolean stopped, long origin) {
    public ReplayReport {
        sentByNode = Collections.unmodifiableMap(new LinkedHashMap<>(sentByNode));
    }

    /** Whether every frame of the trace reached the gateway and was acknowledged. */
    public boolean complete() {
        return badLines == 0 && traceFailure == null && unacked == 0 && dropped == 0 && !stopped;
    }

    /** One line for the operator. */
    public String summary() {
        StringBuilder s = new StringBuilder("replayed ").append(framesSent).append(framesSent == 1 ? " frame" : " frames")
                .append(" of ").append(sentByNode.size()).append(sentByNode.size() == 1 ? " node" : " nodes");
        if (stopped) {
            s.append("; stopped before the end of the trace");
        }
        s.append(unacked == 0 ? "; all acknowledged" : "; " + unacked + " not acknowledged");
        if (dropped > 0) {
            s.append("; ").append(dropped).append(" dropped from a full uplink buffer");
        }
        if (badLines > 0) {
            s.append("; ").append(badLines).append(badLines == 1 ? " bad line skipped" : " bad lines skipped");
        }
        if (traceFailure != null) {
            s.append("; ").append(traceFailure);
        }
        return s.toString();
    }
}
