package io.gpuwatch.rules.dsl;

/**
 * A number whose comparison with a literal can tell how long it stays false: a window's max or min (false while a
 * sample on the wrong side of the literal is in the window), a fraction (a share of 1/0 samples, which rises by at
 * most one sample a slot), or a count of member cards (which rises only when a card's own condition turns).
 *
 * @param id the series, or for {@link Kind#MEMBERS} the member condition's index
 */
record Watch(Kind kind, int id, long windowMs) {
    /** What is watched. */
    enum Kind { MAX, MIN, SHARE, MEMBERS }

    /** The quiet of {@code this op value} (the literal on the right), or null where it cannot tell. */
    Quiet quiet(String op, double value) {
        boolean strict = op.equals("<") || op.equals(">");
        return switch (kind) {
            // max(x) < v is false while a sample >= v is in the window; max(x) <= v while one > v is
            case MAX -> op.startsWith("<") ? c -> c.sampleKeptUntil(id, windowMs, value, true, strict) : null;
            case MIN -> op.startsWith(">") ? c -> c.sampleKeptUntil(id, windowMs, value, false, strict) : null;
            case SHARE -> op.startsWith(">") ? c -> c.shareBelowUntil(id, windowMs, value, !strict) : null;
            case MEMBERS -> op.startsWith(">") ? c -> c.membersQuietUntil(id, strict, value) : null;
        };
    }
}
