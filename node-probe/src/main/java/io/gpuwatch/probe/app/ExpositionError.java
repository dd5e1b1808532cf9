package io.gpuwatch.probe.app;

/** A line of a metrics exposition that was skipped, and why; line and column are 1-based. */
public record ExpositionError(int line, int column, String message) {
    @Override
    public String toString() {
        return line + ":" + column + ": " + message;
    }
}
