package io.gpuwatch.gateway.state;

import io.gpuwatch.gateway.window.RankedSamples;
import io.gpuwatch.rules.scope.ScopeView;
import io.gpuwatch.rules.scope.Series;

import java.util.function.ToDoubleFunction;

/**
 * One series pooled over the members of a wider scope (the cards of a node, task or business; the tasks of a
 * business): avg/min/max/count/sum/quantile over every member's samples, increase/rate/slope/delta/resets/changes/
 * predict summed (the members' total), last the highest of the members' last values. {@code members} is a live
 * view, read at each call.
 */
final class PooledSeries implements Series, RankedSamples {
    private final Iterable<? extends ScopeView> members;
    private final int id;

    PooledSeries(Iterable<? extends ScopeView> members, int id) {
        this.members = members;
        this.id = id;
    }

    @Override
    public double last() {
        double best = Double.NaN;
        for (ScopeView card : members) {
            double v = card.series(id).last();
            if (!Double.isNaN(v) && (Double.isNaN(best) || v > best)) {
                best = v;
            }
        }
        return best;
    }

    @Override
    public double avg(long windowMs) {
        double sum = 0;
        double count = 0;
        for (ScopeView card : members) {
            Series s = card.series(id);
            double n = s.count(windowMs);
            if (n > 0) {
                sum += s.sum(windowMs);
                count += n;
            }
        }
        return count == 0 ? Double.NaN : sum / count;
    }

    @Override
    public double min(long windowMs) {
        double best = Double.NaN;
        for (ScopeView card : members) {
            double v = card.series(id).min(windowMs);
            if (!Double.isNaN(v) && (Double.isNaN(best) || v < best)) {
                best = v;
            }
        }
        return best;
    }

    @Override
    public double max(long windowMs) {
        double best = Double.NaN;
        for (ScopeView card : members) {
            double v = card.series(id).max(windowMs);
            if (!Double.isNaN(v) && (Double.isNaN(best) || v > best)) {
                best = v;
            }
        }
        return best;
    }

    @Override
    public double sum(long windowMs) {
        return total(s -> s.sum(windowMs));
    }

    @Override
    public double count(long windowMs) {
        double n = 0;
        for (ScopeView card : members) {
            n += card.series(id).count(windowMs);
        }
        return n;
    }

    @Override
    public double increase(long windowMs) {
        return total(s -> s.increase(windowMs));
    }

    @Override
    public double rate(long windowMs) {
        return total(s -> s.rate(windowMs));
    }

    @Override
    public double slope(long windowMs) {
        return total(s -> s.slope(windowMs));
    }

    @Override
    public double quantile(double p, long windowMs) {
        return RankedSamples.quantile(this, p, windowMs);
    }

    @Override
    public double rank(long windowMs, float value) {
        double n = 0;
        for (ScopeView card : members) {
            if (card.series(id) instanceof RankedSamples r) {
                n += r.rank(windowMs, value);
            }
        }
        return n;
    }

    @Override
    public double delta(long windowMs) {
        return total(s -> s.delta(windowMs));
    }

    @Override
    public double resets(long windowMs) {
        return total(s -> s.resets(windowMs));
    }

    @Override
    public double changes(long windowMs) {
        return total(s -> s.changes(windowMs));
    }

    @Override
    public double predict(long windowMs, long horizonMs) {
        return total(s -> s.predict(windowMs, horizonMs));
    }

    /** Sum over the members that have data; NaN when none has. */
    private double total(ToDoubleFunction<Series> f) {
        double total = 0;
        boolean any = false;
        for (ScopeView card : members) {
            double v = f.applyAsDouble(card.series(id));
            if (!Double.isNaN(v)) {
                total += v;
                any = true;
            }
        }
        return any ? total : Double.NaN;
    }
}
