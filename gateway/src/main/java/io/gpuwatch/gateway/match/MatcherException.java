package io.gpuwatch.gateway.match;

/** A matcher that cannot be read, with the character offset in its text where the problem is. */
public final class MatcherException extends Exception {
    private final int offset;

    public MatcherException(int offset, String message) {
        super(message);
        this.offset = offset;
    }

    /** 0-based offset into the text that was parsed. */
    public int offset() {
        return offset;
    }
}
