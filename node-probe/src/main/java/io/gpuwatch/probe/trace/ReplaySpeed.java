package io.gpuwatch.probe.trace;

/**
 * How fast a trace is replayed: {@code factor} times its original pace, or as fast as the gateway takes it
 * ({@link #MAX}, factor +∞).
 */
public record ReplaySpeed(double factor) {
    /** The trace's own pace. */
    public static final ReplaySpeed REALTIME = new ReplaySpeed(1);
    /** No waiting between frames. */
    public static final ReplaySpeed MAX = new ReplaySpeed(Double.POSITIVE_INFINITY);

    public ReplaySpeed {
        if (!(factor > 0)) {
            throw new IllegalArgumentException("a replay speed is a positive factor, got " + factor);
        }
    }

    /**
     * Parses {@code --speed}: a positive number ({@code 10}, {@code 0.5}) or {@code max}.
     *
     * @throws IllegalArgumentException naming what was expected
     */
    public static ReplaySpeed parse(String text) {
        String t = text == null ? "" : text.strip();
        if (t.equalsIgnoreCase("max")) {
            return MAX;
        }
        double f;
        try {
            f = Double.parseDouble(t);
        } catch (NumberFormatException e) {
            f = Double.NaN;
        }
        if (!(f > 0) || Double.isInfinite(f)) {
            throw new IllegalArgumentException("expected a positive factor like 10 or 0.5, or 'max', got '" + text + "'");
        }
        return new ReplaySpeed(f);
    }

    /** Whether frames go without waiting. */
    public boolean isMax() {
        return Double.isInfinite(factor);
    }

    /**
     * The replayed time of a frame stamped {@code ts}: {@code origin + (ts − firstTs) / factor}, rounded down.
     * Not for {@link #MAX}, where a frame's time is the moment it is sent.
     */
    public long rebase(long origin, long firstTs, long ts) {
        return origin + (long) Math.floor((ts - firstTs) / factor);
    }

    @Override
    public String toString() {
        return isMax() ? "max" : factor == Math.rint(factor) ? Long.toString((long) factor) + "x" : factor + "x";
    }
}
