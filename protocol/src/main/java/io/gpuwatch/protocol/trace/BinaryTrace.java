package io.gpuwatch.protocol.trace;

import java.io.EOFException;
import java.io.IOException;
import java.io.PushbackInputStream;

/**
 * The binary trace format (protocol §8.1): the frames of a JSON-lines trace, with samples as numbers rather than
 * text, so that a replay reads them without parsing JSON. A file is {@link #MAGIC}, a version, the table of metric
 * field names its samples use, then records, each its length and then its body:
 * <ul>
 *   <li>{@link #SAMPLE}: producer node, seq and ts (each the difference from the node's previous sample), then per
 *   card its uuid, which fields it holds (a bit mask over the table) and each value as a decimal mantissa, stored as
 *   the difference from the card's previous mantissa of that field at the same scale, or as the double's raw bits;
 *   then its processes;</li>
 *   <li>{@link #FRAME}: any other frame as its JSON trace line;</li>
 *   <li>{@link #FORGET}: the string table and the cards' previous values start over (the writer bounds both).</li>
 * </ul>
 * Strings are written once and then referred to by number. Every value decodes to the same double the writer
 * had, bit for bit.
 */
public final class BinaryTrace {
    /** First bytes of a binary trace: not JSON text, not gzip, and broken by a text-mode copy, as in PNG. */
    static final byte[] MAGIC = {(byte) 0x89, 'G', 'W', 'T', '\r', '\n', 0x1a, '\n'};
    /** How many bytes {@link #starts} may push back. */
    public static final int MAGIC_BYTES = 8;
    /** The version this code writes and reads. */
    static final int VERSION = 1;

    static final int SAMPLE = 1;
    static final int FRAME = 2;
    static final int FORGET = 3;

    /** A value kept as its raw IEEE bits rather than a decimal mantissa. */
    static final int RAW = 0xFF;
    /** Decimal scales tried: a value v is stored as m with m / 10^scale == v exactly. */
    static final int MAX_SCALE = 15;
    static final double[] POW10 = new double[MAX_SCALE + 1];
    /** The largest mantissa a double holds exactly. */
    static final long MAX_MANTISSA = 1L << 53;

    /** Strings a writer keeps referring to before it starts its table over. */
    static final int MAX_STRINGS = 1 << 16;

    static {
        double p = 1;
        for (int i = 0; i <= MAX_SCALE; i++) {
            POW10[i] = p;
            p *= 10;
        }
    }

    private BinaryTrace() {
    }

    /**
     * True when the stream starts with the binary trace magic; the bytes looked at are pushed back. Reads one
     * byte at a time, so that a gzip stream that breaks off still gives what it holds: a buffered read ahead
     * would lose it to the exception.
     */
    public static boolean starts(PushbackInputStream in) throws IOException {
        byte[] head = new byte[MAGIC.length];
        int n = 0;
        try {
            while (n < head.length) {
                int b = in.read();
                if (b < 0) {
                    break;
                }
                head[n++] = (byte) b;
                if (b != (MAGIC[n - 1] & 0xFF)) {
                    break;
                }
            }
        } catch (EOFException e) {
            // a stream that ends this early is no binary trace; its reader meets the end again and reports it
        } finally {
            in.unread(head, 0, n);
        }
        return n == MAGIC.length && head[n - 1] == MAGIC[n - 1];
    }
}
