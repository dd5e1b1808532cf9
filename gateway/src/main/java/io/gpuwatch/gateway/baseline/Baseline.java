package io.gpuwatch.gateway.baseline;

/**
 * What is normal for one metric of one business at one moment: an exponentially weighted mean and standard
 * deviation, learned from per-minute means. {@code samples} counts the minutes it learned from; {@code hourly}
 * says whether it is the hour-of-week profile (a week of history exists) or the all-hours one. An unlearned
 * baseline has NaN mean and std, so every comparison against it is false and nothing fires on no history.
 */
public record Baseline(double mean, double std, long samples, boolean hourly) {
    /** No history yet. */
    public static final Baseline UNKNOWN = new Baseline(Double.NaN, Double.NaN, 0, false);

    /** {@code mean + k·std}: above it a value is unusually high. */
    public double upper(double k) {
        return mean + k * std;
    }

    /** {@code mean − k·std}: below it a value is unusually low. */
    public double lower(double k) {
        return mean - k * std;
    }

    /** How many standard deviations {@code value} lies from the mean; NaN while std is 0 or unknown. */
    public double zscore(double value) {
        return std > 0 ? (value - mean) / std : Double.NaN;
    }
}
