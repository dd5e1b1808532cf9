package io.gpuwatch.probe.trace;

/**
 * A snapshot of a trace writer's counters.
 *
 * @param written lines written to the trace (buffered or on disk)
 * @param droppedReadings samples, app and sched frames shed because the queue was full; events are never shed
 * @param queued frames waiting for the writer thread
 * @param failure why writing stopped (the trace is incomplete from then on); null while all is well
 */
public record TraceWriterStats(long written, long droppedReadings, int queued, String failure) {
}
