package io.gpuwatch.protocol.codec;

import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.ClockEventReason;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a sample frame straight from its UTF-8 bytes, in the shape the probe writes it: {@code type} first, no
 * whitespace, ASCII strings without escapes, known fields only. A trace is nearly all such lines, and Jackson's
 * field-name lookups and text buffers were most of a backtest's decoding. Anything outside that shape, and
 * anything {@link FrameReader} would refuse, gives null, and the caller decodes the text with Jackson; so a line
 * this reads decodes to exactly what {@link FrameReader} makes of it. Not thread-safe; one per thread.
 */
final class SampleScanner {
    private static final byte[] HEAD = "{\"type\":\"sample\"".getBytes(StandardCharsets.US_ASCII);
    private static final long[] POW10 = new long[19];
    private static final double[] DPOW10 = new double[23];
    private static final Names<Metric> METRICS = new Names<>();
    private static final Names<ClockEventReason> REASONS = new Names<>();
    private static final int SEQ = 0;
    private static final int TS = 1;
    private static final int NODE = 2;
    private static final int CARDS = 3;
    private static final int TYPE = 4;
    private static final Names<Integer> TOP = new Names<>();
    private static final int UUID = 0;
    private static final int PROCESSES = 1;
    private static final Names<Integer> CARD_KEYS = new Names<>();
    private static final int PID = 0;
    private static final int USED_MEM = 1;
    private static final int TASK = 2;
    private static final int OWNER = 3;
    private static final int BUSINESS = 4;
    private static final Names<Integer> PROCESS_KEYS = new Names<>();

    static {
        POW10[0] = 1;
        for (int i = 1; i < POW10.length; i++) {
            POW10[i] = POW10[i - 1] * 10;
        }
        for (int i = 0; i < DPOW10.length; i++) {
            DPOW10[i] = Double.parseDouble("1e" + i);
        }
        for (int i = 0; i < Metric.count(); i++) {
            Metric m = Metric.of(i);
            if (m.source() == Metric.Source.CARD) {
                METRICS.put(m.field(), m);
            }
        }
        for (ClockEventReason r : ClockEventReason.values()) {
            REASONS.put(r.name(), r);
        }
        TOP.put("seq", SEQ);
        TOP.put("ts", TS);
        TOP.put("node", NODE);
        TOP.put("cards", CARDS);
        TOP.put("type", TYPE);
        CARD_KEYS.put("uuid", UUID);
        CARD_KEYS.put("processes", PROCESSES);
        PROCESS_KEYS.put("pid", PID);
        PROCESS_KEYS.put("usedMemBytes", USED_MEM);
        PROCESS_KEYS.put("task", TASK);
        PROCESS_KEYS.put("owner", OWNER);
        PROCESS_KEYS.put("business", BUSINESS);
    }

    private final FrameLimits limits;
    private byte[] b;
    private int at;
    private int end;
    // the last strings read, reused while the bytes repeat (a card's uuid and task, sample after sample)
    private final String[] recent = new String[1024];

    SampleScanner(FrameLimits limits) {
        this.limits = limits;
    }

    /** The sample in {@code bytes[from, to)}, or null when the line is not a sample in the probe's own shape. */
    Decoded.Ok read(byte[] bytes, int from, int to) {
        if (to - from > limits.maxFrameBytes() || !startsWith(bytes, from, to)) {
            return null;
        }
        b = bytes;
        at = from + HEAD.length;
        end = to;
        try {
            return frame();
        } catch (Miss e) {
            return null;
        } finally {
            b = null;
        }
    }

    private static boolean startsWith(byte[] bytes, int from, int to) {
        if (to - from < HEAD.length) {
            return false;
        }
        for (int i = 0; i < HEAD.length; i++) {
            if (bytes[from + i] != HEAD[i]) {
                return false;
            }
        }
        return true;
    }

    private Decoded.Ok frame() throws Miss {
        long seq = -1;
        long ts = -1;
        String node = null;
        List<CardReading> cards = null;
        while (at < end && b[at] == ',') {
            at++;
            int nameEnd = name();
            Integer key = TOP.get(b, nameEnd, keyStart, keyHash);
            expect(':');
            if (key == null) {
                throw Miss.MISS;
            }
            switch (key) {
                case SEQ -> seq = integer(0);
                case TS -> ts = integer(1);
                case NODE -> node = nodeName();
                case CARDS -> cards = cards();
                default -> throw Miss.MISS;
            }
        }
        expect('}');
        if (at != end || seq < 0 || ts < 0 || cards == null) {
            throw Miss.MISS;
        }
        return new Decoded.Ok(new Sample(seq, ts, cards), node);
    }

    private List<CardReading> cards() throws Miss {
        expect('[');
        List<CardReading> cards = new ArrayList<>(8);
        if (peek() == ']') {
            at++;
            return cards;
        }
        do {
            if (cards.size() == limits.maxCards()) {
                throw Miss.MISS;
            }
            CardReading c = card();
            for (CardReading other : cards) {
                if (other.uuid().equals(c.uuid())) {
                    throw Miss.MISS;
                }
            }
            cards.add(c);
        } while (comma());
        expect(']');
        return cards;
    }

    private CardReading card() throws Miss {
        expect('{');
        String uuid = null;
        List<ProcessInfo> processes = List.of();
        MetricValues.Builder values = MetricValues.builder();
        if (peek() != '}') {
            do {
                int nameEnd = name();
                int nameStart = keyStart;
                expect(':');
                Integer key = CARD_KEYS.get(b, nameEnd, nameStart, keyHash);
                if (key != null && key == UUID) {
                    uuid = string();
                    if (uuid == null || uuid.isEmpty()) {
                        throw Miss.MISS;
                    }
                } else if (key != null) {
                    processes = processes();
                } else {
                    Metric m = METRICS.get(b, nameEnd, nameStart, keyHash);
                    if (m == null) {
                        throw Miss.MISS;
                    }
                    metric(values, m);
                }
            } while (comma());
        }
        expect('}');
        if (uuid == null) {
            throw Miss.MISS;
        }
        return new CardReading(uuid, values.build(), processes);
    }

    private void metric(MetricValues.Builder values, Metric m) throws Miss {
        switch (m.kind()) {
            case FLAG -> {
                if (literal("true")) {
                    values.set(m, 1);
                } else if (literal("false")) {
                    values.set(m, 0);
                } else if (!literal("null")) {
                    throw Miss.MISS;
                }
            }
            case MASK -> {
                if (!literal("null")) {
                    values.set(m, mask());
                }
            }
            default -> {
                if (!literal("null")) {
                    double v = number();
                    if (v < FrameReader.MIN[m.ordinal()] || v > FrameReader.MAX[m.ordinal()]) {
                        throw Miss.MISS;
                    }
                    values.set(m, v);
                }
            }
        }
    }

    private long mask() throws Miss {
        expect('[');
        long mask = 0;
        if (peek() == ']') {
            at++;
            return mask;
        }
        do {
            expect('"');
            int start = at;
            int h = 0;
            while (at < end && b[at] != '"') {
                h = 31 * h + b[at];
                at++;
            }
            ClockEventReason r = REASONS.get(b, at, start, h);
            if (r == null || at == end) {
                throw Miss.MISS;
            }
            at++;
            mask |= r.bit();
        } while (comma());
        expect(']');
        return mask;
    }

    private List<ProcessInfo> processes() throws Miss {
        if (literal("null")) {
            return List.of();
        }
        expect('[');
        List<ProcessInfo> out = new ArrayList<>(2);
        if (peek() == ']') {
            at++;
            return out;
        }
        do {
            if (out.size() == limits.maxProcessesPerCard()) {
                throw Miss.MISS;
            }
            out.add(process());
        } while (comma());
        expect(']');
        return out;
    }

    private ProcessInfo process() throws Miss {
        expect('{');
        long pid = -1;
        Long usedMem = null;
        String task = null;
        String owner = null;
        String business = null;
        if (peek() != '}') {
            do {
                int nameEnd = name();
                Integer key = PROCESS_KEYS.get(b, nameEnd, keyStart, keyHash);
                expect(':');
                if (key == null) {
                    throw Miss.MISS;
                }
                switch (key) {
                    case PID -> pid = integer(0);
                    case USED_MEM -> usedMem = literal("null") ? null : integer(0);
                    case TASK -> task = string();
                    case OWNER -> owner = string();
                    default -> business = string();
                }
            } while (comma());
        }
        expect('}');
        if (pid < 0) {
            throw Miss.MISS;
        }
        return new ProcessInfo(pid, usedMem, task, owner, business);
    }

    // ---- tokens

    private int keyStart;
    private int keyHash;

    /** Reads a quoted key; returns the index just past its last character, its first at {@link #keyStart}. */
    private int name() throws Miss {
        expect('"');
        keyStart = at;
        int h = 0;
        while (at < end && b[at] != '"') {
            if (b[at] == '\\' || b[at] < 0x20) {
                throw Miss.MISS;
            }
            h = 31 * h + b[at];
            at++;
        }
        keyHash = h;
        if (at == end) {
            throw Miss.MISS;
        }
        return at++;
    }

    /** A string of printable ASCII without escapes, or null for JSON null. */
    private String string() throws Miss {
        if (literal("null")) {
            return null;
        }
        expect('"');
        int start = at;
        int hash = 0;
        while (at < end) {
            byte c = b[at];
            if (c == '"') {
                break;
            }
            if (c == '\\' || c < 0x20 || c == 0x7F) {
                throw Miss.MISS;
            }
            hash = 31 * hash + c;
            at++;
        }
        if (at == end || at - start > limits.maxStringChars()) {
            throw Miss.MISS;
        }
        int len = at - start;
        at++;
        int slot = hash & (recent.length - 1);
        String s = recent[slot];
        if (s != null && sameAscii(s, start, len)) {
            return s;
        }
        s = new String(b, start, len, StandardCharsets.ISO_8859_1);
        recent[slot] = s;
        return s;
    }

    private boolean sameAscii(String s, int start, int len) {
        if (s.length() != len) {
            return false;
        }
        for (int i = 0; i < len; i++) {
            if (s.charAt(i) != b[start + i]) {
                return false;
            }
        }
        return true;
    }

    private String nodeName() throws Miss {
        String s = string();
        if (s == null || !FrameReader.isNodeName(s)) {
            throw Miss.MISS;
        }
        return s;
    }

    /** A JSON integer of at most 18 digits, at least {@code min}. */
    private long integer(long min) throws Miss {
        boolean negative = at < end && b[at] == '-';
        if (negative) {
            at++;
        }
        int start = at;
        long v = 0;
        while (at < end && b[at] >= '0' && b[at] <= '9') {
            v = v * 10 + (b[at] - '0');
            at++;
        }
        int digits = at - start;
        if (digits == 0 || digits > 18 || (digits > 1 && b[start] == '0') || fractionOrExponent()) {
            throw Miss.MISS;
        }
        v = negative ? -v : v;
        if (v < min) {
            throw Miss.MISS;
        }
        return v;
    }

    private boolean fractionOrExponent() {
        return at < end && (b[at] == '.' || b[at] == 'e' || b[at] == 'E');
    }

    /**
     * A JSON number as Jackson reads it: an integer through {@code long}, a decimal correctly rounded, exactly
     * when its digits fit 2^53 and its power of ten 10^22 (both then exact doubles), else by the JDK's parser.
     */
    private double number() throws Miss {
        int start = at;
        boolean negative = b[at] == '-';
        if (negative) {
            at++;
        }
        int intStart = at;
        long digits = 0;
        int count = 0;
        while (at < end && b[at] >= '0' && b[at] <= '9') {
            digits = digits * 10 + (b[at] - '0');
            count++;
            at++;
        }
        int intDigits = at - intStart;
        if (intDigits == 0 || (intDigits > 1 && b[intStart] == '0')) {
            throw Miss.MISS;
        }
        if (!fractionOrExponent()) {
            if (intDigits > 18 || (negative && digits == 0)) {
                throw Miss.MISS;
            }
            return negative ? (double) -digits : (double) digits;
        }
        int scale = 0;
        if (b[at] == '.') {
            at++;
            int fracStart = at;
            while (at < end && b[at] >= '0' && b[at] <= '9') {
                digits = digits * 10 + (b[at] - '0');
                count++;
                at++;
            }
            scale = at - fracStart;
            if (scale == 0) {
                throw Miss.MISS;
            }
        }
        int exp = 0;
        if (at < end && (b[at] == 'e' || b[at] == 'E')) {
            at++;
            boolean expNegative = false;
            if (at < end && (b[at] == '+' || b[at] == '-')) {
                expNegative = b[at] == '-';
                at++;
            }
            int expStart = at;
            while (at < end && b[at] >= '0' && b[at] <= '9' && at - expStart < 4) {
                exp = exp * 10 + (b[at] - '0');
                at++;
            }
            if (at == expStart || (at < end && b[at] >= '0' && b[at] <= '9')) {
                throw Miss.MISS;
            }
            exp = expNegative ? -exp : exp;
        }
        int power = exp - scale;
        double v;
        if (count <= 18 && digits < (1L << 53) && power >= -22 && power <= 22) {
            double d = digits;
            v = power < 0 ? d / DPOW10[-power] : d * DPOW10[power];
            v = negative ? -v : v;
        } else {
            v = Double.parseDouble(new String(b, start, at - start, StandardCharsets.ISO_8859_1));
        }
        if (!Double.isFinite(v)) {
            throw Miss.MISS;
        }
        return v;
    }

    private boolean literal(String word) {
        int n = word.length();
        if (end - at < n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (b[at + i] != word.charAt(i)) {
                return false;
            }
        }
        at += n;
        return true;
    }

    private int peek() throws Miss {
        if (at == end) {
            throw Miss.MISS;
        }
        return b[at];
    }

    private void expect(char c) throws Miss {
        if (at == end || b[at] != c) {
            throw Miss.MISS;
        }
        at++;
    }

    private boolean comma() {
        if (at < end && b[at] == ',') {
            at++;
            return true;
        }
        return false;
    }

    /** The line is not one this reads; thrown without a stack trace, to fall back on Jackson. */
    private static final class Miss extends Exception {
        static final Miss MISS = new Miss();

        private Miss() {
            super(null, null, false, false);
        }
    }

    /** Field names looked up by their bytes, without making a String of them. */
    private static final class Names<V> {
        private final byte[][] keys = new byte[256][];
        private final Object[] values = new Object[256];

        void put(String name, V value) {
            byte[] k = name.getBytes(StandardCharsets.US_ASCII);
            int h = 0;
            for (byte c : k) {
                h = 31 * h + c;
            }
            int i = slot(h);
            while (keys[i] != null) {
                i = (i + 1) & (keys.length - 1);
            }
            keys[i] = k;
            values[i] = value;
        }

        /** The value of the name in {@code bytes[start, end)}, whose hash ({@code 31 * h + byte}) is {@code h}. */
        @SuppressWarnings("unchecked")
        V get(byte[] bytes, int end, int start, int h) {
            int len = end - start;
            for (int i = slot(h); keys[i] != null; i = (i + 1) & (keys.length - 1)) {
                byte[] k = keys[i];
                if (k.length == len && same(k, bytes, start)) {
                    return (V) values[i];
                }
            }
            return null;
        }

        // names are a few bytes long: a plain loop beats the JDK's vectorised compare and its set-up
        private static boolean same(byte[] k, byte[] bytes, int start) {
            for (int j = 0; j < k.length; j++) {
                if (k[j] != bytes[start + j]) {
                    return false;
                }
            }
            return true;
        }

        private int slot(int h) {
            return (h ^ (h >>> 7)) & (keys.length - 1);
        }
    }
}
