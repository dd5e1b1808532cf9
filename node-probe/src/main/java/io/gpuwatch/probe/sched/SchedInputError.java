package io.gpuwatch.probe.sched;

/** Scheduler output that cannot be read, with the place: the source (file, command, URL) and the field path. */
public final class SchedInputError extends Exception {
    public SchedInputError(String place, String message) {
        super(place + ": " + message);
    }
}
