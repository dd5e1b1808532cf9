package io.gpuwatch.rules.dsl;

import io.gpuwatch.rules.scope.BaselineStat;
import io.gpuwatch.rules.scope.PeerStat;
import io.gpuwatch.rules.scope.ScopeView;

import java.util.List;

/**
 * The only object compiled expressions can reach: MVEL resolves their unqualified calls against it. One
 * instance per compiled expression, bound to a view for the duration of one evaluation; not thread-safe.
 * The methods exist for the generated MVEL only.
 */
public final class EvalContext {
    private ScopeView view;
    private int[] streaks;
    private final List<Expression> members;

    EvalContext(List<Expression> members) {
        this.members = List.copyOf(members);
    }

    List<Expression> members() {
        return members;
    }

    void bind(ScopeView v, int[] runs) {
        this.view = v;
        this.streaks = runs;
    }

    public double last(int id) {
        return view.series(id).last();
    }

    /** The latest value, provided some sample lies within the window. */
    public double lastWithin(int id, long windowMs) {
        var s = view.series(id);
        return s.count(windowMs) > 0 ? s.last() : Double.NaN;
    }

    public double avg(int id, long windowMs) {
        return view.series(id).avg(windowMs);
    }

    public double min(int id, long windowMs) {
        return view.series(id).min(windowMs);
    }

    public double max(int id, long windowMs) {
        return view.series(id).max(windowMs);
    }

    public double sum(int id, long windowMs) {
        return view.series(id).sum(windowMs);
    }

    public double count(int id, long windowMs) {
        return view.series(id).count(windowMs);
    }

    public double rate(int id, long windowMs) {
        return view.series(id).rate(windowMs);
    }

    public double increase(int id, long windowMs) {
        return view.series(id).increase(windowMs);
    }

    public double slope(int id, long windowMs) {
        return view.series(id).slope(windowMs);
    }

    public double quantile(int id, double p, long windowMs) {
        return view.series(id).quantile(p, windowMs);
    }

    public double delta(int id, long windowMs) {
        return view.series(id).delta(windowMs);
    }

    public double resets(int id, long windowMs) {
        return view.series(id).resets(windowMs);
    }

    public double changes(int id, long windowMs) {
        return view.series(id).changes(windowMs);
    }

    public double predict(int id, long windowMs, long horizonMs) {
        return view.series(id).predict(windowMs, horizonMs);
    }

    public boolean absent(int id, long windowMs) {
        return view.series(id).count(windowMs) == 0;
    }

    /** Streak {@code k} has lasted at least {@code n} evaluations; compiled only into conditions, which bind them. */
    public boolean consecutive(int k, int n) {
        return streaks != null && streaks[k] >= n;
    }

    /** A derived series holds 1/0 per sample, so its mean is the fraction of samples that matched. */
    public double fraction(int id, long windowMs) {
        return view.series(id).avg(windowMs);
    }

    public boolean throttled(int id, long mask) {
        double v = view.series(id).last();
        return !Double.isNaN(v) && ((long) v & mask) != 0;
    }

    public double events(String kind, int code, long windowMs) {
        return view.countEvents(kind, code, windowMs);
    }

    public String distinct(String kind, int code, long windowMs) {
        List<String> codes = view.distinctEvents(kind, code, windowMs);
        return String.join(", ", codes);
    }

    /** See {@link io.gpuwatch.rules.scope.Series#sampleKeptUntil}. */
    long sampleKeptUntil(int id, long windowMs, double bound, boolean above, boolean inclusive) {
        return view.series(id).sampleKeptUntil(windowMs, bound, above, inclusive);
    }

    /** See {@link io.gpuwatch.rules.scope.Series#shareBelowUntil}. */
    long shareBelowUntil(int id, long windowMs, double share, boolean inclusive) {
        return view.series(id).shareBelowUntil(windowMs, share, inclusive);
    }

    /** See {@link io.gpuwatch.rules.scope.Series#meanKeptUntil}. */
    long meanKeptUntil(int id, long windowMs, double bound, double limit, boolean above) {
        return view.series(id).meanKeptUntil(windowMs, bound, limit, above);
    }

    /**
     * For {@code count(cards where k) > count} ({@code >=} unless strict) that is false now: the earliest instant
     * at which one of the cards whose condition is false could turn, the only way the count can rise. The cards
     * themselves changing is the view's {@link ScopeView#quietMark}. {@link Long#MIN_VALUE} when the comparison
     * holds, or when a card that does not satisfy the condition cannot tell how long it will not.
     */
    long membersQuietUntil(int k, boolean strict, double count) {
        Expression cond = members.get(k);
        List<? extends ScopeView> cards = view.members();
        int holding = 0;
        long until = Long.MAX_VALUE;
        for (int i = 0; i < cards.size(); i++) {
            ScopeView card = cards.get(i);
            if (cond.test(card)) {
                holding++;
                continue;
            }
            long q = cond.quietUntil(card);
            if (q == Long.MIN_VALUE) {
                return q;
            }
            until = Math.min(until, q);
        }
        boolean holds = strict ? holding > count : holding >= count;
        return holds || until == Long.MAX_VALUE ? Long.MIN_VALUE : until;
    }

    /** How many member cards of the scope satisfy card condition {@code k} now. */
    public double countMembers(int k) {
        Expression cond = members.get(k);
        // indexed: the iterator was the evaluator's largest allocation, once per node rule per tick
        List<? extends ScopeView> cards = view.members();
        int n = 0;
        for (int i = 0; i < cards.size(); i++) {
            if (cond.test(cards.get(i))) {
                n++;
            }
        }
        return n;
    }

    /**
     * The indexes of the member cards that satisfy card condition {@code k} now, comma-separated in member order
     * (a card without an index by its uuid); empty when none does.
     */
    public String listMembers(int k) {
        Expression cond = members.get(k);
        StringBuilder out = new StringBuilder();
        for (ScopeView card : view.members()) {
            if (cond.test(card)) {
                String index = card.label("card.index");
                out.append(out.isEmpty() ? "" : ", ").append(index != null ? index : card.label("card.uuid"));
            }
        }
        return out.toString();
    }

    /** {@code stat} is a {@link BaselineStat} ordinal. */
    public double baseline(int id, int stat, double k) {
        return view.baseline(id, BaselineStat.of(stat), k);
    }

    /** {@code stat} is a {@link PeerStat} ordinal. */
    public double peers(int id, long windowMs, int stat) {
        return view.peers(id, windowMs, PeerStat.of(stat));
    }

    public String label(String key) {
        return view.label(key);
    }

    public boolean allocated() {
        return view.allocated();
    }

    public double lostCards() {
        return view.lostCards();
    }

    public double silentFor() {
        return view.silentForMs();
    }

    public double requestedVsUsed() {
        return view.requestedVsUsed();
    }

    public double memRequestedVsUsed() {
        return view.memRequestedVsUsed();
    }

    public double tasksEnded(long windowMs) {
        return view.tasksEnded(windowMs);
    }

    public double taskSuccessRate(long windowMs) {
        return view.taskSuccessRate(windowMs);
    }
}
