package io.gpuwatch.probe.load;

/** One scripted XID 79 as it went out: on which node and card, with which seq, and when it was written. */
public record XidSent(String node, int card, String uuid, long seq, long sentAtMs) {
}
