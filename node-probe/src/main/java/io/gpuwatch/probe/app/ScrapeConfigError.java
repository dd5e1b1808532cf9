package io.gpuwatch.probe.app;

/** A problem in a scrape config file, at a 1-based line and column; line 0 means the file as a whole. */
public record ScrapeConfigError(String source, int line, int column, String message) {
    @Override
    public String toString() {
        return line > 0 ? source + ":" + line + ":" + column + ": " + message : source + ": " + message;
    }
}
