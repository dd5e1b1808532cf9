package io.gpuwatch.protocol.trace;

import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.codec.Decoded;
import io.gpuwatch.protocol.codec.FrameCodec;
import io.gpuwatch.protocol.codec.FrameLimits;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a {@link BinaryTrace} from a stream, one entry at a time and in memory bounded by the format: a frame with
 * its producer node, or a problem naming the byte where it is. A record that cannot be read ends the trace with a
 * problem (its lengths cannot be trusted), except a frame record whose JSON is bad, which is skipped like a bad
 * line of a JSON-lines trace. A file that breaks off inside a record (its writer was killed) gives every whole
 * record, then a problem. One owner reads.
 */
public final class BinaryTraceReader {
    /** What {@link #next()} gives: a frame of a node, or a problem. */
    public sealed interface Entry permits Read, Problem {
    }

    /** A frame and the node that produced it (a hello's own node). */
    public record Read(String node, Frame frame) implements Entry {
    }

    /** Something the reader could not take at byte {@code at} of {@code source}. */
    public record Problem(String source, long at, String what) implements Entry {
        /** {@code source: byte N: what}. */
        public String message() {
            return source + ": byte " + at + ": " + what;
        }
    }

    private static final int CHUNK = 1 << 16;

    private final InputStream in;
    private final String source;
    private final FrameCodec codec;
    private final FrameLimits limits;
    private final int maxRecord;
    private final long maxStrings;
    private byte[] buf = new byte[CHUNK];
    private int pos;
    private int limit;
    /** File offset of {@code buf[0]}. */
    private long base;
    private boolean eof;
    private boolean ended;
    private boolean headerRead;
    /** By field number of the file's table: this build's metric ordinal, or -1 for a field it does not know. */
    private int[] ordinals;
    private final List<String> strings = new ArrayList<>();
    private final Mantissas previous = new Mantissas(0);
    private final Map<String, long[]> nodeStamps = new HashMap<>();
    private int recordEnd;
    /** The number of the string last read by {@link #string}, or -1 for null. */
    private int lastRef;

    /** A reader of {@code in} named {@code source} in problems, taking frames within {@code limits}. */
    public BinaryTraceReader(InputStream in, String source, FrameLimits limits) {
        this.in = in;
        this.source = source;
        this.limits = limits;
        this.codec = new FrameCodec(limits);
        // a frame record is a trace line: a wire frame plus the "node" key
        this.maxRecord = limits.maxFrameBytes() + 512;
        // a writer forgets its table once it holds MAX_STRINGS, so one sample's worth more is all a file can add
        this.maxStrings = BinaryTrace.MAX_STRINGS + 1 + limits.maxCards() * (1 + 3L * limits.maxProcessesPerCard());
    }

    /** The next entry, or null at the end of the trace. */
    public Entry next() throws IOException {
        while (!ended) {
            if (!headerRead) {
                Problem p = header();
                if (p != null) {
                    ended = true;
                    return p;
                }
                continue;
            }
            if (!fill(1)) {
                ended = true;
                return null;
            }
            if (buf[pos] == BinaryTrace.MAGIC[0] && fill(BinaryTrace.MAGIC.length) && Arrays.equals(buf, pos,
                    pos + BinaryTrace.MAGIC.length, BinaryTrace.MAGIC, 0, BinaryTrace.MAGIC.length)) {
                // a writer appended to the file: its own header, table and references follow
                headerRead = false;
                forget();
                continue;
            }
            long at = base + pos;
            try {
                int length = lengthPrefix();
                if (length < 1 || length > maxRecord) {
                    return end(at, "a record of " + length + " bytes, outside 1.." + maxRecord);
                }
                if (!fill(length)) {
                    return end(at, "the file ends inside a record (its writer was stopped while writing)");
                }
                recordEnd = pos + length;
                Entry e = record(at);
                if (e != null) {
                    return e;
                }
            } catch (Malformed m) {
                return end(at, m.getMessage());
            }
        }
        return null;
    }

    private Problem end(long at, String message) {
        ended = true;
        return problem(at, message);
    }

    private Problem problem(long at, String message) {
        return new Problem(source, at, message);
    }

    private Problem header() throws IOException {
        headerRead = true;
        if (!fill(BinaryTrace.MAGIC.length) || !Arrays.equals(buf, pos, pos + BinaryTrace.MAGIC.length,
                BinaryTrace.MAGIC, 0, BinaryTrace.MAGIC.length)) {
            return problem(base + pos, "not a gpuwatch binary trace (it does not start with the format's magic bytes)");
        }
        pos += BinaryTrace.MAGIC.length;
        try {
            fillOrFail(10);
            int version = varint();
            if (version != BinaryTrace.VERSION) {
                return problem(base + pos, "binary trace version " + version + "; this gpuwatch reads "
                        + BinaryTrace.VERSION);
            }
            fillOrFail(10);
            int n = varint();
            if (n < 0 || n > 4096) {
                return problem(base + pos, "a table of " + n + " fields");
            }
            ordinals = new int[n];
            previous.clear(n);
            for (int i = 0; i < n; i++) {
                fillOrFail(10);
                int len = varint();
                if (len < 0 || len > 256) {
                    return problem(base + pos, "a field name of " + len + " bytes");
                }
                fillOrFail(len);
                if (limit - pos < len) {
                    throw new Malformed("the file ends inside its header");
                }
                Metric m = Metric.byField(new String(buf, pos, len, StandardCharsets.UTF_8));
                pos += len;
                ordinals[i] = m == null ? -1 : m.ordinal();
            }
            return null;
        } catch (Malformed m) {
            return problem(base + pos, m.getMessage());
        }
    }

    /** Makes up to {@code n} header bytes readable, and no more than the file has. */
    private void fillOrFail(int n) throws IOException {
        if (!fill(n) && limit - pos == 0) {
            throw new Malformed("the file ends inside its header");
        }
        recordEnd = limit;
    }

    private int lengthPrefix() throws IOException {
        fill(5);
        recordEnd = limit;
        return varint();
    }

    private Entry record(long at) {
        int kind = varint();
        switch (kind) {
            case BinaryTrace.SAMPLE -> {
                Entry e = sample();
                done();
                return e;
            }
            case BinaryTrace.FRAME -> {
                Decoded d = codec.decode(buf, pos, recordEnd);
                pos = recordEnd;
                if (d instanceof Decoded.Ok ok) {
                    String node = ok.frame() instanceof Hello h ? h.node() : ok.node();
                    if (node == null) {
                        return problem(at, "a " + ok.frame().type() + " frame without the \"node\" key that names its "
                                + "producer");
                    }
                    return new Read(node, ok.frame());
                }
                return problem(at, ((Decoded.Bad) d).message());
            }
            case BinaryTrace.FORGET -> {
                forget();
                done();
                return null;
            }
            default -> {
                // a kind this version does not know: skip it, its length says where the next record starts
                pos = recordEnd;
                return null;
            }
        }
    }

    private void forget() {
        strings.clear();
        previous.clear(ordinals.length);
        nodeStamps.clear();
    }

    private void done() {
        if (pos != recordEnd) {
            throw new Malformed("a record longer than what it holds");
        }
    }

    private Entry sample() {
        String node = string(false);
        long[] stamps = nodeStamps.computeIfAbsent(node, k -> new long[2]);
        long seq = stamps[0] + signed();
        long ts = stamps[1] + signed();
        stamps[0] = seq;
        stamps[1] = ts;
        int n = count(limits.maxCards(), "cards");
        List<CardReading> cards = new ArrayList<>(n);
        for (int c = 0; c < n; c++) {
            String uuid = string(false);
            MetricValues values = values(previous.of(lastRef));
            int p = count(limits.maxProcessesPerCard(), "processes");
            List<ProcessInfo> processes = new ArrayList<>(p);
            for (int i = 0; i < p; i++) {
                long pid = signed();
                Long mem = switch (varint()) {
                    case 0 -> null;
                    case 1 -> signed();
                    default -> throw new Malformed("a process memory flag other than 0 or 1");
                };
                processes.add(new ProcessInfo(pid, mem, string(true), string(true), string(true)));
            }
            cards.add(new CardReading(uuid, values, processes));
        }
        return new Read(node, new Sample(seq, ts, cards));
    }

    private MetricValues values(Mantissas.Card prev) {
        int fields = ordinals.length;
        long[] masks = new long[(fields + 63) / 64];
        for (int w = 0; w < masks.length; w++) {
            masks[w] = varlong();
        }
        MetricValues.Builder values = MetricValues.builder();
        for (int i = 0; i < fields; i++) {
            if ((masks[i >>> 6] & (1L << (i & 63))) == 0) {
                continue;
            }
            int scale = byteAt();
            double v;
            if (scale == BinaryTrace.RAW) {
                v = Double.longBitsToDouble(longBits());
                prev.scale()[i] = -1;
            } else if (scale <= BinaryTrace.MAX_SCALE) {
                long m = signed() + (prev.scale()[i] == scale ? prev.mantissa()[i] : 0);
                prev.mantissa()[i] = m;
                prev.scale()[i] = scale;
                v = (double) m / BinaryTrace.POW10[scale];
            } else {
                throw new Malformed("a value of scale " + scale);
            }
            if (ordinals[i] >= 0) {
                values.set(Metric.of(ordinals[i]), v);
            }
        }
        return values.build();
    }

    private int count(int max, String what) {
        int n = varint();
        if (n < 0 || n > max) {
            throw new Malformed("a sample with " + n + " " + what + ", over the limit of " + max);
        }
        return n;
    }

    private String string(boolean nullable) {
        int ref = varint();
        if (ref == 0) {
            if (!nullable) {
                throw new Malformed("a missing node or uuid");
            }
            lastRef = -1;
            return null;
        }
        if (ref == 1) {
            if (strings.size() >= maxStrings) {
                throw new Malformed("more than " + maxStrings + " strings without a forget record");
            }
            int len = varint();
            if (len < 0 || len > limits.maxStringChars() * 3 || len > recordEnd - pos) {
                throw new Malformed("a string of " + len + " bytes");
            }
            String s = new String(buf, pos, len, StandardCharsets.UTF_8);
            pos += len;
            lastRef = strings.size();
            strings.add(s);
            return s;
        }
        if (ref - 2 >= strings.size() || ref < 0) {
            throw new Malformed("string number " + (ref - 2) + " of " + strings.size());
        }
        lastRef = ref - 2;
        return strings.get(ref - 2);
    }

    private int byteAt() {
        if (pos >= recordEnd) {
            throw new Malformed("a record that ends inside a value");
        }
        return buf[pos++] & 0xFF;
    }

    private int varint() {
        long v = varlong();
        if (v > Integer.MAX_VALUE || v < 0) {
            throw new Malformed("a count of " + Long.toUnsignedString(v));
        }
        return (int) v;
    }

    private long varlong() {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = byteAt();
            v |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw new Malformed("a number longer than 64 bits");
    }

    private long signed() {
        long z = varlong();
        return (z >>> 1) ^ -(z & 1);
    }

    private long longBits() {
        long bits = 0;
        for (int i = 0; i < 8; i++) {
            bits |= (long) byteAt() << (8 * i);
        }
        return bits;
    }

    /** Makes {@code n} bytes available from {@code pos}; false when the file ends first. */
    private boolean fill(int n) throws IOException {
        if (limit - pos >= n) {
            return true;
        }
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, limit - pos);
            limit -= pos;
            base += pos;
            recordEnd -= Math.min(recordEnd, pos);
            pos = 0;
        }
        if (n > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(n, buf.length * 2));
        }
        while (limit < n && !eof) {
            int r = in.read(buf, limit, buf.length - limit);
            if (r < 0) {
                eof = true;
            } else {
                limit += r;
            }
        }
        return limit - pos >= n;
    }

    /** The record cannot be read; carries the reason. */
    private static final class Malformed extends RuntimeException {
        Malformed(String message) {
            super(message, null, false, false);
        }
    }
}
