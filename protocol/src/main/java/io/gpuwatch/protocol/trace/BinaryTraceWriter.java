package io.gpuwatch.protocol.trace;

import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.codec.FrameCodec;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/** Writes frames in the {@link BinaryTrace} format onto a stream (buffer it); one owner writes. */
public final class BinaryTraceWriter {
    private final OutputStream out;
    private final FrameCodec codec = new FrameCodec();
    private final Bytes body = new Bytes();
    private final Bytes head = new Bytes();
    private final Map<String, Integer> strings = new HashMap<>();
    private final Mantissas previous = new Mantissas(Metric.count());
    private final Map<String, long[]> nodeStamps = new HashMap<>();
    private final int fields = Metric.count();

    /** Writes the file header at once. */
    public BinaryTraceWriter(OutputStream out) throws IOException {
        this.out = out;
        head.bytes(BinaryTrace.MAGIC);
        head.varint(BinaryTrace.VERSION);
        head.varint(fields);
        for (int i = 0; i < fields; i++) {
            byte[] name = Metric.of(i).field().getBytes(StandardCharsets.UTF_8);
            head.varint(name.length);
            head.bytes(name);
        }
        head.writeTo(out);
        head.clear();
    }

    /** Appends a frame: a hello ({@code node} null), or another producer frame of {@code node}. */
    public void write(Frame frame, String node) throws IOException {
        if (strings.size() >= BinaryTrace.MAX_STRINGS) {
            forget();
        }
        body.clear();
        if (frame instanceof Sample s) {
            body.varint(BinaryTrace.SAMPLE);
            sample(s, node);
        } else {
            body.varint(BinaryTrace.FRAME);
            body.bytes(codec.encode(frame, frame instanceof Hello ? null : node).getBytes(StandardCharsets.UTF_8));
        }
        record();
    }

    private void forget() throws IOException {
        strings.clear();
        previous.clear(fields);
        nodeStamps.clear();
        body.clear();
        body.varint(BinaryTrace.FORGET);
        record();
    }

    private void record() throws IOException {
        head.clear();
        head.varint(body.length());
        head.writeTo(out);
        body.writeTo(out);
    }

    private void sample(Sample s, String node) {
        string(node);
        long[] stamps = nodeStamps.computeIfAbsent(node, k -> new long[2]);
        body.signed(s.seq() - stamps[0]);
        body.signed(s.ts() - stamps[1]);
        stamps[0] = s.seq();
        stamps[1] = s.ts();
        body.varint(s.cards().size());
        for (CardReading card : s.cards()) {
            Mantissas.Card prev = previous.of(string(card.uuid()));
            values(card.values(), prev);
            body.varint(card.processes().size());
            for (ProcessInfo p : card.processes()) {
                body.signed(p.pid());
                if (p.usedMemBytes() == null) {
                    body.varint(0);
                } else {
                    body.varint(1);
                    body.signed(p.usedMemBytes());
                }
                string(p.task());
                string(p.owner());
                string(p.business());
            }
        }
    }

    private void values(MetricValues values, Mantissas.Card prev) {
        for (int word = 0; word < fields; word += 64) {
            long mask = 0;
            for (int i = word; i < Math.min(word + 64, fields); i++) {
                if (!Double.isNaN(values.get(i))) {
                    mask |= 1L << (i - word);
                }
            }
            body.varlong(mask);
        }
        for (int i = 0; i < fields; i++) {
            double v = values.get(i);
            if (Double.isNaN(v)) {
                continue;
            }
            int scale = scaleOf(v);
            if (scale < 0) {
                body.put(BinaryTrace.RAW);
                body.longBits(Double.doubleToRawLongBits(v));
                prev.scale()[i] = -1;
                continue;
            }
            long m = Math.round(v * BinaryTrace.POW10[scale]);
            body.put(scale);
            body.signed(prev.scale()[i] == scale ? m - prev.mantissa()[i] : m);
            prev.mantissa()[i] = m;
            prev.scale()[i] = scale;
        }
    }

    /** The smallest decimal scale that gives back {@code v} exactly, or -1. */
    static int scaleOf(double v) {
        if (v == 0 && Double.doubleToRawLongBits(v) != 0) {
            return -1;
        }
        for (int scale = 0; scale <= BinaryTrace.MAX_SCALE; scale++) {
            double scaled = v * BinaryTrace.POW10[scale];
            if (!(Math.abs(scaled) < BinaryTrace.MAX_MANTISSA)) {
                return -1;
            }
            long m = Math.round(scaled);
            if ((double) m / BinaryTrace.POW10[scale] == v) {
                return scale;
            }
        }
        return -1;
    }

    /** Writes a string reference: 0 for null, 1 and the text the first time, its number + 2 after. */
    private int string(String s) {
        if (s == null) {
            body.varint(0);
            return -1;
        }
        Integer id = strings.get(s);
        if (id != null) {
            body.varint(id + 2);
            return id;
        }
        int next = strings.size();
        strings.put(s, next);
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        body.varint(1);
        body.varint(utf8.length);
        body.bytes(utf8);
        return next;
    }

    /** A growable byte buffer with the format's integer encodings. */
    private static final class Bytes {
        private byte[] buf = new byte[4096];
        private int len;

        void clear() {
            len = 0;
        }

        int length() {
            return len;
        }

        void put(int b) {
            if (len == buf.length) {
                buf = Arrays.copyOf(buf, buf.length * 2);
            }
            buf[len++] = (byte) b;
        }

        void bytes(byte[] b) {
            if (len + b.length > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + b.length));
            }
            System.arraycopy(b, 0, buf, len, b.length);
            len += b.length;
        }

        void varint(int v) {
            varlong(v & 0xFFFFFFFFL);
        }

        /** Unsigned LEB128. */
        void varlong(long v) {
            while ((v & ~0x7FL) != 0) {
                put((int) ((v & 0x7F) | 0x80));
                v >>>= 7;
            }
            put((int) v);
        }

        /** Zig-zag, so that small negative numbers stay short. */
        void signed(long v) {
            varlong((v << 1) ^ (v >> 63));
        }

        void longBits(long bits) {
            for (int i = 0; i < 8; i++) {
                put((int) (bits >>> (8 * i)));
            }
        }

        void writeTo(OutputStream out) throws IOException {
            out.write(buf, 0, len);
        }
    }
}
