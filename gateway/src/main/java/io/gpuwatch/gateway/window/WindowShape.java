package io.gpuwatch.gateway.window;

/**
 * Sizes of a {@link MetricWindow}: {@code fineSlots} raw slots of {@code resolutionMs} for the recent part, then
 * coarse buckets of {@code coarseBucketMs} (0 = no coarse tier) back to {@code horizonMs}.
 */
public record WindowShape(long resolutionMs, int fineSlots, long coarseBucketMs, long horizonMs) {
    /** Sample resolution of {@link #forWindow} shapes. */
    public static final long DEFAULT_RESOLUTION_MS = 1_000;
    /** Fine slots of a {@link #forWindow} shape that needs a coarse tier. */
    public static final int DEFAULT_FINE_SLOTS = 120;
    /** Smallest coarse bucket of a {@link #forWindow} shape. */
    public static final long DEFAULT_COARSE_BUCKET_MS = 15_000;
    /** The most samples a bucket can count (its count is an unsigned byte). */
    public static final int MAX_SLOTS_PER_BUCKET = 255;

    // 52 buckets give a 15-minute horizon exactly 15 s buckets; longer horizons get wider buckets rather than more.
    private static final int TARGET_BUCKETS = 52;

    /** Validates the sizes; a shape without a coarse tier must fit its horizon in the fine tier. */
    public WindowShape {
        if (resolutionMs <= 0) {
            throw new IllegalArgumentException("resolutionMs must be positive, got " + resolutionMs);
        }
        if (fineSlots < 1) {
            throw new IllegalArgumentException("fineSlots must be at least 1, got " + fineSlots);
        }
        if (horizonMs <= 0) {
            throw new IllegalArgumentException("horizonMs must be positive, got " + horizonMs);
        }
        if (coarseBucketMs == 0) {
            if (horizonMs > fineSlots * resolutionMs) {
                throw new IllegalArgumentException("horizonMs " + horizonMs + " exceeds the fine tier (" + fineSlots
                        + " slots of " + resolutionMs + " ms) and there is no coarse tier");
            }
        } else {
            if (coarseBucketMs < 0 || coarseBucketMs % resolutionMs != 0) {
                throw new IllegalArgumentException("coarseBucketMs " + coarseBucketMs
                        + " must be 0 or a positive multiple of resolutionMs " + resolutionMs);
            }
            if (coarseBucketMs / resolutionMs > MAX_SLOTS_PER_BUCKET) {
                throw new IllegalArgumentException("coarseBucketMs " + coarseBucketMs + " holds more than "
                        + MAX_SLOTS_PER_BUCKET + " slots of " + resolutionMs + " ms");
            }
            if (bucketCount(resolutionMs, fineSlots, coarseBucketMs, horizonMs) > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("horizonMs " + horizonMs + " needs too many buckets of "
                        + coarseBucketMs + " ms");
            }
        }
    }

    /**
     * The shape for a series whose rules ask for at most {@code longestWindowMs}: fine-only when that fits in
     * {@value #DEFAULT_FINE_SLOTS} one-second slots, otherwise {@value #DEFAULT_FINE_SLOTS} fine slots and
     * buckets of at least 15 s, widened for long windows so that there are about 52 of them.
     */
    public static WindowShape forWindow(long longestWindowMs) {
        if (longestWindowMs < 0) {
            throw new IllegalArgumentException("longestWindowMs must not be negative, got " + longestWindowMs);
        }
        long res = DEFAULT_RESOLUTION_MS;
        long slots = ceilDiv(longestWindowMs, res);
        if (slots <= DEFAULT_FINE_SLOTS) {
            // One spare slot keeps a full window when a sample stamped just ahead of the evaluation time lands.
            int fine = (int) slots + 1;
            return new WindowShape(res, fine, 0, fine * res);
        }
        long coarseSlots = slots - DEFAULT_FINE_SLOTS;
        long perBucket = Math.max(DEFAULT_COARSE_BUCKET_MS / res, ceilDiv(coarseSlots, TARGET_BUCKETS));
        perBucket = Math.min(perBucket, MAX_SLOTS_PER_BUCKET);
        return new WindowShape(res, DEFAULT_FINE_SLOTS, perBucket * res, longestWindowMs);
    }

    /** Number of coarse buckets: enough for the oldest window edge to fall in a retained bucket. */
    public int coarseBuckets() {
        return (int) bucketCount(resolutionMs, fineSlots, coarseBucketMs, horizonMs);
    }

    /** Slots per coarse bucket, 0 without a coarse tier. */
    public int slotsPerBucket() {
        return coarseBucketMs == 0 ? 0 : (int) (coarseBucketMs / resolutionMs);
    }

    // Static because the compact constructor validates it before the fields are assigned.
    private static long bucketCount(long resolutionMs, int fineSlots, long coarseBucketMs, long horizonMs) {
        if (coarseBucketMs == 0) {
            return 0;
        }
        long olderSlots = ceilDiv(horizonMs, resolutionMs) - fineSlots;
        if (olderSlots <= 0) {
            return 0;
        }
        long k = coarseBucketMs / resolutionMs;
        // n consecutive slots touch at most ceil((n - 1) / k) + 1 buckets when they do not start on a boundary.
        return (olderSlots + k - 2) / k + 1;
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }
}
