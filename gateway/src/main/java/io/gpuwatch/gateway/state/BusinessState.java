package io.gpuwatch.gateway.state;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.metric.SeriesSpec;
import io.gpuwatch.rules.scope.BaselineStat;
import io.gpuwatch.rules.scope.ScopeView;
import io.gpuwatch.rules.scope.Series;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * One business, read by business-scope rules: the cards of its tasks pooled, and its tasks' application
 * readings pooled (so {@code sum(tokensPerSec, 5m)} adds up every task's samples). Its tasks and cards are
 * refreshed each time it is evaluated.
 */
public final class BusinessState implements ScopeView {
    private final FleetState fleet;
    private final String name;
    private final Map<String, String> identity;
    private final String instanceKey;
    private final List<TaskState> tasks = new ArrayList<>();
    private final List<CardState> cards = new ArrayList<>();
    private PooledSeries[] series = new PooledSeries[0];
    private long lastHeardAt;
    private long now;
    private final PooledQuietMark quietMark = new PooledQuietMark();

    BusinessState(FleetState fleet, String name) {
        this.fleet = fleet;
        this.name = name;
        this.identity = Map.of("business", name);
        // built once: engines look alerts up by it on every evaluation
        this.instanceKey = key(name);
    }

    public String name() {
        return name;
    }

    /** The key a rule engine tracks this business's alert states under. */
    public String instanceKey() {
        return instanceKey;
    }

    /** The engine key of the business named {@code name}. */
    public static String key(String name) {
        return "business/" + name;
    }

    /** Its member cards, as of the latest evaluation time. */
    public List<CardState> cards() {
        return Collections.unmodifiableList(cards);
    }

    void useSeries(List<SeriesSpec> specs) {
        PooledSeries[] next = new PooledSeries[specs.size()];
        for (SeriesSpec spec : specs) {
            boolean app = spec.source() == Metric.Source.APP;
            next[spec.id()] = new PooledSeries(app ? tasks : cards, spec.id());
        }
        series = next;
    }

    /** Takes the tasks that belong to the business now, and through them its cards, at {@code at}. */
    void members(List<TaskState> current, long at) {
        tasks.clear();
        tasks.addAll(current);
        List<CardState> next = TaskState.cardsOf(current);
        // cards compare by identity
        if (!cards.equals(next)) {
            cards.clear();
            cards.addAll(next);
            quietMark.cardsChanged();
        }
        if (!cards.isEmpty() || !tasks.isEmpty()) {
            lastHeardAt = Math.max(lastHeardAt, at);
        }
        now = at;
    }

    /** See {@link PooledQuietMark}. */
    @Override
    public long quietMark() {
        return quietMark.of(cards, now);
    }

    /** No task has belonged to it for longer than the grace period. */
    boolean expired(long at) {
        return tasks.isEmpty() && at - lastHeardAt > FleetState.MEMBERSHIP_GRACE_MS;
    }

    @Override
    public long now() {
        return now;
    }

    @Override
    public String label(String key) {
        return key.equals("business") ? name : null;
    }

    @Override
    public Map<String, String> identity() {
        return identity;
    }

    @Override
    public Series series(int seriesId) {
        return seriesId >= 0 && seriesId < series.length ? series[seriesId] : Series.EMPTY;
    }

    @Override
    public int countEvents(String kind, int code, long windowMs) {
        return MemberEvents.count(cards, kind, code, windowMs);
    }

    @Override
    public List<String> distinctEvents(String kind, int code, long windowMs) {
        return MemberEvents.distinct(cards, kind, code, windowMs);
    }

    /** Milliseconds since a task of the business was last seen. */
    @Override
    public long silentForMs() {
        return Math.max(0, now - lastHeardAt);
    }

    @Override
    public boolean allocated() {
        for (CardState card : cards) {
            if (card.allocated()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public List<? extends ScopeView> members() {
        return cards;
    }

    /** Its tasks' busy cards over the cards they requested, counting only tasks whose listing requested some. */
    @Override
    public double requestedVsUsed() {
        double requested = 0;
        double busy = 0;
        for (TaskState t : tasks) {
            Integer r = t.requestedCards();
            if (r != null && r > 0) {
                requested += r;
                busy += t.busyCards();
            }
        }
        return requested > 0 ? busy / requested : Double.NaN;
    }

    /** Its tasks' memory in use over the memory they requested, counting only tasks that requested some. */
    @Override
    public double memRequestedVsUsed() {
        double requested = 0;
        double used = 0;
        for (TaskState t : tasks) {
            Long r = t.requestedMemBytes();
            double u = t.memUsedBytes();
            if (r != null && r > 0) {
                requested += r;
                used += Double.isNaN(u) ? 0 : u;
            }
        }
        return requested > 0 ? used / requested : Double.NaN;
    }

    @Override
    public int tasksEnded(long windowMs) {
        return fleet.businessOutcomes(name, now, windowMs)[0];
    }

    @Override
    public double taskSuccessRate(long windowMs) {
        return TaskOutcomes.rate(fleet.businessOutcomes(name, now, windowMs));
    }

    /** The business whose baselines its rules read: itself. */
    public String baselineKey() {
        return name;
    }

    @Override
    public double baseline(int seriesId, BaselineStat stat, double k) {
        return fleet.baseline(name, seriesId, stat, k, now, series(seriesId));
    }
}
