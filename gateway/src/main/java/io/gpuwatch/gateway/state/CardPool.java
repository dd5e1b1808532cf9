package io.gpuwatch.gateway.state;

import io.gpuwatch.gateway.compute.PeakFlops;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.rules.metric.SeriesSpec;
import io.gpuwatch.rules.scope.ScopeView;
import io.gpuwatch.rules.scope.Series;

import java.util.ArrayList;
import java.util.List;

/**
 * A scope over a set of member cards with application readings of its own (a task, a replica): application
 * metrics read its own windows, card metrics its members pooled; events, allocation and {@code cards where}
 * read its members, silence counts from the last frame about it.
 */
abstract class CardPool implements ScopeView {
    /** The member cards, in the order they joined; kept by the subclass. */
    protected final List<CardState> members = new ArrayList<>();
    /** The scope's own application readings. */
    protected final WindowSet app = new WindowSet(Metric.Source.APP);
    private PooledSeries[] pooled = new PooledSeries[0];
    /** What the latest app frame derived, by series id. */
    protected double[] derived = new double[0];
    /** When the scope was last heard of (gateway ms). */
    protected long lastHeardAt;
    /** The evaluation instant. */
    protected long now;

    /** Switches to a new rule set's series: app windows of series that stay keep their data. */
    void useSeries(List<SeriesSpec> specs) {
        app.useSeries(specs);
        derived = new double[specs.size()];
        PooledSeries[] next = new PooledSeries[specs.size()];
        for (SeriesSpec spec : specs) {
            next[spec.id()] = new PooledSeries(members, spec.id());
        }
        pooled = next;
    }

    /** Application readings at {@code ts}, and what is derived from them at that instant. */
    protected void appendApp(long ts, MetricValues values) {
        app.append(ts, values, this, derived);
    }

    @Override
    public long now() {
        return now;
    }

    @Override
    public Series series(int seriesId) {
        if (app.holds(seriesId)) {
            return app.window(seriesId);
        }
        return seriesId >= 0 && seriesId < pooled.length ? pooled[seriesId] : Series.EMPTY;
    }

    @Override
    public int countEvents(String kind, int code, long windowMs) {
        return MemberEvents.count(members, kind, code, windowMs);
    }

    @Override
    public List<String> distinctEvents(String kind, int code, long windowMs) {
        return MemberEvents.distinct(members, kind, code, windowMs);
    }

    /** Milliseconds since the scope was last heard of. */
    @Override
    public long silentForMs() {
        return Math.max(0, now - lastHeardAt);
    }

    @Override
    public boolean allocated() {
        for (CardState card : members) {
            if (card.allocated()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public List<? extends ScopeView> members() {
        return members;
    }

    /** The sum of the member cards' peak dense FLOP/s at {@code precision}; NaN without cards or with one unknown. */
    protected double peakFlops(String precision) {
        if (members.isEmpty()) {
            return Double.NaN;
        }
        double sum = 0;
        for (CardState card : members) {
            sum += PeakFlops.of(card.label("card.name"), precision);
        }
        return sum;
    }
}
