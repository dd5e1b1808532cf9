package io.gpuwatch.rules.source;

import java.util.Locale;

/**
 * A problem found in a rule file, at a 1-based line and column (0 for both when it concerns the whole file).
 * {@link #toString()} prints it the way compilers do, so editors and CI annotate the right place.
 */
public record Diagnostic(String file, int line, int column, Level level, String message) {
    /** How bad it is: an error rejects the whole load, a warning does not. */
    public enum Level { ERROR, WARNING }

    public static Diagnostic error(String file, int line, int column, String message) {
        return new Diagnostic(file, line, column, Level.ERROR, message);
    }

    public static Diagnostic warning(String file, int line, int column, String message) {
        return new Diagnostic(file, line, column, Level.WARNING, message);
    }

    /** {@code file:line:col: error: message}, or {@code file: error: message} without a position. */
    @Override
    public String toString() {
        String where = line > 0 ? file + ":" + line + ":" + column : file;
        return where + ": " + level.name().toLowerCase(Locale.ROOT) + ": " + message;
    }
}
