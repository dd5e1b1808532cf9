package io.gpuwatch.protocol.codec;

import io.gpuwatch.protocol.Frame;

/** The outcome of decoding one frame's text: the frame, or why it was refused. */
public sealed interface Decoded {
    /**
     * A valid frame.
     *
     * @param node the extra {@code "node"} key that trace files put on frames other than hello; null when absent
     */
    record Ok(Frame frame, String node) implements Decoded {
    }

    /**
     * A refused frame.
     *
     * @param code    one of the codes below, also the {@code code} of the error frame sent back
     * @param seq     the frame's seq when it was read before the problem was found, else null
     * @param path    the offending field, like {@code cards[2].tempC}; "" for the whole frame
     * @param message for humans; names the path
     */
    record Bad(String code, Long seq, String path, String message) implements Decoded {
        /** The text is longer than {@link FrameLimits#maxFrameBytes()}. */
        public static final String TOO_LARGE = "too_large";
        /** The text is not one JSON object. */
        public static final String BAD_JSON = "bad_json";
        /** The {@code type} is not a protocol v1 frame type. */
        public static final String UNKNOWN_TYPE = "unknown_type";
        /** A field is missing, of the wrong type or out of range, or a limit is exceeded. */
        public static final String BAD_FRAME = "bad_frame";
        /** The {@code v} of a hello or welcome is a version this side does not speak. */
        public static final String UNSUPPORTED_VERSION = "unsupported_version";
    }
}
