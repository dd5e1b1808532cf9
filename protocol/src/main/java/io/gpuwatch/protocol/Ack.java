package io.gpuwatch.protocol;

/** Gateway has durably taken every frame up to and including {@code seq}. */
public record Ack(long seq) implements Frame {
    @Override
    public String type() {
        return "ack";
    }
}
