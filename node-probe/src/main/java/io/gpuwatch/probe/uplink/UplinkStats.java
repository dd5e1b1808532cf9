package io.gpuwatch.probe.uplink;

/**
 * A snapshot of an uplink's counters.
 *
 * @param connected welcomed by the gateway and writing
 * @param lastSeq the seq given to the newest frame; 0 before the first
 * @param framesWritten frames written to a socket, replays included
 * @param ackedSeq the highest seq the gateway has acknowledged (by ack or welcome)
 * @param droppedSamples samples (and other readings) dropped from a full buffer
 * @param droppedEvents events dropped from a buffer that held nothing else
 * @param reconnects connection attempts after the first
 * @param buffered frames held, unacknowledged
 */
public record UplinkStats(boolean connected, long lastSeq, long framesWritten, long ackedSeq, long droppedSamples,
                          long droppedEvents, long reconnects, int buffered, long bufferedBytes) {
}
