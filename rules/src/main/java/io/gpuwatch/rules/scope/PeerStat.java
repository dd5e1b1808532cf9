package io.gpuwatch.rules.scope;

/**
 * Which figure of a peer comparison a rule reads: {@code peers(m, w).median}, {@code .spread}, {@code .count} or
 * {@code .ratio} (see {@link PeerGroup}).
 */
public enum PeerStat {
    MEDIAN, SPREAD, COUNT, RATIO;

    private static final PeerStat[] ALL = values();

    /** The stat of this ordinal, without the array copy {@code values()} makes. */
    public static PeerStat of(int ordinal) {
        return ALL[ordinal];
    }

    /** What a scope without peers answers: no peers counted, every other figure unknown. */
    public double none() {
        return this == COUNT ? 0 : Double.NaN;
    }
}
