package io.gpuwatch.probe.trace;

/**
 * A trace line that holds no usable frame, or a file that could not be read to its end.
 *
 * @param source  the trace, as named when it was opened
 * @param lineNo  the 1-based line; 0 for the file as a whole (it cannot be read, or it ended early)
 * @param code    a codec code ({@code bad_json}, {@code bad_frame}, …) or one of the codes below
 * @param path    the offending field, like {@code cards[0].tempC}; "" for the whole line or file
 * @param message for humans; names the field
 */
public record TraceError(String source, long lineNo, String code, String path, String message) implements TraceLine {
    /** A frame other than hello without a {@code "node"} key, in a trace that has no single producer. */
    public static final String NO_NODE = "no_node";
    /** A frame of a node that has not said hello earlier in the trace. */
    public static final String NO_HELLO = "no_hello";
    /** A frame that only the gateway sends (welcome, ack, error, config). */
    public static final String NOT_PRODUCER_FRAME = "not_producer_frame";
    /** A line that is not UTF-8 text. */
    public static final String NOT_UTF8 = "not_utf8";
    /** The file ends inside its gzip stream: the recorder was stopped before it could finish the file. */
    public static final String ENDED_EARLY = "ended_early";
    /** The file cannot be opened or read (further). */
    public static final String UNREADABLE = "unreadable";
    /** A record of a binary trace that cannot be read; it ends the trace unless it is a bad frame's JSON. */
    public static final String BAD_RECORD = "bad_record";

    /** {@code source:line: message}, or {@code source: message} for the whole file. */
    @Override
    public String toString() {
        return lineNo > 0 ? source + ":" + lineNo + ": " + message : source + ": " + message;
    }
}
