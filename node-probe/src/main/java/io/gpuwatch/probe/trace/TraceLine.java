package io.gpuwatch.probe.trace;

/** What reading a trace yields, line by line: a frame, or why a line (or the rest of the file) could not be read. */
public sealed interface TraceLine permits TraceEntry, TraceError {
}
