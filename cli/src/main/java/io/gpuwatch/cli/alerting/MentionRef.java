package io.gpuwatch.cli.alerting;

/**
 * One entry of a chat receiver's {@code mention:} list, {@code schedule/layer} (or a schedule alone, meaning its
 * first layer), with where it was written, so a schedule the on-call file lacks is reported at its place.
 */
public record MentionRef(String schedule, String layer, String file, int line, int column) {
    /** {@code file:line:col}, as diagnostics print it. */
    public String place() {
        return file + ":" + line + ":" + column;
    }

    @Override
    public String toString() {
        return layer == null ? schedule : schedule + "/" + layer;
    }
}
