package io.gpuwatch.gateway.window;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A bounded log of one card's or node's events (time, kind, code) in parallel primitive arrays that grow on
 * demand up to a capacity; when full the oldest event is dropped and counted, and events older than the
 * horizon behind the newest one expire. Queries cover {@code (now - windowMs, now]}, {@code now} being the time
 * last given to {@link #at} (until then, the newest event). Not thread-safe: one owner adds and reads.
 */
public final class EventLog {
    /** Capacity of a log built without one. */
    public static final int DEFAULT_CAPACITY = 256;

    private static final int FIRST_LENGTH = 8;
    private static final long[] NO_TIMES = new long[0];
    private static final short[] NO_KINDS = new short[0];
    private static final int[] NO_INTS = new int[0];
    private static final String[] NO_NAMES = new String[0];
    // 5 references, 4 longs, 3 ints.
    private static final long SHALLOW_BYTES =
            MetricWindow.align(MetricWindow.OBJECT_HEADER + 5 * 4 + 4 * 8 + 3 * 4);
    private static final long NONE = Long.MIN_VALUE;
    // Caps a window so that now - window cannot overflow; 2^50 ms is some 35,000 years.
    private static final long MAX_WINDOW_MS = 1L << 50;
    private static final long STRING_BYTES = 24;

    private final int capacity;
    private final long horizonMs;
    // A ring of size events starting at head; kinds index the kind table.
    private long[] times = NO_TIMES;
    private short[] kinds = NO_KINDS;
    private int[] codes = NO_INTS;
    private int head;
    private int size;
    // Kind table: an entry no event refers to any more is freed and reused, so it never outgrows the capacity.
    private String[] kindNames = NO_NAMES;
    private int[] kindRefs = NO_INTS;
    private long newestMs = NONE;
    private long nowMs = NONE;
    private long dropped;

    /** A log of {@link #DEFAULT_CAPACITY} events over {@code horizonMs}. */
    public EventLog(long horizonMs) {
        this(DEFAULT_CAPACITY, horizonMs);
    }

    /** A log of at most {@code capacity} events over {@code horizonMs}. */
    public EventLog(int capacity, long horizonMs) {
        if (capacity < 1 || capacity > Short.MAX_VALUE) {
            throw new IllegalArgumentException("capacity must be in 1.." + Short.MAX_VALUE + ", got " + capacity);
        }
        if (horizonMs <= 0) {
            throw new IllegalArgumentException("horizonMs must be positive, got " + horizonMs);
        }
        this.capacity = capacity;
        this.horizonMs = horizonMs;
    }

    /** Records an event; one already older than the horizon behind the newest event is not kept. */
    public void add(long tsMs, String kind, int code) {
        Objects.requireNonNull(kind, "kind");
        if (tsMs > newestMs) {
            newestMs = tsMs;
            while (size > 0 && expired(times[head])) {
                removeOldest();
            }
        }
        if (expired(tsMs)) {
            return;
        }
        if (size == capacity) {
            removeOldest();
            dropped++;
        } else if (size == times.length) {
            grow();
        }
        int at = slot(size);
        times[at] = tsMs;
        kinds[at] = (short) intern(kind);
        codes[at] = code;
        size++;
    }

    /** One logged event, as a checkpoint keeps it. */
    public record Entry(long ts, String kind, int code) {
    }

    /** The events held now, oldest first. */
    public List<Entry> entries() {
        List<Entry> out = new ArrayList<>(size);
        for (int j = 0; j < size; j++) {
            int at = slot(j);
            out.add(new Entry(times[at], kindNames[kinds[at]], codes[at]));
        }
        return out;
    }

    /** Sets the evaluation time the queries end at; returns this log. */
    public EventLog at(long nowMs) {
        this.nowMs = nowMs;
        return this;
    }

    /** Events in the window of {@code kind} (null = any) with {@code code} (negative = any). */
    public int count(String kind, int code, long windowMs) {
        if (size == 0 || windowMs <= 0) {
            return 0;
        }
        long until = now();
        long since = until - Math.min(windowMs, MAX_WINDOW_MS);
        int k = -1;
        if (kind != null) {
            k = kindIndex(kind);
            if (k < 0) {
                return 0;
            }
        }
        int n = 0;
        for (int j = 0; j < size; j++) {
            if (matches(slot(j), k, code, since, until)) {
                n++;
            }
        }
        return n;
    }

    /**
     * Distinct codes, in ascending numeric order, of the matching events in the window; when {@code kind} is
     * null, the distinct kinds (in ascending order) of events in the window with {@code code} (negative = any).
     */
    public List<String> distinct(String kind, int code, long windowMs) {
        if (size == 0 || windowMs <= 0) {
            return List.of();
        }
        long until = now();
        long since = until - Math.min(windowMs, MAX_WINDOW_MS);
        if (kind == null) {
            boolean[] seen = new boolean[kindNames.length];
            for (int j = 0; j < size; j++) {
                int at = slot(j);
                if (matches(at, -1, code, since, until)) {
                    seen[kinds[at]] = true;
                }
            }
            List<String> names = new ArrayList<>();
            for (int k = 0; k < seen.length; k++) {
                if (seen[k]) {
                    names.add(kindNames[k]);
                }
            }
            names.sort(null);
            return List.copyOf(names);
        }
        int k = kindIndex(kind);
        if (k < 0) {
            return List.of();
        }
        int[] found = new int[size];
        int n = 0;
        for (int j = 0; j < size; j++) {
            int at = slot(j);
            if (matches(at, k, code, since, until)) {
                found[n++] = codes[at];
            }
        }
        Arrays.sort(found, 0, n);
        List<String> out = new ArrayList<>();
        for (int j = 0; j < n; j++) {
            if (j == 0 || found[j] != found[j - 1]) {
                out.add(Integer.toString(found[j]));
            }
        }
        return List.copyOf(out);
    }

    /** Events held now. */
    public int size() {
        return size;
    }

    /** Events dropped because the log was full. */
    public long dropped() {
        return dropped;
    }

    /** Heap held by this log: the object, its arrays and its kind names, by the usual 64-bit JVM layout. */
    public long retainedBytes() {
        long bytes = SHALLOW_BYTES;
        if (times != NO_TIMES) {
            bytes += MetricWindow.arrayBytes(times.length, Long.BYTES)
                    + MetricWindow.arrayBytes(kinds.length, Short.BYTES)
                    + MetricWindow.arrayBytes(codes.length, Integer.BYTES);
        }
        if (kindNames != NO_NAMES) {
            bytes += MetricWindow.arrayBytes(kindNames.length, 4) + MetricWindow.arrayBytes(kindRefs.length, 4);
            for (String name : kindNames) {
                if (name != null) {
                    bytes += STRING_BYTES + MetricWindow.arrayBytes(name.length(), latin1(name) ? 1 : 2);
                }
            }
        }
        return bytes;
    }

    private boolean matches(int at, int kind, int code, long since, long until) {
        long t = times[at];
        return t > since && t <= until && (kind < 0 || kinds[at] == kind) && (code < 0 || codes[at] == code);
    }

    private long now() {
        return nowMs != NONE ? nowMs : newestMs;
    }

    private boolean expired(long tsMs) {
        return tsMs <= newestMs - horizonMs;
    }

    private int slot(int j) {
        int at = head + j;
        return at >= times.length ? at - times.length : at;
    }

    private void removeOldest() {
        int k = kinds[head];
        if (--kindRefs[k] == 0) {
            kindNames[k] = null;
        }
        head = slot(1);
        size--;
    }

    private void grow() {
        int length = Math.min(capacity, Math.max(FIRST_LENGTH, times.length * 2));
        long[] t = new long[length];
        short[] k = new short[length];
        int[] c = new int[length];
        for (int j = 0; j < size; j++) {
            int at = slot(j);
            t[j] = times[at];
            k[j] = kinds[at];
            c[j] = codes[at];
        }
        times = t;
        kinds = k;
        codes = c;
        head = 0;
    }

    private int intern(String kind) {
        int free = -1;
        for (int k = 0; k < kindNames.length; k++) {
            if (kindNames[k] == null) {
                if (free < 0) {
                    free = k;
                }
            } else if (kindNames[k].equals(kind)) {
                kindRefs[k]++;
                return k;
            }
        }
        if (free < 0) {
            free = kindNames.length;
            int length = Math.min(capacity, Math.max(4, kindNames.length * 2));
            kindNames = Arrays.copyOf(kindNames, length);
            kindRefs = Arrays.copyOf(kindRefs, length);
        }
        kindNames[free] = kind;
        kindRefs[free] = 1;
        return free;
    }

    private int kindIndex(String kind) {
        for (int k = 0; k < kindNames.length; k++) {
            if (kind.equals(kindNames[k])) {
                return k;
            }
        }
        return -1;
    }

    private static boolean latin1(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) > 0xFF) {
                return false;
            }
        }
        return true;
    }
}
