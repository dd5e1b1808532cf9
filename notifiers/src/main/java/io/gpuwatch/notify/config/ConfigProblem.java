package io.gpuwatch.notify.config;

/** One thing wrong with a receiver's configuration, at a field path such as {@code receivers.ops.timeoutMs}. */
public record ConfigProblem(String path, String message) {
    /** {@code path: message}. */
    @Override
    public String toString() {
        return path + ": " + message;
    }
}
