package io.gpuwatch.protocol;

/** Gateway's complaint about a frame; {@code frameSeq} is the offending frame's seq when it could be read. */
public record ErrorFrame(String code, Long frameSeq, String message) implements Frame {
    @Override
    public String type() {
        return "error";
    }

    @Override
    public long seq() {
        return 0;
    }
}
