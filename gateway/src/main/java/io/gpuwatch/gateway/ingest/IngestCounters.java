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
    public final AtomicLong shedSamples = new AtomicLong();
}
