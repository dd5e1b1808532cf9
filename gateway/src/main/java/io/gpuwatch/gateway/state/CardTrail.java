package io.gpuwatch.gateway.state;

import io.gpuwatch.protocol.Metric;

import java.util.Arrays;
import java.util.List;

/**
 * A card's last hour for the console's charts, whatever the rules read: the latest reading of each of a few
 * metrics in each {@value #SLOT_MS} ms slot, {@value #SLOTS} slots, in one float array (some 4 KB a card). Owned by
 * the card's event loop.
 */
public final class CardTrail {
    /** Width of a slot. */
    public static final long SLOT_MS = 20_000;
    /** Slots kept: an hour. */
    public static final int SLOTS = 180;
    /** The metrics kept, in this order. */
    public static final List<Metric> METRICS = List.of(Metric.GPU_UTIL, Metric.SM_ACTIVE, Metric.TEMP_C,
            Metric.POWER_W, Metric.MEM_USED_BYTES, Metric.CLOCK_EVENT_REASONS);

    private static final int WIDTH = METRICS.size();
    /** The metrics ordinals, so that a reading is kept without going through the list. */
    private static final int[] ORDINALS = METRICS.stream().mapToInt(Metric::ordinal).toArray();

    /** Slot after slot, each the {@link #METRICS} in order: a reading writes one cache line, not one per metric. */
    private final float[] values = new float[WIDTH * SLOTS];
    /** The slot number (time / SLOT_MS) of the newest reading; MIN_VALUE before the first. */
    private long newest = Long.MIN_VALUE;

    CardTrail() {
        Arrays.fill(values, Float.NaN);
    }

    /** Keeps the reading taken at {@code at} (metric values by ordinal, NaN where absent); a late one is dropped. */
    void add(long at, double[] byOrdinal) {
        long slot = Math.floorDiv(at, SLOT_MS);
        if (newest != Long.MIN_VALUE && slot < newest) {
            return;
        }
        if (newest != Long.MIN_VALUE) {
            // slots skipped since the newest reading had none
            for (long s = newest + 1; s < slot && s <= newest + SLOTS; s++) {
                clear(s);
            }
        }
        newest = slot;
        int at0 = (int) Math.floorMod(slot, (long) SLOTS) * WIDTH;
        for (int m = 0; m < WIDTH; m++) {
            values[at0 + m] = (float) byOrdinal[ORDINALS[m]];
        }
    }

    private void clear(long slot) {
        int i = (int) Math.floorMod(slot, (long) SLOTS) * WIDTH;
        Arrays.fill(values, i, i + WIDTH, Float.NaN);
    }

    /**
     * The hour up to {@code now}, oldest slot first: {@code SLOTS} values of metric {@code m} (an index of
     * {@link #METRICS}), NaN where no reading came.
     */
    public double[] series(int m, long now) {
        double[] out = new double[SLOTS];
        long last = Math.floorDiv(now, SLOT_MS);
        for (int k = 0; k < SLOTS; k++) {
            long slot = last - SLOTS + 1 + k;
            boolean held = newest != Long.MIN_VALUE && slot <= newest && slot > newest - SLOTS;
            out[k] = held ? values[(int) Math.floorMod(slot, (long) SLOTS) * WIDTH + m] : Double.NaN;
        }
        return out;
    }

    /** The start of the first slot {@link #series} gives for {@code now}. */
    public static long from(long now) {
        return (Math.floorDiv(now, SLOT_MS) - SLOTS + 1) * SLOT_MS;
    }
}
