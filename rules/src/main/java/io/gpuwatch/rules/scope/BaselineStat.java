package io.gpuwatch.rules.scope;

/**
 * Which figure of a learned baseline a rule reads: {@code baseline(m).mean}, {@code .std}, {@code .upper(k)},
 * {@code .lower(k)} or {@code .zscore}. Every figure of an unknown baseline (NaN mean and std) is NaN.
 */
public enum BaselineStat {
    MEAN, STD, UPPER, LOWER, ZSCORE;

    private static final BaselineStat[] ALL = values();

    /** The stat of this ordinal, without the array copy {@code values()} makes. */
    public static BaselineStat of(int ordinal) {
        return ALL[ordinal];
    }

    /**
     * This figure of a baseline of {@code mean} and {@code std}: {@code k} is the number of standard deviations
     * of UPPER and LOWER, {@code current} the value ZSCORE measures (NaN while std is 0 or unknown).
     */
    public double of(double mean, double std, double k, double current) {
        return switch (this) {
            case MEAN -> mean;
            case STD -> std;
            case UPPER -> mean + k * std;
            case LOWER -> mean - k * std;
            case ZSCORE -> std > 0 ? (current - mean) / std : Double.NaN;
        };
    }
}
