package io.gpuwatch.gateway.state;

import io.gpuwatch.gateway.window.EventLog;
import io.gpuwatch.gateway.window.MetricWindow;
import io.gpuwatch.gateway.window.WindowShape;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.rules.metric.DerivedMetric;
import io.gpuwatch.rules.metric.SampleDerivation;
import io.gpuwatch.rules.metric.SeriesSpec;
import io.gpuwatch.rules.scope.BaselineStat;
import io.gpuwatch.rules.scope.PeerStat;
import io.gpuwatch.rules.scope.Reads;
import io.gpuwatch.rules.scope.ScopeView;
import io.gpuwatch.rules.scope.Series;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** One card's windows, events and attribution, read by card-scope rules; owned by the gateway's event loop. */
public final class CardState implements ScopeView {
    private final NodeState node;
    private final String uuid;
    private final Map<String, String> identity;
    private final String instanceKey;
    private final EventLog events;
    private CardInfo info;
    private Series[] seriesView = new Series[0];
    private MetricWindow[] windows = new MetricWindow[0];
    private double[] derived = new double[0];
    private List<SeriesSpec> specs = List.of();
    /** By window: the metric ordinal a raw card series reads, -1 for any other; and the derived card series. */
    private int[] rawOrdinals = new int[0];
    private int[] derivedIds = new int[0];
    /** By window: where its unit promises the samples lie (infinite where it promises nothing that way). */
    private double[] lows = new double[0];
    private double[] highs = new double[0];
    /** By window: its series' latest reading had no value, so its next one may resume it after a silence. */
    private boolean[] absent = new boolean[0];
    private SampleDerivation[] derivations = new SampleDerivation[0];
    /** The first process's attribution (its other fields are stale); null while the card runs none. */
    private ProcessInfo attribution;
    private long lastSampleAt;
    /** The latest time a reading was appended at, or a checkpoint's; MIN_VALUE before either. */
    private long appendedUpTo = Long.MIN_VALUE;
    /** The widest slot among the card's windows: two readings in one such slot may land in one window slot. */
    private long slotMs = WindowShape.DEFAULT_RESOLUTION_MS;
    private long now;
    private long windowsAt = Long.MIN_VALUE;
    private boolean dropped;
    /** The card metrics, which lead the protocol's list: the others never come in a card reading. */
    private static final int CARD_METRICS = cardMetrics();
    /** The latest reading of every card metric (NaN where absent), copied so no reading outlives its sample. */
    private final double[] latest = new double[CARD_METRICS];
    /** The gateway's time of arrival of the latest reading; MIN_VALUE before the first. */
    private long latestAt = Long.MIN_VALUE;
    /** Seconds the card spent allocated and idle since the gateway first saw it, over sample intervals. */
    private double idleSeconds;
    /** XID codes seen since the gateway started, with how often each; grown on the rare XID (never changed in place). */
    private int[] xidCodes = new int[0];
    private long[] xidCounts = new long[0];
    private int lastXid;
    private final CardTrail trail = new CardTrail();
    /** By series id, the node's change count when the series last moved; and when the latest event came. */
    private long[] moved = new long[0];
    private long eventsMoved;

    CardState(NodeState node, String uuid, CardInfo info, EventLog events) {
        this.node = node;
        this.uuid = uuid;
        this.info = info;
        this.events = events;
        this.identity = Map.of("node", node.name(), "uuid", uuid);
        // built once: engines look alerts up by it on every evaluation
        this.instanceKey = key(node.name(), uuid);
        Arrays.fill(latest, Double.NaN);
    }

    public String uuid() {
        return uuid;
    }

    public NodeState node() {
        return node;
    }

    /** The key a rule engine tracks this card's alert states under. */
    public String instanceKey() {
        return instanceKey;
    }

    /** The engine key of card {@code uuid} of {@code node}. */
    public static String key(String node, String uuid) {
        return "card/" + node + "/" + uuid;
    }

    /** The gateway's time of arrival of the latest reading; {@link Long#MIN_VALUE} before the first. */
    public long latestAt() {
        return latestAt;
    }

    public long lastSampleAt() {
        return lastSampleAt;
    }

    /** Its node's hello no longer lists it: the tasks it belonged to let it go at their next pruning. */
    void dropped() {
        dropped = true;
    }

    /** True once its node has dropped it. */
    boolean isDropped() {
        return dropped;
    }

    void info(CardInfo info) {
        this.info = info;
    }

    /** Gives the card one window per series the loaded rules read, keeping the data of series that stay. */
    void useSeries(List<SeriesSpec> next) {
        MetricWindow[] nextWindows = new MetricWindow[next.size()];
        for (SeriesSpec spec : next) {
            MetricWindow kept = null;
            for (int i = 0; i < specs.size(); i++) {
                SeriesSpec old = specs.get(i);
                if (old.name().equals(spec.name()) && old.windowMs() >= spec.windowMs()
                        && (windows[i].keepsTransitions() || !spec.transitions())) {
                    kept = windows[i];
                }
            }
            nextWindows[spec.id()] = kept != null ? kept
                    : new MetricWindow(FleetState.shapeFor(spec), spec.transitions());
        }
        this.specs = List.copyOf(next);
        this.windows = nextWindows;
        slotMs = WindowShape.DEFAULT_RESOLUTION_MS;
        for (MetricWindow w : nextWindows) {
            slotMs = Math.max(slotMs, w.shape().resolutionMs());
        }
        this.moved = new long[nextWindows.length];
        // what append reads of each spec, once per rule set rather than per window per reading
        rawOrdinals = new int[nextWindows.length];
        lows = new double[nextWindows.length];
        highs = new double[nextWindows.length];
        // a kept window may have gone without samples: its next one is looked at
        absent = new boolean[nextWindows.length];
        Arrays.fill(absent, true);
        List<Integer> derivedCard = new ArrayList<>();
        for (int i = 0; i < nextWindows.length; i++) {
            SeriesSpec spec = specs.get(i);
            lows[i] = spec.range().low();
            highs[i] = spec.range().high();
            rawOrdinals[i] = spec.metric() != null ? spec.metric().ordinal() : -1;
            if (spec.derivation() != null && spec.source() == Metric.Source.CARD) {
                derivedCard.add(i);
            }
        }
        derivedIds = derivedCard.stream().mapToInt(Integer::intValue).toArray();
        derivations = new SampleDerivation[derivedIds.length];
        for (int k = 0; k < derivedIds.length; k++) {
            derivations[k] = specs.get(derivedIds[k]).derivation();
        }
        this.derived = new double[nextWindows.length];
        this.seriesView = nextWindows.clone();
        // new windows have not been moved to the card's instant yet
        windowsAt = Long.MIN_VALUE;
    }

    /** Appends one reading: raw series first, then the series derived from them at the same instant. */
    void append(long ts, CardReading reading) {
        // a reading at or behind the newest slot's may replace a sample; every window of a card shares its slots;
        // one long after the newest resumes a silent card
        if (appendedUpTo != Long.MIN_VALUE && (Math.floorDiv(ts, slotMs) <= Math.floorDiv(appendedUpTo, slotMs)
                || ts - appendedUpTo > Series.RESUME_AFTER_MS)) {
            node.unforeseenSample();
        }
        appendedUpTo = Math.max(appendedUpTo, ts);
        lastSampleAt = ts;
        ProcessInfo first = reading.processes().isEmpty() ? null : reading.processes().get(0);
        // the same attribution keeps the one held: a new one per card per sample, referenced from this long-lived
        // card, is what the young collector spent most of its pauses scanning at 50,000 cards
        if (first == null || attribution == null || !sameLabels(first, attribution)) {
            if (first != null || attribution != null) {
                node.attributionChanged();
            }
            attribution = first;
        }
        MetricValues values = reading.values();
        for (int i = 0; i < windows.length; i++) {
            int ordinal = rawOrdinals[i];
            if (ordinal >= 0) {
                double v = values.get(ordinal);
                unforeseen(i, ts, v);
                if (windows[i].append(ts, v)) {
                    moved[i] = node.seriesMoved();
                }
            }
        }
        at(ts);
        // a card that sent no readings this time has nothing to derive from
        boolean silent = values.isEmpty();
        for (int k = 0; k < derivedIds.length; k++) {
            int i = derivedIds[k];
            double v = silent ? Double.NaN : derivations[k].derive(this);
            derived[i] = v;
            unforeseen(i, ts, v);
            if (windows[i].append(ts, v)) {
                moved[i] = node.seriesMoved();
            }
            windows[i].at(ts);
        }
    }

    /**
     * Tells the node of a sample no sleeping rule could foresee: outside its unit's range, or the first after its
     * series was silent for over {@link Series#RESUME_AFTER_MS} (a silent card is caught once per reading in
     * {@link #append}; a series is looked at here only on its first sample after going without).
     */
    private void unforeseen(int i, long ts, double v) {
        if (Double.isNaN(v)) {
            absent[i] = true;
            return;
        }
        boolean resumed = false;
        if (absent[i]) {
            absent[i] = false;
            resumed = windows[i].resumes(ts);
        }
        if (resumed || v < lows[i] || v > highs[i]) {
            node.unforeseenSample();
        }
    }

    private static boolean sameLabels(ProcessInfo a, ProcessInfo b) {
        return Objects.equals(a.task(), b.task()) && Objects.equals(a.owner(), b.owner())
                && Objects.equals(a.business(), b.business());
    }

    private static int cardMetrics() {
        int n = 0;
        while (n < Metric.count() && Metric.of(n).source() == Metric.Source.CARD) {
            n++;
        }
        return n;
    }

    /**
     * Keeps a reading's values as the card's latest, received at {@code at} (gateway time), and adds the interval
     * since the previous reading to the idle time when the card was idle over it.
     */
    void latest(long at, MetricValues values) {
        if (latestAt != Long.MIN_VALUE && at > latestAt
                && DerivedMetric.idle(latest[Metric.GPU_UTIL.ordinal()], allocated()) == 1) {
            idleSeconds += (at - latestAt) / 1000.0;
        }
        for (int i = 0; i < latest.length; i++) {
            latest[i] = values.get(i);
        }
        latestAt = at;
        trail.add(at, latest);
    }

    /** The card's events still held (XIDs and others), oldest first. */
    public List<EventLog.Entry> recentEvents() {
        return events.entries();
    }

    /** The card's facts from its node's hello; null when a sample named a card hello did not list. */
    public CardInfo info() {
        return info;
    }

    /** The first process's task, owner and business; null while the card runs none. */
    public ProcessInfo attribution() {
        return attribution;
    }

    /** The latest reading of card metric {@code m} (NaN when absent). */
    public double latest(Metric m) {
        return m.ordinal() < latest.length ? latest[m.ordinal()] : Double.NaN;
    }

    /** Seconds spent allocated and idle since the gateway first saw the card. */
    public double idleSeconds() {
        return idleSeconds;
    }

    /** The card's last hour, for the console's charts. */
    public CardTrail trail() {
        return trail;
    }

    void event(long ts, String kind, int code) {
        events.add(ts, kind, code);
        eventsMoved = node.eventMoved();
        if (kind.equals("xid") && code >= 0) {
            countXid(code);
        }
    }

    private void countXid(int code) {
        lastXid = code;
        for (int i = 0; i < xidCodes.length; i++) {
            if (xidCodes[i] == code) {
                xidCounts[i]++;
                return;
            }
        }
        xidCodes = Arrays.copyOf(xidCodes, xidCodes.length + 1);
        xidCounts = Arrays.copyOf(xidCounts, xidCounts.length + 1);
        xidCodes[xidCodes.length - 1] = code;
        xidCounts[xidCounts.length - 1] = 1;
    }

    /** What a scrape exports of this card now, copied so it can be formatted off the event loop. */
    public CardSnapshot snapshot() {
        return new CardSnapshot(node.name(), node.driver(), uuid, info, attribution, latest.clone(), latestAt,
                idleSeconds, xidCodes, xidCounts.length == 0 ? xidCounts : xidCounts.clone(), lastXid);
    }

    /** What this card holds, for a checkpoint, its windows (copies) only when {@code withWindows}. */
    CardImage image(boolean withWindows) {
        List<CardImage.Window> images = new ArrayList<>(withWindows ? windows.length : 0);
        for (int i = 0; withWindows && i < windows.length; i++) {
            MetricWindow w = windows[i];
            images.add(CardImage.Window.of(specs.get(i).name(), w));
        }
        return new CardImage(uuid, lastSampleAt, attribution == null ? null : attribution.task(),
                attribution == null ? null : attribution.owner(), attribution == null ? null : attribution.business(),
                events.entries(), images);
    }

    /**
     * Takes back what a checkpoint held of this card: its attribution, events and the windows of series that are
     * still read with the same shape; returns how many windows it could not take (their series changed).
     */
    int restore(CardImage image) {
        lastSampleAt = Math.max(lastSampleAt, image.lastSampleAt());
        appendedUpTo = Math.max(appendedUpTo, image.lastSampleAt());
        if (image.task() != null || image.owner() != null || image.business() != null) {
            attribution = new ProcessInfo(0, null, image.task(), image.owner(), image.business());
            node.attributionChanged();
        }
        for (EventLog.Entry e : image.events()) {
            events.add(e.ts(), e.kind(), e.code());
        }
        int skipped = 0;
        for (CardImage.Window w : image.windows()) {
            boolean taken = false;
            for (int i = 0; i < windows.length && !taken; i++) {
                taken = w.restoreInto(specs.get(i).name(), windows[i]);
            }
            skipped += taken ? 0 : 1;
        }
        windowsAt = Long.MIN_VALUE;
        Arrays.fill(absent, true);
        return skipped;
    }

    /** Sets the evaluation time every window function is relative to. */
    public CardState at(long nowMs) {
        // a tick reaches a card through its node, itself, its task and its business: the windows move once
        if (nowMs == now && windowsAt == nowMs) {
            return this;
        }
        this.now = nowMs;
        this.windowsAt = nowMs;
        for (MetricWindow w : windows) {
            w.at(nowMs);
        }
        events.at(nowMs);
        return this;
    }

    /** Bytes held by this card's windows and event log. */
    public long retainedBytes() {
        long total = events.retainedBytes();
        for (MetricWindow w : windows) {
            total += w.retainedBytes() + w.runningBytes();
        }
        return total;
    }

    @Override
    public long now() {
        return now;
    }

    @Override
    public String label(String key) {
        switch (key) {
            case "node":
                return node.name();
            case "card.uuid":
                return uuid;
            case "card.name":
                return info == null || info.name() == null ? uuid : info.name();
            case "card.index":
                return info == null ? null : Integer.toString(info.index());
            case "task":
                return attribution == null ? null : attribution.task();
            case "owner":
                return attribution == null ? null : attribution.owner();
            case "business":
                return attribution == null ? null : attribution.business();
            default:
                return node.label(key);
        }
    }

    @Override
    public Map<String, String> identity() {
        return identity;
    }

    /** The node's hello labels, and the task, owner and business of the card's first process when it runs one. */
    @Override
    public Map<String, String> context() {
        Map<String, String> out = new LinkedHashMap<>(node.context());
        if (attribution != null) {
            putIfSet(out, "task", attribution.task());
            putIfSet(out, "owner", attribution.owner());
            putIfSet(out, "business", attribution.business());
        }
        return out;
    }

    private static void putIfSet(Map<String, String> out, String name, String value) {
        if (value != null && !value.isEmpty()) {
            out.put(name, value);
        }
    }

    @Override
    public Series series(int seriesId) {
        return seriesId >= 0 && seriesId < seriesView.length ? seriesView[seriesId] : Series.EMPTY;
    }

    MetricWindow window(int seriesId) {
        return windows[seriesId];
    }

    /** The value the latest sample derived for series {@code id}; NaN when it derived none. */
    double derived(int id) {
        return derived[id];
    }

    @Override
    public int countEvents(String kind, int code, long windowMs) {
        return events.count(kind, code, windowMs);
    }

    /** Its node's: unforeseen samples of any of the node's cards, and changes of the cards as a whole. */
    @Override
    public long quietMark() {
        return node.quietMark();
    }

    /** What moved of the series and events read, and of the node's cards as a whole (a hello, a restore). */
    @Override
    public long changeMark(Reads reads) {
        long mark = node.cardsMark();
        long fresh = seriesMark(reads, now);
        return fresh == Long.MIN_VALUE ? fresh : Math.max(mark, fresh);
    }

    /**
     * The latest move of the series and events {@code reads} names; {@link Long#MIN_VALUE} when one of the series
     * is not fresh at {@code at} (see {@link MetricWindow#freshAt}): an equal reading could still change its windows.
     */
    long seriesMark(Reads reads, long at) {
        long mark = reads.events() ? eventsMoved : 0;
        for (int id : reads.series()) {
            if (id < moved.length) {
                if (!windows[id].freshAt(at, reads.freshMs())) {
                    return Long.MIN_VALUE;
                }
                mark = Math.max(mark, moved[id]);
            }
        }
        return mark;
    }

    @Override
    public List<String> distinctEvents(String kind, int code, long windowMs) {
        return events.distinct(kind, code, windowMs);
    }

    @Override
    public long silentForMs() {
        return node.silentForMs(now);
    }

    @Override
    public boolean allocated() {
        return attribution != null;
    }

    @Override
    public double cardHourPrice() {
        return node.fleet().cardHourPrice(label("business"), label("labels.pool"), label("card.name"));
    }

    /** Against the other cards of the card's task; none while it runs no task's process. */
    @Override
    public double peers(int seriesId, long windowMs, PeerStat stat) {
        TaskState task = node.fleet().taskNamed(label("task"));
        return task == null ? stat.none() : task.cardPeers(seriesId, windowMs, now).stat(this, stat);
    }

    /** The business whose baselines the card's rules read: its process's; null while it runs none. */
    public String baselineKey() {
        return label("business");
    }

    /** The baseline of the card's business: unknown while no process, or one without a business, runs on it. */
    @Override
    public double baseline(int seriesId, BaselineStat stat, double k) {
        return node.fleet().baseline(label("business"), seriesId, stat, k, now, series(seriesId));
    }
}
