package io.gpuwatch.protocol.codec;

/**
 * Bounds a decoded frame must stay within, so that one producer cannot make the gateway hold unbounded data.
 *
 * @param maxFrameBytes       largest frame text, in UTF-8 bytes
 * @param maxCards            most cards in a {@code hello} or {@code sample}
 * @param maxProcessesPerCard most processes listed for one card
 * @param maxStringChars      longest string value, in UTF-16 chars
 */
public record FrameLimits(int maxFrameBytes, int maxCards, int maxProcessesPerCard, int maxStringChars) {
    /** 1 MiB frames, 64 cards, 256 processes per card, 4096-char strings. */
    public static final FrameLimits DEFAULTS = new FrameLimits(1 << 20, 64, 256, 4096);

    public FrameLimits {
        positive("maxFrameBytes", maxFrameBytes);
        positive("maxCards", maxCards);
        positive("maxProcessesPerCard", maxProcessesPerCard);
        positive("maxStringChars", maxStringChars);
    }

    private static void positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }
}
