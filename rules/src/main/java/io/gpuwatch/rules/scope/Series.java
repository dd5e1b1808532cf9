package io.gpuwatch.rules.scope;

/**
 * Window functions over one series of one scope instance, each over the last {@code windowMs} before
 * {@link ScopeView#now()}. Missing data gives NaN (count gives 0), so a comparison on it is false.
 */
public interface Series {
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
    };
}
