package io.gpuwatch.gateway.state;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.SchedTask;
import io.gpuwatch.rules.metric.DerivedMetric;
import io.gpuwatch.rules.metric.SeriesSpec;
import io.gpuwatch.rules.scope.BaselineStat;
import io.gpuwatch.rules.scope.PeerGroup;
import io.gpuwatch.rules.scope.ScopeView;
import io.gpuwatch.rules.scope.Series;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One task, read by task-scope rules: its application readings in windows of its own, and the cards attributed to
 * it (by a process on the card or by a scheduler listing) pooled. A card leaves once its latest attribution is
 * older than {@link FleetState#MEMBERSHIP_GRACE_MS}.
 */
public final class TaskState extends CardPool {
    private final FleetState fleet;
    private final String name;
    /**
     * When each member card was last attributed, updated in place: a fresh value per card per sample written into
     * this long-lived map would be one more old-to-young reference for the young collector to scan, every second.
     */
    private final Map<CardState, long[]> attributed = new IdentityHashMap<>();
    private long prunedAt = Long.MIN_VALUE;
    private Map<String, String> identity;
    private final String instanceKey;
    private String business;
    private String owner;
    private String queue;
    /** What the latest scheduler listing said the task requested, runs and how it ended (null: not said). */
    private Integer requestedCards;
    private Long requestedMemBytes;
    private SchedTask.Model model;
    private String outcome;
    private boolean pending;
    /** The latest app frame's values by metric ordinal (NaN where absent), for the console. */
    private final double[] appLatest = nanArray(Metric.count());
    /**
     * Peer groups by series, window and members compared, with the instant each was computed at: a few per task,
     * found by a scan of primitive keys, since a hashed key built per {@code peers(…)} read cost more than the read.
     */
    private final List<Peers> peers = new ArrayList<>(2);

    /** The task's replicas by node name: what each node relays of the task's application readings. */
    private final Map<String, ReplicaState> replicas = new LinkedHashMap<>();
    private List<SeriesSpec> specs = List.of();

    /** Which members a peer group compares. */
    private enum Among { CARDS, NODES, REPLICAS }

    /**
     * A peer group, of a series' mean over a window among the task's cards, nodes or replicas, and the instant it
     * was computed at; replaced in place when it is computed again.
     */
    private static final class Peers {
        final int seriesId;
        final long windowMs;
        final Among among;
        long at;
        PeerGroup<ScopeView> group;

        Peers(int seriesId, long windowMs, Among among) {
            this.seriesId = seriesId;
            this.windowMs = windowMs;
            this.among = among;
        }
    }

    TaskState(FleetState fleet, String name) {
        this.fleet = fleet;
        this.name = name;
        this.identity = Map.of("task", name);
        // built once: engines look alerts up by it on every evaluation
        this.instanceKey = key(name);
    }

    public String name() {
        return name;
    }

    /** The business the task belongs to, as its latest app frame, listing or process said; null when unknown. */
    public String business() {
        return business;
    }

    /** The key a rule engine tracks this task's alert states under. */
    public String instanceKey() {
        return instanceKey;
    }

    /** The engine key of the task named {@code name}. */
    public static String key(String name) {
        return "task/" + name;
    }

    /** Who owns the task, as its latest listing or process said; null when unknown. */
    public String owner() {
        return owner;
    }

    /** The scheduler queue that last listed the task; null when none did. */
    public String queue() {
        return queue;
    }

    /** The latest application reading of {@code m}; NaN before any, or for a metric that is not an app one. */
    public double appLatest(Metric m) {
        return appLatest[m.ordinal()];
    }

    private static double[] nanArray(int n) {
        double[] a = new double[n];
        Arrays.fill(a, Double.NaN);
        return a;
    }

    /** The cards that belong to the task now. */
    public List<CardState> cards() {
        return Collections.unmodifiableList(members);
    }

    @Override
    void useSeries(List<SeriesSpec> specs) {
        super.useSeries(specs);
        this.specs = specs;
        for (ReplicaState r : replicas.values()) {
            r.useSeries(specs);
        }
        // series ids are the new rule set's
        peers.clear();
    }

    /** The card runs a process of this task, or a scheduler lists it for the task, at {@code ts}. */
    void attribute(CardState card, long ts, String owner, String business) {
        long[] last = attributed.get(card);
        if (last == null) {
            attributed.put(card, new long[] {ts});
            members.add(card);
        } else {
            last[0] = ts;
        }
        heard(ts, owner, business);
    }

    /** Application readings of the task at {@code ts}, and what is derived from them at that instant. */
    void app(long ts, MetricValues values, String business) {
        heard(ts, null, business);
        for (int i = 0; i < appLatest.length; i++) {
            appLatest[i] = Metric.of(i).source() == Metric.Source.APP ? values.get(i) : Double.NaN;
        }
        appendApp(ts, values);
    }

    /** The replica {@code node} serves, made on its first app frame. */
    ReplicaState replica(NodeState node) {
        ReplicaState r = replicas.get(node.name());
        if (r == null || r.node() != node) {
            r = new ReplicaState(this, node);
            r.useSeries(specs);
            replicas.put(node.name(), r);
        }
        return r;
    }

    /** The replica the node named {@code node} serves; null when it relays nothing of this task. */
    public ReplicaState replicaOn(String node) {
        return replicas.get(node);
    }

    /** The task's replicas now. */
    public Collection<ReplicaState> replicas() {
        return Collections.unmodifiableCollection(replicas.values());
    }

    /** Replicas without an app frame for longer than the grace period leave; {@code gone} gets each one's key. */
    void expireReplicas(long at, Consumer<String> gone) {
        replicas.values().removeIf(r -> {
            boolean expired = r.expired(at);
            if (expired) {
                gone.accept(r.instanceKey());
            }
            return expired;
        });
    }

    /** Every replica leaves with its task. */
    void retireReplicas(Consumer<String> gone) {
        replicas.values().forEach(r -> gone.accept(r.instanceKey()));
        replicas.clear();
    }

    /** The value the latest app frame derived for series {@code id} (NaN when none). */
    double derived(int id) {
        return id >= 0 && id < derived.length ? derived[id] : Double.NaN;
    }

    /** What a checkpoint keeps of the task itself; its replicas are imaged apart. */
    ScopeImage image() {
        return new ScopeImage(ScopeImage.Kind.TASK, name, null, owner, business, queue, app.images());
    }

    /**
     * Takes back what a checkpoint held, as heard at {@code at} (the restart: silence and expiry count from there);
     * returns how many windows it could not take.
     */
    int restore(ScopeImage image, long at) {
        heard(at, image.owner(), image.business());
        if (image.queue() != null) {
            queue = image.queue();
        }
        return app.restore(image.windows());
    }

    /**
     * A scheduler frame listed the task in {@code queue}. Returns the outcome the listing newly reports (null
     * while the task runs, and for a listing that repeats the outcome the previous one gave), so each run that
     * ends counts once however long the scheduler keeps listing it.
     */
    String scheduled(long ts, String queue, SchedTask listing) {
        this.queue = queue;
        heard(ts, listing.owner(), listing.business());
        requestedCards = listing.requestedCards();
        requestedMemBytes = listing.requestedMemBytes();
        if (listing.model() != null) {
            model = listing.model();
        }
        pending = "pending".equalsIgnoreCase(listing.state());
        String previous = outcome;
        outcome = outcomeOf(listing);
        return outcome != null && !outcome.equals(previous) ? outcome : null;
    }

    /** Scheduler states that end a task, and the outcome each means, for listings without {@code outcome}. */
    private static final Map<String, String> ENDING_STATES = Map.ofEntries(
            Map.entry("completed", "succeeded"), Map.entry("succeeded", "succeeded"),
            Map.entry("failed", "failed"), Map.entry("timeout", "failed"), Map.entry("out_of_memory", "failed"),
            Map.entry("node_fail", "failed"), Map.entry("boot_fail", "failed"), Map.entry("deadline", "failed"),
            Map.entry("cancelled", "cancelled"), Map.entry("preempted", "preempted"));

    /** The listing's outcome, else the one its state implies; null while the task has not ended. */
    static String outcomeOf(SchedTask listing) {
        if (listing.outcome() != null) {
            return listing.outcome();
        }
        return listing.state() == null ? null : ENDING_STATES.get(listing.state().toLowerCase(Locale.ROOT));
    }

    /** The model the latest listing that named one declared; null when none did. */
    public SchedTask.Model model() {
        return model;
    }

    /**
     * Cards the latest listing requested, while the task holds what it was given; null when it said nothing, and
     * while it waits or once it has ended: a request the scheduler has not granted, or no longer holds, wastes
     * nothing of the task's.
     */
    public Integer requestedCards() {
        return pending || outcome != null ? null : requestedCards;
    }

    /** Cards the latest listing requested while it says the task waits; null while it runs, has ended or said none. */
    public Integer waitingForCards() {
        return pending && outcome == null ? requestedCards : null;
    }

    /** Device memory the latest listing requested, likewise. */
    public Long requestedMemBytes() {
        return pending || outcome != null ? null : requestedMemBytes;
    }

    @Override
    public double flopsPerToken() {
        return model == null ? Double.NaN : model.flopsPerToken();
    }

    @Override
    public double flopsPerSample() {
        return model == null || model.flopsPerSample() == null ? Double.NaN : model.flopsPerSample();
    }

    @Override
    public double peakFlops() {
        return model == null ? Double.NaN : peakFlops(model.precision());
    }

    /** Cards of the task computing now (gpuUtil at least the idle threshold). */
    public int busyCards() {
        int n = 0;
        for (CardState card : members) {
            if (DerivedMetric.computing(card.latest(Metric.GPU_UTIL))) {
                n++;
            }
        }
        return n;
    }

    /** Device memory in use on the task's cards now; NaN while no card reports it. */
    public double memUsedBytes() {
        double sum = Double.NaN;
        for (CardState card : members) {
            double m = card.latest(Metric.MEM_USED_BYTES);
            if (!Double.isNaN(m)) {
                sum = (Double.isNaN(sum) ? 0 : sum) + m;
            }
        }
        return sum;
    }

    @Override
    public double requestedVsUsed() {
        Integer r = requestedCards();
        return r == null || r <= 0 ? Double.NaN : (double) busyCards() / r;
    }

    @Override
    public double memRequestedVsUsed() {
        Long r = requestedMemBytes();
        return r == null || r <= 0 ? Double.NaN : memUsedBytes() / r;
    }

    @Override
    public int tasksEnded(long windowMs) {
        return fleet.outcomes().count("task/" + name, now, windowMs)[0];
    }

    @Override
    public double taskSuccessRate(long windowMs) {
        return TaskOutcomes.rate(fleet.outcomes().count("task/" + name, now, windowMs));
    }

    private void heard(long ts, String newOwner, String newBusiness) {
        lastHeardAt = Math.max(lastHeardAt, ts);
        // an equal name keeps the one held: each sample decodes its own copy
        if (newOwner != null && !newOwner.equals(owner)) {
            owner = newOwner;
        }
        if (newBusiness != null && !newBusiness.equals(business)) {
            business = newBusiness;
            Map<String, String> id = new LinkedHashMap<>();
            id.put("task", name);
            id.put("business", business);
            identity = Map.copyOf(id);
        }
    }

    /**
     * Cards whose latest attribution is older than the grace period leave; a card dropped by its node too. Once
     * per instant: one tick reaches a task through expiry, its own rules and its business, and pruning it each
     * time was a tenth of a 16,384-card gateway's CPU; a card a node drops within that same millisecond leaves
     * at the next one.
     */
    void prune(long at) {
        if (attributed.isEmpty() || at == prunedAt) {
            return;
        }
        prunedAt = at;
        boolean left = attributed.entrySet().removeIf(e -> at - e.getValue()[0] > FleetState.MEMBERSHIP_GRACE_MS
                || e.getKey().isDropped());
        if (left) {
            members.removeIf(c -> !attributed.containsKey(c));
        }
    }

    /** Without cards and without a word about it for longer than the grace period. */
    boolean expired(long at) {
        return members.isEmpty() && at - lastHeardAt > FleetState.MEMBERSHIP_GRACE_MS;
    }

    /** Sets the evaluation time for the task, its windows and its cards, after letting stale cards leave. */
    public TaskState at(long nowMs) {
        prune(nowMs);
        this.now = nowMs;
        app.at(nowMs);
        for (int i = 0; i < members.size(); i++) {
            members.get(i).at(nowMs);
        }
        return this;
    }

    long retainedBytes() {
        long total = app.retainedBytes();
        for (ReplicaState r : replicas.values()) {
            total += r.retainedBytes();
        }
        return total;
    }

    /**
     * The task's cards compared on their mean of series {@code id} over {@code windowMs}, as of {@code at}. Computed
     * once per {@link #PEERS_FRESH_MS} for all the cards (a tick's worth), not once per card that asks: a
     * 1,000-card task would otherwise read a million windows per tick.
     */
    PeerGroup<ScopeView> cardPeers(int id, long windowMs, long at) {
        return peerGroup(id, windowMs, Among.CARDS, at);
    }

    /** The task's nodes compared on the mean, over each node's cards of the task, of their card figures. */
    PeerGroup<ScopeView> nodePeers(int id, long windowMs, long at) {
        return peerGroup(id, windowMs, Among.NODES, at);
    }

    /** The task's replicas compared on their mean of series {@code id} over {@code windowMs}. */
    PeerGroup<ScopeView> replicaPeers(int id, long windowMs, long at) {
        return peerGroup(id, windowMs, Among.REPLICAS, at);
    }

    /** How old a peer group may be before it is computed again: one tick. */
    static final long PEERS_FRESH_MS = 1_000;

    private PeerGroup<ScopeView> peerGroup(int seriesId, long windowMs, Among among, long at) {
        Peers held = null;
        for (int i = 0; i < peers.size(); i++) {
            Peers p = peers.get(i);
            if (p.seriesId == seriesId && p.windowMs == windowMs && p.among == among) {
                held = p;
                break;
            }
        }
        if (held != null && at >= held.at && at - held.at < PEERS_FRESH_MS) {
            return held.group;
        }
        prune(at);
        PeerGroup<ScopeView> group;
        if (among == Among.REPLICAS) {
            List<ScopeView> all = new ArrayList<>(replicas.values());
            double[] figures = new double[all.size()];
            for (int i = 0; i < figures.length; i++) {
                figures[i] = all.get(i).series(seriesId).avg(windowMs);
            }
            group = PeerGroup.of(all, figures);
        } else {
            double[] figures = new double[members.size()];
            for (int i = 0; i < figures.length; i++) {
                figures[i] = members.get(i).series(seriesId).avg(windowMs);
            }
            group = among == Among.NODES ? byNode(figures) : PeerGroup.of(members, figures);
        }
        if (held == null) {
            held = new Peers(seriesId, windowMs, among);
            peers.add(held);
        }
        held.at = at;
        held.group = group;
        return group;
    }

    /** Each node's mean of its cards' known figures. */
    private PeerGroup<ScopeView> byNode(double[] cardFigures) {
        Map<NodeState, double[]> sums = new LinkedHashMap<>();
        NodeState previous = null;
        double[] sum = null;
        for (int i = 0; i < cardFigures.length; i++) {
            if (!Double.isNaN(cardFigures[i])) {
                // a node's cards join together, so most cards add to the sum of the card before them
                NodeState node = members.get(i).node();
                if (node != previous) {
                    sum = sums.computeIfAbsent(node, n -> new double[2]);
                    previous = node;
                }
                sum[0] += cardFigures[i];
                sum[1]++;
            }
        }
        List<ScopeView> nodes = new ArrayList<>(sums.keySet());
        double[] figures = new double[nodes.size()];
        int i = 0;
        for (double[] total : sums.values()) {
            figures[i++] = total[0] / total[1];
        }
        return PeerGroup.of(nodes, figures);
    }

    @Override
    public String label(String key) {
        return switch (key) {
            case "task" -> name;
            case "owner" -> owner;
            case "business" -> business;
            case "queue" -> queue;
            default -> null;
        };
    }

    @Override
    public Map<String, String> identity() {
        return identity;
    }

    /** The business whose baselines the task's rules read; null while unknown. */
    public String baselineKey() {
        return business;
    }

    /** The baseline of the task's business, {@code series}' latest value measured against it (a replica's). */
    double baseline(int seriesId, BaselineStat stat, double k, long at, Series series) {
        return fleet.baseline(business, seriesId, stat, k, at, series);
    }

    /** The baseline of the task's business; unknown while the task's business is. */
    @Override
    public double baseline(int seriesId, BaselineStat stat, double k) {
        return fleet.baseline(business, seriesId, stat, k, now, series(seriesId));
    }

    static List<CardState> cardsOf(Collection<TaskState> tasks) {
        int expected = 0;
        for (TaskState t : tasks) {
            expected += t.members.size();
        }
        // sized once: growing it card by card to a business of 50,000 was most of the cost
        Map<CardState, Boolean> seen = new IdentityHashMap<>(expected);
        List<CardState> out = new ArrayList<>();
        for (TaskState t : tasks) {
            for (CardState c : t.members) {
                if (seen.put(c, Boolean.TRUE) == null) {
                    out.add(c);
                }
            }
        }
        return out;
    }
}
