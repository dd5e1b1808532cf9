package io.gpuwatch.protocol;

/** Gateway asks the producer to sample at another interval. */
public record ConfigFrame(long intervalMs) implements Frame {
    @Override
    public String type() {
        return "config";
    }

    @Override
    public long seq() {
        return 0;
    }
}
