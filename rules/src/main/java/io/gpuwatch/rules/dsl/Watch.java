package io.gpuwatch.rules.dsl;

/**
 * A number whose comparison with a literal can tell how long it stays false: a window's max or min (false while a
 * sample on the wrong side of the literal is in the window), a fraction (a share of 1/0 samples, which rises by at
 * most one sample a slot), a mean (which moves by at most what a slot's departing sample and a sample at the end of
 * the metric's range can move it), or a count of member cards (which rises only when a card's own condition turns).
 *
 * @param id the series, or for {@link Kind#MEMBERS} the member condition's index
 * @param range for {@link Kind#MEAN}, where the metric's samples lie; null for the others
 */
record Watch(Kind kind, int id, long windowMs, Range range) {
    /** What is watched. */
    enum Kind { MAX, MIN, SHARE, MEAN, MEMBERS }

    Watch(Kind kind, int id, long windowMs) {
        this(kind, id, windowMs, null);
    }

    /** The quiet of {@code this op value} (the literal on the right), or null where it cannot tell. */
    Quiet quiet(String op, double value) {
        boolean strict = op.equals("<") || op.equals(">");
        return switch (kind) {
            // max(x) < v is false while a sample >= v is in the window; max(x) <= v while one > v is
            case MAX -> op.startsWith("<") ? c -> c.sampleKeptUntil(id, windowMs, value, true, strict) : null;
            case MIN -> op.startsWith(">") ? c -> c.sampleKeptUntil(id, windowMs, value, false, strict) : null;
            case SHARE -> op.startsWith(">") ? c -> c.shareBelowUntil(id, windowMs, value, !strict) : null;
            case MEAN -> meanQuiet(op, value);
            case MEMBERS -> op.startsWith(">") ? c -> c.membersQuietUntil(id, strict, value) : null;
        };
    }

    private Quiet meanQuiet(String op, double value) {
        // avg(x) < v stays false while the mean stays at or above v (just above: the margin makes < and <= alike)
        boolean above = op.startsWith("<");
        double limit = range == null ? Double.NaN : above ? range.lo() : range.hi();
        if (!Double.isFinite(limit) || op.equals("==")) {
            return null;
        }
        return c -> c.meanKeptUntil(id, windowMs, value, limit, above);
    }
}
