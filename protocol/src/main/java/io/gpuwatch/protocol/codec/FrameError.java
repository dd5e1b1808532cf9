package io.gpuwatch.protocol.codec;

/**
 * A broken rule of the contract, found while reading; it travels up through the nested readers, each adding its
 * segment of the field path, and leaves the codec as a {@link Decoded.Bad}.
 */
final class FrameError extends Exception {
    private final String code;
    private final String lead;
    private final String tail;
    private String path;

    private FrameError(String code, String path, String lead, String tail) {
        super(null, null, false, false);
        this.code = code;
        this.path = path;
        this.lead = lead;
        this.tail = tail;
    }

    /** A field that is present but wrong; the message reads "field 'PATH'" + tail. */
    static FrameError field(String path, String tail) {
        return new FrameError(Decoded.Bad.BAD_FRAME, path, "field ", tail);
    }

    /** A required field that is absent or null. */
    static FrameError missing(String path) {
        return new FrameError(Decoded.Bad.BAD_FRAME, path, "missing required field ", "");
    }

    /** A required field that is absent, with the reason it is required. */
    static FrameError missing(String path, String why) {
        return new FrameError(Decoded.Bad.BAD_FRAME, path, "missing required field ", " (" + why + ")");
    }

    /** An error whose message is fixed, not built around the path. */
    static FrameError of(String code, String path, String message) {
        return new FrameError(code, path, null, message);
    }

    /** Puts the path under an enclosing field or array element, such as {@code cards[2]}. */
    FrameError within(String segment) {
        if (path.isEmpty()) {
            path = segment;
        } else if (path.charAt(0) == '[') {
            path = segment + path;
        } else {
            path = segment + "." + path;
        }
        return this;
    }

    String code() {
        return code;
    }

    String path() {
        return path;
    }

    String message() {
        return lead == null ? tail : lead + "'" + path + "'" + tail;
    }
}
