package io.gpuwatch.gateway.ingest;

import java.util.concurrent.atomic.AtomicLong;

/** Counts of what ingest took, refused and shed, for /metrics and the demo's report. */
public final class IngestCounters {
    public final AtomicLong connections = new AtomicLong();
    public final AtomicLong refusedHandshakes = new AtomicLong();
    public final AtomicLong frames = new AtomicLong();
    public final AtomicLong samples = new AtomicLong();
    public final AtomicLong cardReadings = new AtomicLong();
    public final AtomicLong events = new AtomicLong();
    public final AtomicLong duplicates = new AtomicLong();
    public final AtomicLong badFrames = new AtomicLong();
    /** Samples shed for any reason: over a connection's rate, or with the gateway's backlog full. */
    public final AtomicLong shedSamples = new AtomicLong();
    /** Of {@link #shedSamples}, those shed because the gateway's backlog of samples was full. */
    public final AtomicLong shedBacklog = new AtomicLong();
}
