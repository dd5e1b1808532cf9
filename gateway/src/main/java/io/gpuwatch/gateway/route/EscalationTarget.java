package io.gpuwatch.gateway.route;

/**
 * Whom a step pages: a schedule's layer ({@code layer} null: its first layer) or, with {@code schedule} null,
 * one person by id; with where it was written, so a name the on-call file lacks is reported at its place.
 */
public record EscalationTarget(String schedule, String layer, String person, String file, int line, int column) {
    /** A schedule's layer. */
    public static EscalationTarget layer(String schedule, String layer, String file, int line, int column) {
        return new EscalationTarget(schedule, layer, null, file, line, column);
    }

    /** A person. */
    public static EscalationTarget person(String person, String file, int line, int column) {
        return new EscalationTarget(null, null, person, file, line, column);
    }

    /** {@code file:line:col}, as diagnostics print it. */
    public String place() {
        return file + ":" + line + ":" + column;
    }

    @Override
    public String toString() {
        return person != null ? person : layer == null ? schedule : schedule + "/" + layer;
    }
}
