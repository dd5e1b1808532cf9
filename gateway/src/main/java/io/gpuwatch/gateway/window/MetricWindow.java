package io.gpuwatch.gateway.window;

import io.gpuwatch.rules.scope.Series;
import java.util.Arrays;

/**
 * The sliding window over one series of one card: float32 slots at the sample resolution for the recent part
 * (fine tier) and buckets of count, sum, min, max and counter increase for the older part (coarse tier), all in
 * primitive arrays allocated once.
 *
 * <p>A sample is placed at the start of its slot, and a window function covers the samples placed in
 * {@code (now - windowMs, now]}, {@code now} being the time last given to {@link #at} (until then, the newest
 * sample). Over the fine tier results are exact up to float32 storage. A coarse bucket that straddles the far
 * edge of a window is included whole: every result is then the exact result over a window whose far edge lies
 * earlier by less than one bucket. Slope and predict treat the samples of a bucket as lying at the centre of the
 * bucket (of its rolled part for the youngest one), which is exact for data linear in time and no gaps.
 *
 * <p>A window built to keep transitions also keeps each bucket's first and last sample and how often a sample
 * dropped below, or differed from, the one before it inside the bucket, so {@link #delta}, {@link #resets} and
 * {@link #changes} stay exact (over that extended window) across both tiers. Without them those three answer
 * NaN once a window reaches the coarse tier. {@link #quantile} is exact over the fine tier; a bucket stands in
 * for its samples with its minimum, its maximum and its mean for the rest, which is exact for buckets of up to
 * two samples and for p = 0 and p = 1, and otherwise lies between the bucket's extremes.
 *
 * <p>count, sum, avg, min, max, slope and predict are kept incrementally for up to {@value #MAX_RUNNING} window
 * lengths (the first ones asked for, each at most the horizon): running sums that add the samples and buckets
 * entering the window and subtract those leaving it, and extremes that are rescanned only when the sample or
 * bucket holding them leaves. A query that moves the window forward costs what entered and left since the last
 * one, not the window's length. The result is the same set of samples as a rescan; sums differ from a rescan's
 * only by the order of float additions, and are rebuilt once a window length has been subtracted so that the
 * rounding does not drift. Other window lengths, and a window moved backwards, are rescanned.
 *
 * <p>Not thread-safe: one owner appends and evaluates.
 */
public final class MetricWindow implements Series, RankedSamples {
    /** Prometheus' lookback delta: how old the newest sample may be for {@link #last()}, and the longest gap a
     * counter delta is taken across. */
    public static final long LOOKBACK_MS = Series.LOOKBACK_MS;

    private static final long NONE = Long.MIN_VALUE;
    // Caps a window so that now - window cannot overflow; 2^50 ms is some 35,000 years.
    private static final long MAX_WINDOW_MS = 1L << 50;
    private static final byte[] NO_COUNTS = new byte[0];
    /** Window lengths per series kept incrementally; rule packs ask a series for one or two. */
    static final int MAX_RUNNING = 4;
    private static final Running[] NO_RUNNING = new Running[0];

    // Layout of one bucket in the values array, after the fine slots.
    private static final int SUM = 0;
    private static final int MIN = 1;
    private static final int MAX = 2;
    private static final int INC = 3;
    private static final int FIELDS = 4;
    // Only in windows that keep transitions.
    private static final int FIRST = 4;
    private static final int LAST = 5;
    private static final int RESETS = 6;
    private static final int CHANGES = 7;
    private static final int TRANSITION_FIELDS = 8;

    private static final int COUNT = 0;
    private static final int TOTAL = 1;
    private static final int LOWEST = 2;
    private static final int HIGHEST = 3;

    private static final int DELTA = 0;
    private static final int DROPS = 1;
    private static final int DIFFERS = 2;

    // JVM layout estimates, compressed references: object header 12 bytes, array header 16, 8-byte alignment.
    static final int OBJECT_HEADER = 12;
    static final int ARRAY_HEADER = 16;
    // 4 references, 11 longs, 6 ints, 2 floats, 3 booleans.
    private static final long SHALLOW_BYTES = align(OBJECT_HEADER + 4 * 4 + 11 * 8 + 6 * 4 + 2 * 4 + 3);

    private final WindowShape shape;
    private final long res;
    /** The shape's horizon, kept here: every query checks it, and the shape is another cache line. */
    private final long horizonMs;
    private final long lookbackSlots;
    /** Whether the lookback is a whole number of slots, so {@link #last} finds its far edge without a division. */
    private final boolean lookbackWhole;
    private final int fine;
    private final int bucketSlots;
    private final int buckets;
    /** Floats per bucket: {@link #FIELDS}, or {@link #TRANSITION_FIELDS} when transitions are kept. */
    private final int fields;
    /** Fine slots (NaN = no sample), then {@link #fields} floats per bucket. */
    private final float[] values;
    /** Samples per bucket as an unsigned byte; 0 = empty. */
    private final byte[] counts;

    private long newestSlot = NONE;
    private long newestBucket = NONE;
    /** Where {@link #newestSlot} and {@link #newestBucket} sit in their rings, so that neighbours need no division. */
    private int newestIndex;
    private int newestBucketIndex;
    /** The newest sample that has left the fine tier: predecessor of the oldest fine sample. */
    private long rolledSlot = NONE;
    private float rolledValue = Float.NaN;
    private long nowMs = NONE;
    /** At or after the newest fine slot whose sample rose or fell from its predecessor (an upper bound). */
    private long lastMoveSlot = NONE;
    /** At or after the newest bucket with a non-zero increase. */
    private long lastMoveBucket = NONE;
    private long ignoredLate;
    /** The value of the newest slot as last appended; NaN before the first. */
    private float newestValue = Float.NaN;
    /** Set once a negative value was stored: every later reading counts as a move. */
    private boolean negative;
    private final boolean incremental;
    private Running[] running = NO_RUNNING;
    /** Counts appends, so that a running aggregate asked again before anything changed answers at once. */
    private long appends;

    /** An empty window of the given shape that does not keep transitions. */
    public MetricWindow(WindowShape shape) {
        this(shape, false);
    }

    /** An empty window of the given shape; {@code transitions} makes delta, resets and changes exact in both tiers. */
    public MetricWindow(WindowShape shape, boolean transitions) {
        this(shape, transitions, true);
    }

    /**
     * An empty window; {@code incremental = false} rescans the window on every query, the reference the running
     * aggregates are tested and benchmarked against.
     */
    public MetricWindow(WindowShape shape, boolean transitions, boolean incremental) {
        this.incremental = incremental;
        this.shape = shape;
        this.res = shape.resolutionMs();
        this.horizonMs = shape.horizonMs();
        this.lookbackSlots = LOOKBACK_MS / res;
        this.lookbackWhole = LOOKBACK_MS % res == 0;
        this.fine = shape.fineSlots();
        this.buckets = shape.coarseBuckets();
        this.bucketSlots = buckets == 0 ? 0 : shape.slotsPerBucket();
        this.fields = transitions ? TRANSITION_FIELDS : FIELDS;
        this.values = new float[fine + buckets * fields];
        this.counts = buckets == 0 ? NO_COUNTS : new byte[buckets];
        Arrays.fill(values, 0, fine, Float.NaN);
    }

    /** The shape this window was sized with. */
    public WindowShape shape() {
        return shape;
    }

    /** True when the window keeps transitions beyond its fine tier. */
    public boolean keepsTransitions() {
        return fields == TRANSITION_FIELDS;
    }

    /**
     * Records a reading. NaN or a value outside float range means no reading and stores nothing; a second
     * reading in the same slot replaces the first; a reading older than the fine tier is ignored and counted.
     *
     * <p>Returns false when the reading left every window function where time alone would take it: nothing
     * stored, or a newest sample equal to the one before it (in the next slot, where there is a coarse tier), which
     * adds no rise and no new extreme to a window that still holds that one (see {@link #freshAt}). True for any
     * other reading, and for every reading once the series has held a negative value, whose rise is negative and
     * lifts an increase when it leaves the window.
     */
    public boolean append(long tsMs, double value) {
        appends++;
        float v = (float) value;
        if (!Float.isFinite(v)) {
            return false;
        }
        long slot = slotOf(tsMs);
        if (fine == 1 && buckets == 0 && running.length == 0) {
            return appendLatest(slot, v);
        }
        boolean moved;
        // a slot past the newest lies past every running aggregate's range too: they need not hear of it
        boolean ahead = true;
        if (newestSlot == NONE) {
            newestSlot = slot;
            newestIndex = (int) Math.floorMod(slot, (long) fine);
            moved = true;
        } else if (slot > newestSlot) {
            long prevSlot = newestSlot;
            float prev = values[newestIndex];
            advanceTo(slot);
            if (delta(prevSlot, prev, slot, v) != 0) {
                lastMoveSlot = slot;
            }
            // after a gap, slots that had left a window by the fine tier's exact edge can roll into a bucket that
            // straddles that edge and count again: a move, though the value repeats
            moved = buckets != 0 && slot - prevSlot > 1
                    || Float.floatToRawIntBits(v) != Float.floatToRawIntBits(newestValue);
        } else if (slot <= newestSlot - fine) {
            ignoredLate++;
            return false;
        } else {
            // a rewritten or late slot changes its own rise and its successor's: assume a move up to the newest
            lastMoveSlot = Math.max(lastMoveSlot, newestSlot);
            moved = true;
            ahead = false;
        }
        int i = fineIndex(slot);
        if (!ahead) {
            for (Running r : running) {
                r.replaced(slot, values[i], v);
            }
        }
        values[i] = v;
        if (slot == newestSlot) {
            newestValue = v;
        }
        negative |= v < 0;
        return moved || negative;
    }

    /**
     * {@link #append} for a window of one slot with no coarse tier and no running aggregate, the shape of a series
     * rules read only the latest sample of (a third of a card's appends): the same state, without the ring's loops.
     */
    private boolean appendLatest(long slot, float v) {
        boolean moved;
        if (newestSlot == NONE) {
            newestSlot = slot;
            newestIndex = 0;
            moved = true;
        } else if (slot > newestSlot) {
            long prevSlot = newestSlot;
            float prev = values[0];
            if (!Float.isNaN(prev)) {
                // what roll keeps without a coarse tier: the newest sample to leave the slot
                rolledSlot = prevSlot;
                rolledValue = prev;
            }
            newestSlot = slot;
            if (delta(prevSlot, prev, slot, v) != 0) {
                lastMoveSlot = slot;
            }
            moved = Float.floatToRawIntBits(v) != Float.floatToRawIntBits(newestValue);
        } else if (slot < newestSlot) {
            ignoredLate++;
            return false;
        } else {
            lastMoveSlot = Math.max(lastMoveSlot, newestSlot);
            moved = true;
        }
        values[0] = v;
        if (slot == newestSlot) {
            newestValue = v;
        }
        negative |= v < 0;
        return moved || negative;
    }

    /**
     * A copy of what this window holds, for a checkpoint: the slots and buckets as they are, and where the tiers
     * stand. The running aggregates are not part of it; they are rebuilt from the samples on the first query.
     */
    public record Image(float[] values, byte[] counts, long newestSlot, long newestBucket, long rolledSlot,
                        float rolledValue, long lastMoveSlot, long lastMoveBucket) {
    }

    /** What the window holds now; the arrays are copies. */
    public Image image() {
        return new Image(values.clone(), counts.clone(), newestSlot, newestBucket, rolledSlot, rolledValue,
                lastMoveSlot, lastMoveBucket);
    }

    /**
     * Takes over what {@code image} holds, as if this window had been fed the same samples; false, changing
     * nothing, when the image's arrays do not fit this window's shape (a window of another length or kind).
     */
    public boolean restore(Image image) {
        if (image.values().length != values.length || image.counts().length != counts.length) {
            return false;
        }
        System.arraycopy(image.values(), 0, values, 0, values.length);
        System.arraycopy(image.counts(), 0, counts, 0, counts.length);
        newestSlot = image.newestSlot();
        newestBucket = image.newestBucket();
        newestIndex = newestSlot == NONE ? 0 : (int) Math.floorMod(newestSlot, (long) fine);
        newestBucketIndex = newestBucket == NONE ? 0 : (int) Math.floorMod(newestBucket, (long) buckets);
        rolledSlot = image.rolledSlot();
        rolledValue = image.rolledValue();
        lastMoveSlot = image.lastMoveSlot();
        lastMoveBucket = image.lastMoveBucket();
        running = NO_RUNNING;
        // the next reading counts as a move whatever it is; a negative value held keeps every reading one
        newestValue = Float.NaN;
        negative = false;
        for (float v : values) {
            negative |= v < 0;
        }
        return true;
    }

    /** Sets the evaluation time the window functions end at; returns this window. */
    public MetricWindow at(long nowMs) {
        this.nowMs = nowMs;
        return this;
    }

    /**
     * True when the newest sample lies less than {@code windowMs} before {@code nowMs}, so inside every window of
     * that length or longer ending then, or when there is none: a reading equal to it then adds nothing new to
     * them, which {@link #append}'s answer relies on. False once the series has held a negative value: a negative
     * rise that leaves a window lifts its increase with no reading at all, so rules on it must not sleep.
     */
    public boolean freshAt(long nowMs, long windowMs) {
        return !negative && (newestSlot == NONE || nowMs - newestSlot * res < windowMs);
    }

    /** Readings ignored because they arrived after their slot had left the fine tier. */
    public long ignoredLate() {
        return ignoredLate;
    }

    /**
     * Heap held by this window's samples: the object and its arrays, by the usual 64-bit JVM layout. Fixed by the
     * shape; the running aggregates, which grow with the window lengths asked for, are {@link #runningBytes}.
     */
    public long retainedBytes() {
        long bytes = SHALLOW_BYTES + arrayBytes(values.length, Float.BYTES);
        return counts == NO_COUNTS ? bytes : bytes + arrayBytes(counts.length, 1);
    }

    /** Heap held by the running aggregates of the window lengths asked for so far (at most {@value #MAX_RUNNING}). */
    public long runningBytes() {
        return running == NO_RUNNING ? 0 : arrayBytes(running.length, 4) + running.length * Running.BYTES;
    }

    /** The newest sample at or before now, if it is at most {@link #LOOKBACK_MS} old; NaN otherwise. */
    @Override
    public double last() {
        if (newestSlot == NONE) {
            return Double.NaN;
        }
        long now = now();
        long hi = slotOf(now);
        long lo = lookbackWhole ? hi - lookbackSlots + 1 : Math.floorDiv(now - LOOKBACK_MS, res) + 1;
        long fineFirst = newestSlot - fine + 1;
        long from = Math.min(hi, newestSlot);
        long to = Math.max(lo, fineFirst);
        if (from >= to) {
            int i = fineIndex(from);
            for (long s = from; s >= to; s--) {
                if (!Float.isNaN(values[i])) {
                    return values[i];
                }
                i = i == 0 ? fine - 1 : i - 1;
            }
        }
        // Only the newest rolled sample is known individually; when now lies before it, last is unknown.
        if (rolledSlot != NONE && rolledSlot <= hi && rolledSlot >= lo) {
            return rolledValue;
        }
        return Double.NaN;
    }

    @Override
    public long sampleKeptUntil(long windowMs, double bound, boolean above, boolean inclusive) {
        if (newestSlot == NONE || windowMs <= 0 || windowMs > horizonMs) {
            return Long.MIN_VALUE;
        }
        // the extreme, a running aggregate, says at once whether any sample is on that side
        if (!beyond(above ? max(windowMs) : min(windowMs), bound, above, inclusive)) {
            return Long.MIN_VALUE;
        }
        long now = now();
        long hi = slotOf(now);
        long lo = firstSlot(now, windowMs);
        long fineFirst = newestSlot - fine + 1;
        for (long s = Math.min(hi, newestSlot), to = Math.max(lo, fineFirst); s >= to; s--) {
            float v = values[fineIndex(s)];
            if (!Float.isNaN(v) && beyond(v, bound, above, inclusive)) {
                // in the window while its far edge lies before the sample
                return s * res + windowMs;
            }
        }
        if (reachesCoarse(lo, fineFirst)) {
            for (long q = lastBucket(hi, fineFirst), to = firstBucket(lo); q >= to; q--) {
                int b = bucketIndex(q);
                if ((counts[b] & 0xFF) != 0 && beyond(values[fine + b * fields + (above ? MAX : MIN)], bound, above,
                        inclusive)) {
                    // the sample may be the bucket's first; a bucket the far edge straddles stays whole, and longer
                    return q * bucketSlots * res + windowMs;
                }
            }
        }
        return Long.MIN_VALUE;
    }

    private static boolean beyond(double v, double bound, boolean above, boolean inclusive) {
        return above ? (inclusive ? v >= bound : v > bound) : (inclusive ? v <= bound : v < bound);
    }

    /**
     * Exact for a window of whole slots in the fine tier only, the fractions rules read (a minute or two): a slot
     * holds one sample, so k slots on at most k samples have arrived and k have left, besides a sample still to
     * come in each slot still due ({@link #dueSlots}); none at all once the series has been silent for longer than
     * it can resume unforeseen. The counts of 1/0 samples are exact sums.
     */
    @Override
    public long shareBelowUntil(long windowMs, double share, boolean inclusive) {
        if (newestSlot == NONE || buckets != 0 || windowMs <= 0 || windowMs > horizonMs || windowMs % res != 0
                || !(share >= 0 && share < 1)) {
            return Long.MIN_VALUE;
        }
        double n = count(windowMs);
        // an empty window sums to NaN
        double ones = n > 0 ? sum(windowMs) : 0;
        if (n > 0 && (inclusive ? ones / n >= share : ones / n > share)) {
            return Long.MIN_VALUE;
        }
        long now = now();
        long hi = slotOf(now);
        long due = dueSlots(hi, now);
        if (due < 0 && ones == 0) {
            // nothing can come, and zeros that leave leave no one
            return Long.MAX_VALUE;
        }
        long pending = Math.max(0, due);
        // k slots on, the share is at most (ones + k + pending) / (n + pending) while n - k >= ones, else 1
        double need = share * (n + pending) - ones - pending;
        long k = inclusive ? (long) Math.ceil(need) : (long) Math.floor(need) + 1;
        // samples still due in the current slot may lift it at once: k = 0 is no sleep at all
        k = Math.max(0, Math.min(k, (long) (n - ones) + 1));
        return (hi + k) * res;
    }

    /**
     * Mirrored so that the mean must stay at or above the bound: k slots on, at most k + 1 samples have left (each
     * at most the window's max), and at most k arrived (each at least {@code limit}), besides one in each slot still
     * due ({@link #dueSlots}; none once the series has been silent too long); where the window reaches the coarse
     * tier, a bucket's worth more of each (a bucket the far edge straddles leaves whole, and one that the fine
     * tier's edge rolls into after a gap comes back whole). The mean stays put while what those can take off is
     * less than its surplus over the bound.
     */
    @Override
    public long meanKeptUntil(long windowMs, double bound, double limit, boolean above) {
        if (newestSlot == NONE || windowMs <= 0 || windowMs > horizonMs || !Double.isFinite(limit)
                || !Double.isFinite(bound)) {
            return Long.MIN_VALUE;
        }
        long now = now();
        long hi = slotOf(now);
        if (newestSlot > hi + 1) {
            return Long.MIN_VALUE;
        }
        long due = dueSlots(hi, now);
        double n = count(windowMs);
        if (!(n > 0)) {
            // no mean, and none while nothing can come
            return due < 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        double sign = above ? 1 : -1;
        double sum = sign * sum(windowMs);
        double extreme = sign * (above ? max(windowMs) : min(windowMs));
        double b = sign * bound;
        // the rule's mean is this sum over this count, rounded: a surplus within rounding of zero tells nothing,
        // and one beyond it keeps the mean off the bound itself, so < and <= sleep alike
        double surplus = sum - b * n - 1e-9 * (Math.abs(sum) + Math.abs(b) * n);
        if (!(surplus > 0)) {
            return Long.MIN_VALUE;
        }
        double leave = extreme - b;
        double arrive = due < 0 ? 0 : Math.max(0, b - sign * limit);
        long bucket = reachesBuckets(windowMs) ? bucketSlots : 0;
        double k = Math.floor((surplus - (1 + bucket) * leave - (Math.max(0, due) + bucket) * arrive)
                / (leave + arrive));
        if (!(k >= 0)) {
            return Long.MIN_VALUE;
        }
        return (hi + 1 + (long) Math.min(k, horizonMs / res)) * res;
    }

    /**
     * How many slots up to {@code hi} may still take a sample that comes on time ({@link Series#ON_TIME_MS}) and
     * follows the newest within {@link Series#RESUME_AFTER_MS}; -1 when none can come at all any more, the series
     * having been silent for longer: any sample it sends now is unforeseen and wakes the rules instead.
     */
    private long dueSlots(long hi, long now) {
        long first = Math.max(newestSlot + 1, Math.floorDiv(now - Series.ON_TIME_MS, res));
        if (resumes(first * res)) {
            return -1;
        }
        return Math.max(0, hi - first + 1);
    }

    /** True when a sample read at {@code tsMs} would resume the series after {@link Series#RESUME_AFTER_MS}. */
    public boolean resumes(long tsMs) {
        return newestSlot != NONE && tsMs - newestSlot * res > Series.RESUME_AFTER_MS;
    }

    /**
     * Whether a window of this length can take in a coarse bucket: it reaches past the fine tier, or nearly, so that
     * after a gap the tier's edge can overtake its far edge. A shorter one stays in the fine tier as long as no
     * sample lies more than a slot ahead of the time it ends at, which the gateway's clamp of producer clocks to
     * its own keeps true.
     */
    private boolean reachesBuckets(long windowMs) {
        return buckets != 0 && (windowMs + res - 1) / res + 2 >= fine;
    }

    @Override
    public double avg(long windowMs) {
        Running r = running(windowMs);
        if (r != null) {
            return r.count() == 0 ? Double.NaN : r.sum() / r.count();
        }
        double n = fold(windowMs, COUNT);
        return n == 0 ? Double.NaN : fold(windowMs, TOTAL) / n;
    }

    @Override
    public double min(long windowMs) {
        Running r = running(windowMs);
        return r != null ? r.min() : fold(windowMs, LOWEST);
    }

    @Override
    public double max(long windowMs) {
        Running r = running(windowMs);
        return r != null ? r.max() : fold(windowMs, HIGHEST);
    }

    @Override
    public double sum(long windowMs) {
        Running r = running(windowMs);
        if (r != null) {
            return r.count() == 0 ? Double.NaN : r.sum();
        }
        return fold(windowMs, TOTAL);
    }

    @Override
    public double count(long windowMs) {
        Running r = running(windowMs);
        return r != null ? r.count() : fold(windowMs, COUNT);
    }

    /**
     * The sum over the window's samples of each one's rise from the sample before it (which may lie before the
     * window), a drop counting as a reset to zero. A sample with no predecessor within {@link #LOOKBACK_MS}
     * adds nothing. NaN when the window has no sample.
     */
    @Override
    public double increase(long windowMs) {
        if (newestSlot == NONE || windowMs <= 0) {
            return Double.NaN;
        }
        long now = now();
        long lo = firstSlot(now, windowMs);
        long hi = slotOf(now);
        long fineFirst = newestSlot - fine + 1;
        boolean coarse = reachesCoarse(lo, fineFirst);
        // A counter that has not moved inside the window (most error counters, most of the time) rose by exactly
        // 0, and its newest sample is in the window: the scan below would add zeros.
        if (incremental && hi >= newestSlot && newestSlot >= lo && lastMoveSlot < Math.max(lo, fineFirst)
                && (!coarse || lastMoveBucket < firstBucket(lo))) {
            return 0;
        }
        long n = 0;
        double inc = 0;
        if (coarse) {
            long last = lastBucket(hi, fineFirst);
            for (long q = firstBucket(lo); q <= last; q++) {
                int b = bucketIndex(q);
                int c = counts[b] & 0xFF;
                if (c != 0) {
                    n += c;
                    inc += values[fine + b * fields + INC];
                }
            }
        }
        // Walk the whole fine tier so that the first sample in the window has its predecessor.
        long prevSlot = rolledSlot;
        float prev = rolledValue;
        long to = Math.min(hi, newestSlot);
        int i = fineIndex(fineFirst);
        for (long s = fineFirst; s <= to; s++) {
            float v = values[i];
            if (!Float.isNaN(v)) {
                if (s >= lo) {
                    n++;
                    inc += delta(prevSlot, prev, s, v);
                }
                prevSlot = s;
                prev = v;
            }
            if (++i == fine) {
                i = 0;
            }
        }
        return n == 0 ? Double.NaN : inc;
    }

    /** {@link #increase} divided by the window in seconds. */
    @Override
    public double rate(long windowMs) {
        return increase(windowMs) / (windowMs / 1000.0);
    }

    /** Least-squares slope per second; NaN with fewer than two distinct sample times. */
    @Override
    public double slope(long windowMs) {
        return fit(windowMs, Double.NaN);
    }

    /** The least-squares line read {@code horizonMs} after now; NaN with fewer than two distinct sample times. */
    @Override
    public double predict(long windowMs, long horizonMs) {
        return fit(windowMs, horizonMs / 1000.0);
    }

    /** The slope of the least-squares line, or with {@code atSeconds} given its value that long after now. */
    private double fit(long windowMs, double atSeconds) {
        if (newestSlot == NONE || windowMs <= 0) {
            return Double.NaN;
        }
        long now = now();
        Running r = running(windowMs);
        if (r != null) {
            return r.fit(now, atSeconds);
        }
        long lo = firstSlot(now, windowMs);
        long hi = slotOf(now);
        long fineFirst = newestSlot - fine + 1;
        boolean coarse = reachesCoarse(lo, fineFirst);
        long qFirst = coarse ? firstBucket(lo) : 0;
        long qLast = coarse ? lastBucket(hi, fineFirst) : -1;
        long from = Math.max(lo, fineFirst);
        long to = Math.min(hi, newestSlot);

        // Two passes (means, then centred sums) keep precision for large, nearly constant values.
        double n = 0;
        double sx = 0;
        double sy = 0;
        // a bucket is one sample time: a window of one bucket has no slope, whatever the rounding of its centre
        int times = 0;
        for (long q = qFirst; q <= qLast; q++) {
            int b = bucketIndex(q);
            int c = counts[b] & 0xFF;
            if (c != 0) {
                times++;
                n += c;
                sx += c * bucketCentre(q, fineFirst, now);
                sy += values[fine + b * fields + SUM];
            }
        }
        int i = fineIndex(from);
        for (long s = from; s <= to; s++) {
            float v = values[i];
            if (!Float.isNaN(v)) {
                times++;
                n++;
                sx += seconds(s, now);
                sy += v;
            }
            if (++i == fine) {
                i = 0;
            }
        }
        if (times < 2) {
            return Double.NaN;
        }
        double mx = sx / n;
        double my = sy / n;
        double sxx = 0;
        double sxy = 0;
        for (long q = qFirst; q <= qLast; q++) {
            int b = bucketIndex(q);
            int c = counts[b] & 0xFF;
            if (c != 0) {
                double dx = bucketCentre(q, fineFirst, now) - mx;
                sxx += c * dx * dx;
                sxy += dx * (values[fine + b * fields + SUM] - c * my);
            }
        }
        i = fineIndex(from);
        for (long s = from; s <= to; s++) {
            float v = values[i];
            if (!Float.isNaN(v)) {
                double dx = seconds(s, now) - mx;
                sxx += dx * dx;
                sxy += dx * (v - my);
            }
            if (++i == fine) {
                i = 0;
            }
        }
        if (sxx == 0) {
            return Double.NaN;
        }
        double slope = sxy / sxx;
        return Double.isNaN(atSeconds) ? slope : my + slope * (atSeconds - mx);
    }

    /** {@inheritDoc} Over the coarse tier an approximation; see the class comment. */
    @Override
    public double quantile(double p, long windowMs) {
        return RankedSamples.quantile(this, p, windowMs);
    }

    /**
     * Samples at most {@code value}; a bucket of three or more samples counts as its minimum, its maximum and
     * the rest at its mean.
     */
    @Override
    public double rank(long windowMs, float value) {
        if (newestSlot == NONE || windowMs <= 0) {
            return 0;
        }
        long now = now();
        long lo = firstSlot(now, windowMs);
        long hi = slotOf(now);
        long fineFirst = newestSlot - fine + 1;
        long n = 0;
        if (reachesCoarse(lo, fineFirst)) {
            long last = lastBucket(hi, fineFirst);
            for (long q = firstBucket(lo); q <= last; q++) {
                int b = bucketIndex(q);
                int c = counts[b] & 0xFF;
                if (c == 0) {
                    continue;
                }
                int base = fine + b * fields;
                float min = values[base + MIN];
                float max = values[base + MAX];
                if (min <= value) {
                    n++;
                }
                if (c >= 2 && max <= value) {
                    n++;
                }
                if (c >= 3 && Math.min(max, Math.max(min, values[base + SUM] / c)) <= value) {
                    n += c - 2;
                }
            }
        }
        long from = Math.max(lo, fineFirst);
        long to = Math.min(hi, newestSlot);
        int i = fineIndex(from);
        for (long s = from; s <= to; s++) {
            if (values[i] <= value) {
                n++;
            }
            if (++i == fine) {
                i = 0;
            }
        }
        return n;
    }

    /** Newest minus oldest sample in the window, not extrapolated; NaN with fewer than two samples. */
    @Override
    public double delta(long windowMs) {
        return transitions(windowMs, DELTA);
    }

    /** Drops from one sample to the next, both in the window; NaN without samples. */
    @Override
    public double resets(long windowMs) {
        return transitions(windowMs, DROPS);
    }

    /** Changes from one sample to the next, both in the window; NaN without samples. */
    @Override
    public double changes(long windowMs) {
        return transitions(windowMs, DIFFERS);
    }

    /** Walks the window's samples in order, pairing each with the one before it inside the window. */
    private double transitions(long windowMs, int op) {
        if (newestSlot == NONE || windowMs <= 0) {
            return Double.NaN;
        }
        long now = now();
        long lo = firstSlot(now, windowMs);
        long hi = slotOf(now);
        long fineFirst = newestSlot - fine + 1;
        long n = 0;
        double first = Double.NaN;
        float prev = Float.NaN;
        long drops = 0;
        long differs = 0;
        if (reachesCoarse(lo, fineFirst)) {
            long last = lastBucket(hi, fineFirst);
            for (long q = firstBucket(lo); q <= last; q++) {
                int b = bucketIndex(q);
                int c = counts[b] & 0xFF;
                if (c == 0) {
                    continue;
                }
                if (fields != TRANSITION_FIELDS) {
                    return Double.NaN;
                }
                int base = fine + b * fields;
                float head = values[base + FIRST];
                if (n == 0) {
                    first = head;
                } else {
                    drops += head < prev ? 1 : 0;
                    differs += head != prev ? 1 : 0;
                }
                n += c;
                drops += (long) values[base + RESETS];
                differs += (long) values[base + CHANGES];
                prev = values[base + LAST];
            }
        }
        long from = Math.max(lo, fineFirst);
        long to = Math.min(hi, newestSlot);
        int i = fineIndex(from);
        for (long s = from; s <= to; s++) {
            float v = values[i];
            if (!Float.isNaN(v)) {
                if (n == 0) {
                    first = v;
                } else {
                    drops += v < prev ? 1 : 0;
                    differs += v != prev ? 1 : 0;
                }
                n++;
                prev = v;
            }
            if (++i == fine) {
                i = 0;
            }
        }
        switch (op) {
            case DELTA:
                return n < 2 ? Double.NaN : prev - first;
            case DROPS:
                return n == 0 ? Double.NaN : drops;
            default:
                return n == 0 ? Double.NaN : differs;
        }
    }

    private double fold(long windowMs, int op) {
        if (newestSlot == NONE || windowMs <= 0) {
            return op == COUNT ? 0 : Double.NaN;
        }
        long now = now();
        long lo = firstSlot(now, windowMs);
        long hi = slotOf(now);
        long fineFirst = newestSlot - fine + 1;
        long n = 0;
        double acc = op == LOWEST ? Double.POSITIVE_INFINITY : op == HIGHEST ? Double.NEGATIVE_INFINITY : 0;
        if (reachesCoarse(lo, fineFirst)) {
            long last = lastBucket(hi, fineFirst);
            for (long q = firstBucket(lo); q <= last; q++) {
                int b = bucketIndex(q);
                int c = counts[b] & 0xFF;
                if (c != 0) {
                    n += c;
                    int base = fine + b * fields;
                    acc = switch (op) {
                        case TOTAL -> acc + values[base + SUM];
                        case LOWEST -> Math.min(acc, values[base + MIN]);
                        case HIGHEST -> Math.max(acc, values[base + MAX]);
                        default -> acc;
                    };
                }
            }
        }
        long from = Math.max(lo, fineFirst);
        long to = Math.min(hi, newestSlot);
        int i = fineIndex(from);
        for (long s = from; s <= to; s++) {
            float v = values[i];
            if (!Float.isNaN(v)) {
                n++;
                acc = switch (op) {
                    case TOTAL -> acc + v;
                    case LOWEST -> Math.min(acc, v);
                    case HIGHEST -> Math.max(acc, v);
                    default -> acc;
                };
            }
            if (++i == fine) {
                i = 0;
            }
        }
        if (op == COUNT) {
            return n;
        }
        return n == 0 ? Double.NaN : acc;
    }

    /** Moves the fine tier forward, rolling the slots that leave it into the coarse tier. */
    private void advanceTo(long slot) {
        long last = Math.min(newestSlot, slot - fine);
        long first = newestSlot - fine + 1;
        if (first <= last) {
            int i = fineIndex(first);
            for (long s = first; s <= last; s++) {
                float v = values[i];
                if (!Float.isNaN(v)) {
                    for (Running r : running) {
                        r.replaced(s, v, Float.NaN);
                    }
                    roll(s, v);
                    values[i] = Float.NaN;
                }
                if (++i == fine) {
                    i = 0;
                }
            }
        }
        long step = slot - newestSlot;
        if (step < fine) {
            newestIndex += (int) step;
            if (newestIndex >= fine) {
                newestIndex -= fine;
            }
        } else {
            newestIndex = (int) Math.floorMod(slot, (long) fine);
        }
        newestSlot = slot;
        for (Running r : running) {
            r.fineLeftBelow(slot - fine + 1);
        }
    }

    private void roll(long slot, float v) {
        double d = delta(rolledSlot, rolledValue, slot, v);
        rolledSlot = slot;
        rolledValue = v;
        if (buckets == 0) {
            return;
        }
        // Slots leave the fine tier in order, so buckets only ever move forward.
        long q = bucketOf(slot);
        if (newestBucket == NONE || q > newestBucket) {
            long clearFrom = newestBucket == NONE ? q : Math.max(newestBucket + 1, q - buckets + 1);
            for (long b = clearFrom; b <= q; b++) {
                counts[(int) Math.floorMod(b, (long) buckets)] = 0;
            }
            newestBucket = q;
            newestBucketIndex = (int) Math.floorMod(q, (long) buckets);
        }
        int b = bucketIndex(q);
        int base = fine + b * fields;
        int c = counts[b] & 0xFF;
        if (d != 0) {
            lastMoveBucket = q;
        }
        if (c == 0) {
            values[base + SUM] = v;
            values[base + MIN] = v;
            values[base + MAX] = v;
            values[base + INC] = (float) d;
            if (fields == TRANSITION_FIELDS) {
                values[base + FIRST] = v;
                values[base + LAST] = v;
                values[base + RESETS] = 0;
                values[base + CHANGES] = 0;
            }
        } else {
            values[base + SUM] += v;
            values[base + MIN] = Math.min(values[base + MIN], v);
            values[base + MAX] = Math.max(values[base + MAX], v);
            values[base + INC] += (float) d;
            if (fields == TRANSITION_FIELDS) {
                // counts below 256 are exact in a float
                float before = values[base + LAST];
                values[base + RESETS] += v < before ? 1 : 0;
                values[base + CHANGES] += v != before ? 1 : 0;
                values[base + LAST] = v;
            }
        }
        counts[b] = (byte) (c + 1);
    }

    /** The running aggregates over {@code windowMs}, brought up to now; null where the window is rescanned. */
    private Running running(long windowMs) {
        if (!incremental || newestSlot == NONE || windowMs <= 0 || windowMs > horizonMs) {
            return null;
        }
        long now = now();
        for (Running r : running) {
            if (r.windowMs == windowMs) {
                // a sync repeated with the same end and samples changes nothing: rules read one series many times
                if (r.syncedAt != now || r.syncedAppends != appends) {
                    r.sync(now);
                }
                return r;
            }
        }
        if (running.length == MAX_RUNNING) {
            return null;
        }
        Running r = new Running(windowMs);
        running = Arrays.copyOf(running, running.length + 1);
        running[running.length - 1] = r;
        r.sync(now);
        return r;
    }

    /**
     * Running count, sum, least-squares sums and extremes over one window length: the fine slots
     * {@code [fa, fb]} and the complete buckets {@code [qa, qc]} it covered at its last sync, kept equal to their
     * samples as slots are replaced or roll out; the youngest bucket, still filling, is read at each sync.
     * Slope sums are taken in slots from {@code base} and values from {@code y0}, so they stay small.
     */
    private final class Running {
        // header, outer reference, 15 longs, 7 doubles, 7 floats, 1 int, 3 booleans
        static final long BYTES = align(OBJECT_HEADER + 4 + 15 * 8 + 7 * 8 + 7 * 4 + 4 + 3);

        final long windowMs;
        /** The window in slots when it is a whole number of them (nearly always), else 0. */
        private final long windowSlots;
        private boolean built;
        private long removed;
        private long fa;
        private long fb;
        private long qa;
        private long qc = -1;
        private long n;
        private long base;
        private double y0;
        private double sum;
        private double sx;
        private double sxx;
        private double sy;
        private double sxy;
        private float fineMax;
        private float fineMin;
        private long fineMaxSlot;
        private long fineMinSlot;
        private boolean fineDirty;
        private float coarseMax;
        private float coarseMin;
        private long coarseMaxBucket;
        private long coarseMinBucket;
        private boolean coarseDirty;
        private int liveCount;
        private float liveSum;
        private float liveMin;
        private float liveMax;
        private double liveX;

        /** The end and the append count of the last sync. */
        private long syncedAt = NONE;
        private long syncedAppends;

        Running(long windowMs) {
            this.windowMs = windowMs;
            this.windowSlots = windowMs % res == 0 ? windowMs / res : 0;
        }

        /** Moves the covered ranges to the window ending at {@code now}; rebuilds them when it cannot move forward. */
        void sync(long now) {
            syncedAt = now;
            syncedAppends = appends;
            long hi = slotOf(now);
            // a window of whole slots starts that many slots before now's: no division
            long lo = windowSlots > 0 ? hi - windowSlots + 1 : firstSlot(now, windowMs);
            long fineFirst = newestSlot - fine + 1;
            long fa2 = Math.max(lo, fineFirst);
            long fb2 = Math.min(hi, newestSlot);
            long qa2 = 0;
            long qb2 = -1;
            if (reachesCoarse(lo, fineFirst)) {
                qa2 = firstBucket(lo);
                qb2 = lastBucket(hi, fineFirst);
            }
            long qc2 = qb2 < qa2 ? qa2 - 1 : Math.min(qb2, newestBucket - 1);
            boolean covered = qa <= qc;
            boolean regular = built && removed <= fine + (long) buckets * bucketSlots && fa2 >= fa && fb2 >= fb
                    && (!covered || (qa2 <= qc2 && qa2 >= qa && qc2 >= qc && qa >= newestBucket - buckets + 1));
            if (regular) {
                for (long s = fa, to = Math.min(fa2 - 1, fb); s <= to; s++) {
                    float v = values[fineIndex(s)];
                    if (!Float.isNaN(v)) {
                        removeSample(s, v);
                    }
                }
                for (long s = Math.max(fb + 1, fa2); s <= fb2; s++) {
                    addSample(s);
                }
                if (covered) {
                    for (long q = qa, to = Math.min(qa2 - 1, qc); q <= to; q++) {
                        removeBucket(q);
                    }
                }
                for (long q = covered ? Math.max(qc + 1, qa2) : qa2; q <= qc2; q++) {
                    addBucket(q);
                }
            } else {
                rebuild(fa2, fb2, qa2, qc2);
            }
            fa = fa2;
            fb = fb2;
            qa = qa2;
            qc = qc2;
            if (fineDirty) {
                rescanFineExtremes();
            }
            if (coarseDirty) {
                rescanCoarseExtremes();
            }
            liveCount = 0;
            if (qb2 >= qa2 && qb2 > qc2) {
                int b = bucketIndex(qb2);
                liveCount = counts[b] & 0xFF;
                if (liveCount != 0) {
                    int at = fine + b * fields;
                    liveSum = values[at + SUM];
                    liveMin = values[at + MIN];
                    liveMax = values[at + MAX];
                    long first = qb2 * bucketSlots;
                    long last = Math.min(first + bucketSlots - 1, fineFirst - 1);
                    liveX = (first - base) + (last - first) * 0.5;
                }
            }
        }

        private void rebuild(long fa2, long fb2, long qa2, long qc2) {
            built = true;
            removed = 0;
            n = 0;
            clearSums();
            base = qa2 <= qc2 ? qa2 * bucketSlots : fa2;
            fineMax = Float.NEGATIVE_INFINITY;
            fineMin = Float.POSITIVE_INFINITY;
            fineMaxSlot = NONE;
            fineMinSlot = NONE;
            coarseMax = Float.NEGATIVE_INFINITY;
            coarseMin = Float.POSITIVE_INFINITY;
            coarseMaxBucket = NONE;
            coarseMinBucket = NONE;
            fineDirty = false;
            coarseDirty = false;
            for (long s = fa2; s <= fb2; s++) {
                addSample(s);
            }
            for (long q = qa2; q <= qc2; q++) {
                addBucket(q);
            }
        }

        /** A fine slot's value changes from {@code before} to {@code after} (NaN = none). */
        void replaced(long slot, float before, float after) {
            // no test of built: a running aggregate is synced as it is made, before a sample can be replaced
            if (slot < fa || slot > fb) {
                return;
            }
            if (!Float.isNaN(before)) {
                removeSample(slot, before);
            }
            if (!Float.isNaN(after)) {
                addSample(slot, after);
            }
        }

        /** Slots below {@code fineFirst} have rolled out of the fine tier (their samples already removed). */
        void fineLeftBelow(long fineFirst) {
            fa = Math.max(fa, fineFirst);
        }

        private void addSample(long slot) {
            float v = values[fineIndex(slot)];
            if (!Float.isNaN(v)) {
                addSample(slot, v);
            }
        }

        private void addSample(long slot, float v) {
            add(slot - base, 1, v);
            if (v >= fineMax) {
                fineMax = v;
                fineMaxSlot = slot;
            }
            if (v <= fineMin) {
                fineMin = v;
                fineMinSlot = slot;
            }
        }

        private void removeSample(long slot, float v) {
            remove(slot - base, 1, v);
            if (slot == fineMaxSlot || slot == fineMinSlot) {
                fineDirty = true;
            }
        }

        private void addBucket(long q) {
            int b = bucketIndex(q);
            int c = counts[b] & 0xFF;
            if (c == 0) {
                return;
            }
            int at = fine + b * fields;
            add(centre(q), c, values[at + SUM]);
            if (values[at + MAX] >= coarseMax) {
                coarseMax = values[at + MAX];
                coarseMaxBucket = q;
            }
            if (values[at + MIN] <= coarseMin) {
                coarseMin = values[at + MIN];
                coarseMinBucket = q;
            }
        }

        private void removeBucket(long q) {
            int b = bucketIndex(q);
            int c = counts[b] & 0xFF;
            if (c == 0) {
                return;
            }
            remove(centre(q), c, values[fine + b * fields + SUM]);
            if (q == coarseMaxBucket || q == coarseMinBucket) {
                coarseDirty = true;
            }
        }

        /** A complete bucket's centre in slots from base. */
        private double centre(long q) {
            return (q * bucketSlots - base) + (bucketSlots - 1) * 0.5;
        }

        private void add(double x, int c, double s) {
            if (n == 0) {
                // shift by the first value covered, so the sums stay small against nearly constant large values
                y0 = s / c;
            }
            double y = s - c * y0;
            n += c;
            sum += s;
            sx += c * x;
            sxx += c * x * x;
            sy += y;
            sxy += x * y;
        }

        private void remove(double x, int c, double s) {
            double y = s - c * y0;
            n -= c;
            sum -= s;
            sx -= c * x;
            sxx -= c * x * x;
            sy -= y;
            sxy -= x * y;
            removed++;
            if (n == 0) {
                clearSums();
            }
        }

        /** Nothing covered: the sums are exactly zero again, whatever rounding the removals left. */
        private void clearSums() {
            sum = 0;
            sx = 0;
            sxx = 0;
            sy = 0;
            sxy = 0;
        }

        private void rescanFineExtremes() {
            fineMax = Float.NEGATIVE_INFINITY;
            fineMin = Float.POSITIVE_INFINITY;
            fineMaxSlot = NONE;
            fineMinSlot = NONE;
            for (long s = fa; s <= fb; s++) {
                float v = values[fineIndex(s)];
                if (v >= fineMax) {
                    fineMax = v;
                    fineMaxSlot = s;
                }
                if (v <= fineMin) {
                    fineMin = v;
                    fineMinSlot = s;
                }
            }
            fineDirty = false;
        }

        private void rescanCoarseExtremes() {
            coarseMax = Float.NEGATIVE_INFINITY;
            coarseMin = Float.POSITIVE_INFINITY;
            coarseMaxBucket = NONE;
            coarseMinBucket = NONE;
            for (long q = qa; q <= qc; q++) {
                int b = bucketIndex(q);
                if (counts[b] == 0) {
                    continue;
                }
                int at = fine + b * fields;
                if (values[at + MAX] >= coarseMax) {
                    coarseMax = values[at + MAX];
                    coarseMaxBucket = q;
                }
                if (values[at + MIN] <= coarseMin) {
                    coarseMin = values[at + MIN];
                    coarseMinBucket = q;
                }
            }
            coarseDirty = false;
        }

        double count() {
            return n + liveCount;
        }

        double sum() {
            return liveCount == 0 ? sum : sum + liveSum;
        }

        double max() {
            if (count() == 0) {
                return Double.NaN;
            }
            float m = Math.max(fineMax, coarseMax);
            return liveCount == 0 ? m : Math.max(m, liveMax);
        }

        double min() {
            if (count() == 0) {
                return Double.NaN;
            }
            float m = Math.min(fineMin, coarseMin);
            return liveCount == 0 ? m : Math.min(m, liveMin);
        }

        /** As {@link MetricWindow#fit}, from the running sums. */
        double fit(long now, double atSeconds) {
            double count = count();
            if (count < 2) {
                return Double.NaN;
            }
            double ly = liveCount == 0 ? 0 : liveSum - liveCount * y0;
            double tx = sx + liveCount * liveX;
            double txx = sxx + liveCount * liveX * liveX;
            double ty = sy + ly;
            double txy = sxy + liveX * ly;
            double mx = tx / count;
            double vxx = txx - tx * mx;
            if (vxx <= 0) {
                return Double.NaN;
            }
            double slope = (txy - mx * ty) / vxx * 1000.0 / res;
            if (Double.isNaN(atSeconds)) {
                return slope;
            }
            double mxSeconds = ((base * res - now) + mx * res) / 1000.0;
            double my = ty / count + y0;
            return my + slope * (atSeconds - mxSeconds);
        }
    }

    private double delta(long prevSlot, float prev, long slot, float v) {
        if (prevSlot == NONE || slot - prevSlot > lookbackSlots) {
            return 0;
        }
        return v >= prev ? (double) v - prev : v;
    }

    private long now() {
        return nowMs != NONE ? nowMs : newestSlot * res;
    }

    private long firstSlot(long now, long windowMs) {
        return Math.floorDiv(now - Math.min(windowMs, MAX_WINDOW_MS), res) + 1;
    }

    private boolean reachesCoarse(long lo, long fineFirst) {
        return buckets > 0 && newestBucket != NONE && lo < fineFirst;
    }

    private long firstBucket(long lo) {
        long oldest = newestBucket - buckets + 1;
        // a far edge older than the coarse tier needs no division
        return lo < oldest * bucketSlots ? oldest : Math.max(Math.floorDiv(lo, bucketSlots), oldest);
    }

    private long lastBucket(long hi, long fineFirst) {
        return Math.min(bucketOf(Math.min(hi, fineFirst - 1)), newestBucket);
    }

    /** Time of the bucket's centre in seconds from now; the youngest bucket only covers its rolled slots. */
    private double bucketCentre(long q, long fineFirst, long now) {
        long first = q * bucketSlots;
        long last = Math.min(first + bucketSlots - 1, fineFirst - 1);
        return ((first + last) * 0.5 * res - now) / 1000.0;
    }

    private double seconds(long slot, long now) {
        return (slot * res - now) / 1000.0;
    }

    // Readings come once a slot and queries end at the newest one: the slot, bucket and ring index wanted are
    // nearly always the newest or close behind it, found without the long division that showed in profiles.

    /** The slot of a time in milliseconds. */
    private long slotOf(long ms) {
        if (newestSlot != NONE) {
            long ahead = ms - newestSlot * res;
            if (ahead >= 0 && ahead < res) {
                return newestSlot;
            }
            if (ahead >= res && ahead < 2 * res) {
                return newestSlot + 1;
            }
        }
        return Math.floorDiv(ms, res);
    }

    /** The bucket of a slot. */
    private long bucketOf(long slot) {
        if (newestBucket != NONE) {
            long ahead = slot - newestBucket * bucketSlots;
            if (ahead >= 0 && ahead < bucketSlots) {
                return newestBucket;
            }
            if (ahead >= bucketSlots && ahead < 2L * bucketSlots) {
                return newestBucket + 1;
            }
        }
        return Math.floorDiv(slot, bucketSlots);
    }

    private int fineIndex(long slot) {
        long back = newestSlot - slot;
        if (newestSlot != NONE && back >= 0 && back < fine) {
            int i = newestIndex - (int) back;
            return i < 0 ? i + fine : i;
        }
        return (int) Math.floorMod(slot, (long) fine);
    }

    private int bucketIndex(long q) {
        long back = newestBucket - q;
        if (newestBucket != NONE && back >= 0 && back < buckets) {
            int i = newestBucketIndex - (int) back;
            return i < 0 ? i + buckets : i;
        }
        return (int) Math.floorMod(q, (long) buckets);
    }

    static long arrayBytes(int length, int elementBytes) {
        return align(ARRAY_HEADER + (long) length * elementBytes);
    }

    static long align(long bytes) {
        return (bytes + 7) & ~7L;
    }
}
