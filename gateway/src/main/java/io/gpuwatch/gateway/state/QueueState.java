package io.gpuwatch.gateway.state;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.rules.metric.SeriesSpec;
import io.gpuwatch.rules.scope.BaselineStat;
import io.gpuwatch.rules.scope.ScopeView;
import io.gpuwatch.rules.scope.Series;

import java.util.List;
import java.util.Map;

/** One scheduler queue, read by queue-scope rules: the scheduling readings of the `sched` frames naming it. */
public final class QueueState implements ScopeView {
    private static final double[] NO_DERIVED = new double[0];

    private final FleetState fleet;
    private final String name;
    private final Map<String, String> identity;
    private final String instanceKey;
    private final WindowSet windows = new WindowSet(Metric.Source.SCHED);
    private List<CardState> cards = List.of();
    private long lastFrameAt;
    /** The latest report's values by metric ordinal (NaN where absent), for the usage history. */
    private final double[] latest = new double[Metric.count()];
    private long reports;
    private long now;

    QueueState(FleetState fleet, String name) {
        this.fleet = fleet;
        this.name = name;
        this.identity = Map.of("queue", name);
        // built once: engines look alerts up by it on every evaluation
        this.instanceKey = key(name);
    }

    public String name() {
        return name;
    }

    /** The key a rule engine tracks this queue's alert states under. */
    public String instanceKey() {
        return instanceKey;
    }

    /** The engine key of the queue named {@code name}. */
    public static String key(String name) {
        return "queue/" + name;
    }

    void useSeries(List<SeriesSpec> specs) {
        windows.useSeries(specs);
    }

    /**
     * Appends a report; {@code tasks} are the tasks it lists, whose cards (as the gateway knows them) the derived
     * metrics read at {@code ts}.
     */
    void append(long ts, MetricValues values, List<TaskState> tasks) {
        lastFrameAt = Math.max(lastFrameAt, ts);
        reports++;
        for (int i = 0; i < latest.length; i++) {
            latest[i] = values.get(i);
        }
        cards = List.copyOf(TaskState.cardsOf(tasks));
        now = ts;
        for (CardState card : cards) {
            card.at(ts);
        }
        windows.append(ts, values, this, NO_DERIVED);
    }

    /** The latest report's reading of {@code m}; NaN before any, or where it gave none. */
    public double latest(Metric m) {
        return reports == 0 ? Double.NaN : latest[m.ordinal()];
    }

    /** When the latest report was taken (gateway ms; a restored queue: the restart). */
    public long lastFrameAt() {
        return lastFrameAt;
    }

    /** The cards of the tasks the latest report lists, read at {@link #now()}. */
    @Override
    public List<? extends ScopeView> members() {
        return cards;
    }

    /** The key the queue's baselines are learned under, apart from every business's. */
    public static String baselineKey(String name) {
        return "queue/" + name;
    }

    /** What a checkpoint keeps of the queue: its windows. */
    ScopeImage image() {
        return new ScopeImage(ScopeImage.Kind.QUEUE, name, null, null, null, null, windows.images());
    }

    /** Takes back a checkpoint's windows, as heard at {@code at}; returns how many it could not take. */
    int restore(ScopeImage image, long at) {
        lastFrameAt = Math.max(lastFrameAt, at);
        return windows.restore(image.windows());
    }

    /** No frame has named it for longer than the grace period. */
    boolean expired(long at) {
        return at - lastFrameAt > FleetState.MEMBERSHIP_GRACE_MS;
    }

    /** Sets the evaluation time of its windows. */
    public QueueState at(long nowMs) {
        now = nowMs;
        windows.at(nowMs);
        for (CardState card : cards) {
            card.at(nowMs);
        }
        return this;
    }

    long retainedBytes() {
        return windows.retainedBytes();
    }

    @Override
    public long now() {
        return now;
    }

    @Override
    public String label(String key) {
        return key.equals("queue") ? name : null;
    }

    @Override
    public Map<String, String> identity() {
        return identity;
    }

    @Override
    public Series series(int seriesId) {
        return windows.holds(seriesId) ? windows.window(seriesId) : Series.EMPTY;
    }

    @Override
    public int countEvents(String kind, int code, long windowMs) {
        return 0;
    }

    @Override
    public List<String> distinctEvents(String kind, int code, long windowMs) {
        return List.of();
    }

    /** Milliseconds since the latest `sched` frame naming the queue. */
    @Override
    public long silentForMs() {
        return Math.max(0, now - lastFrameAt);
    }

    @Override
    public boolean allocated() {
        return false;
    }

    /** One period per scheduler report: {@code consecutive} counts reports, not the ticks between them. */
    @Override
    public long period() {
        return reports;
    }

    /** What is normal for this queue, learned from its own reports (queues belong to no business). */
    /** The key its rules' baselines are learned under: the queue's own. */
    public String baselineKey() {
        return baselineKey(name);
    }

    @Override
    public double baseline(int seriesId, BaselineStat stat, double k) {
        return fleet.baseline(baselineKey(name), seriesId, stat, k, now, series(seriesId));
    }
}
