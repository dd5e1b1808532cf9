package io.gpuwatch.gateway.window;

/**
 * Samples of one window or of several pooled, as far as quantiles need them: how many lie in a window and how
 * many of those are at most a value. {@link #quantile} selects ranks by bisecting over float values, so it needs
 * neither a copy nor a sort: 32 counting passes, each over the window's slots and buckets.
 */
public interface RankedSamples {
    /** Samples in the window. */
    double count(long windowMs);

    /** The smallest sample in the window, NaN without samples. */
    double min(long windowMs);

    /** The largest sample in the window, NaN without samples. */
    double max(long windowMs);

    /** Samples in the window whose value is at most {@code value}. */
    double rank(long windowMs, float value);

    /**
     * The {@code p}-quantile of the samples, interpolated linearly between the two nearest ranks like
     * Prometheus' quantile_over_time; NaN without samples. {@code p} outside 0..1 is clamped.
     */
    static double quantile(RankedSamples s, double p, long windowMs) {
        double n = s.count(windowMs);
        if (n == 0 || Double.isNaN(p)) {
            return Double.NaN;
        }
        double rank = Math.max(0, Math.min(1, p)) * (n - 1);
        double lower = Math.floor(rank);
        double weight = rank - lower;
        int lo = key((float) s.min(windowMs));
        int hi = key((float) s.max(windowMs));
        float below = select(s, windowMs, lower, lo, hi);
        if (weight == 0) {
            return below;
        }
        float above = select(s, windowMs, lower + 1, key(below), hi);
        return below + (above - (double) below) * weight;
    }

    /** The sample of 0-based rank {@code k}: the smallest value with more than {@code k} samples at or below it. */
    private static float select(RankedSamples s, long windowMs, double k, int lo, int hi) {
        while (lo < hi) {
            int mid = (int) Math.floorDiv((long) lo + hi, 2);
            if (s.rank(windowMs, value(mid)) > k) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return value(lo);
    }

    /** Float bits as an int that orders like the floats do (negative values flipped). */
    private static int key(float f) {
        int bits = Float.floatToIntBits(f + 0.0f);
        return bits ^ ((bits >> 31) & 0x7fffffff);
    }

    private static float value(int key) {
        return Float.intBitsToFloat(key ^ ((key >> 31) & 0x7fffffff));
    }
}
