package io.gpuwatch.probe.attribution;

/** A problem in a labels file, at a 1-based line and column; line 0 means the file as a whole. */
public record LabelsError(String source, int line, int column, String message) {
    @Override
    public String toString() {
        return line > 0 ? source + ":" + line + ":" + column + ": " + message : source + ": " + message;
    }
}
