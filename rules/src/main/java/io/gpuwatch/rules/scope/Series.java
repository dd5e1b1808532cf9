package io.gpuwatch.rules.scope;

/**
 * Window functions over one series of one scope instance, each over the last {@code windowMs} before
 * {@link ScopeView#now()}. Missing data gives NaN (count gives 0), so a comparison on it is false.
 */
public interface Series {
    /** Prometheus' lookback delta: how old the newest sample may be for {@link #last()}. */
    long LOOKBACK_MS = 300_000;

    /**
     * How late a sample may arrive after it was read and still be on time. A later one (a re-sent backlog) is
     * unforeseen, like a rewrite ({@link ScopeView#quietMark}), so a sleeping rule may assume every sample still to
     * come was read at most this long before the time it is evaluated at.
     */
    long ON_TIME_MS = 2_000;

    /**
     * A sample this long after its series' previous one resumes a silent series, and is unforeseen too: a series
     * silent for longer than this, besides {@link #ON_TIME_MS}, stays silent for a sleeping rule. Long enough for a
     * probe that reads every 30 s, short enough for a card fallen off the bus to stop waking its node's rules.
     */
    long RESUME_AFTER_MS = 30_000;

    /** The most recent value, or NaN. */
    double last();

    double avg(long windowMs);

    double min(long windowMs);

    double max(long windowMs);

    double sum(long windowMs);

    /** Number of samples in the window. */
    double count(long windowMs);

    /** Growth of a counter over the window, counting a drop as a reset (Prometheus' increase). */
    double increase(long windowMs);

    /** {@link #increase} per second. */
    double rate(long windowMs);

    /** Least-squares slope of the values against time, per second. */
    double slope(long windowMs);

    /**
     * The {@code p}-quantile (0..1) of the samples, interpolating linearly between the two nearest ranks
     * (Prometheus' quantile_over_time); NaN without samples.
     */
    double quantile(double p, long windowMs);

    /** The newest sample minus the oldest one in the window, not extrapolated; NaN with fewer than two. */
    double delta(long windowMs);

    /** How often a sample was lower than the one before it, both in the window; NaN without samples. */
    double resets(long windowMs);

    /** How often a sample differed from the one before it, both in the window; NaN without samples. */
    double changes(long windowMs);

    /**
     * The least-squares line through the samples, read {@code horizonMs} after now (Prometheus'
     * predict_linear); NaN with fewer than two distinct sample times.
     */
    double predict(long windowMs, long horizonMs);

    /**
     * The earliest instant at which the newest sample now in the window over {@code windowMs} that lies above
     * {@code bound} (below it when {@code above} is false; or on it when {@code inclusive}) will have left that
     * window: until then the window's max (min) stays on that side of the bound, whatever samples arrive.
     * {@link Long#MIN_VALUE} when no such sample is in the window, or when the series cannot tell.
     */
    default long sampleKeptUntil(long windowMs, double bound, boolean above, boolean inclusive) {
        return Long.MIN_VALUE;
    }

    /**
     * For a series of 1/0 samples whose mean over {@code windowMs} is at most {@code share} (below it when
     * {@code inclusive}): the earliest instant at which that mean could exceed (reach) it, were every sample to
     * arrive from now on a 1 and every sample to leave a 0. {@link Long#MIN_VALUE} when it is above now, or when the
     * series cannot tell.
     */
    default long shareBelowUntil(long windowMs, double share, boolean inclusive) {
        return Long.MIN_VALUE;
    }

    /**
     * For a mean over {@code windowMs} that lies above {@code bound} now (below it when {@code above} is false):
     * the earliest instant at which it could reach the bound, were every sample to leave that the window's max (min)
     * allows and every sample to arrive at {@code limit}, the lowest (highest) a sample of the series can take.
     * {@link Long#MIN_VALUE} when it is not beyond the bound now by more than rounding, or when the series cannot
     * tell.
     */
    default long meanKeptUntil(long windowMs, double bound, double limit, boolean above) {
        return Long.MIN_VALUE;
    }

    /** A series with no data at all. */
    Series EMPTY = new Series() {
        @Override
        public double last() {
            return Double.NaN;
        }

        @Override
        public double avg(long windowMs) {
            return Double.NaN;
        }

        @Override
        public double min(long windowMs) {
            return Double.NaN;
        }

        @Override
        public double max(long windowMs) {
            return Double.NaN;
        }

        @Override
        public double sum(long windowMs) {
            return Double.NaN;
        }

        @Override
        public double count(long windowMs) {
            return 0;
        }

        @Override
        public double increase(long windowMs) {
            return Double.NaN;
        }

        @Override
        public double rate(long windowMs) {
            return Double.NaN;
        }

        @Override
        public double slope(long windowMs) {
            return Double.NaN;
        }

        @Override
        public double quantile(double p, long windowMs) {
            return Double.NaN;
        }

        @Override
        public double delta(long windowMs) {
            return Double.NaN;
        }

        @Override
        public double resets(long windowMs) {
            return Double.NaN;
        }

        @Override
        public double changes(long windowMs) {
            return Double.NaN;
        }

        @Override
        public double predict(long windowMs, long horizonMs) {
            return Double.NaN;
        }
    };
}
