package io.gpuwatch.gateway.state;

import io.gpuwatch.gateway.baseline.BaselineBook;
import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.window.EventLog;
import io.gpuwatch.gateway.window.WindowShape;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.protocol.SchedTask;
import io.gpuwatch.rules.metric.SeriesSpec;
import io.gpuwatch.rules.scope.BaselineStat;
import io.gpuwatch.rules.scope.Series;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Everything the gateway knows about the fleet now: nodes, their cards and the windows the loaded rules read.
 * Owned by one event loop; frames arrive already validated and de-duplicated.
 */
public final class FleetState {
    /** Events older than this are forgotten; the longest event window a rule may ask for. */
    static final long EVENT_HORIZON_MS = 24 * 3600_000L;
    static final int EVENT_CAPACITY = 256;

    /**
     * How long a card stays a member of a task after its latest attribution (a sample showing the task's process,
     * a scheduler listing), and how long a task, business or queue nobody mentions any more is kept.
     */
    public static final long MEMBERSHIP_GRACE_MS = 120_000;

    private final Map<String, NodeState> nodes = new LinkedHashMap<>();
    private final Map<String, TaskState> tasks = new LinkedHashMap<>();
    private final Map<String, BusinessState> businesses = new LinkedHashMap<>();
    private final Map<String, QueueState> queues = new LinkedHashMap<>();
    private List<SeriesSpec> series = List.of();
    private final BaselineBook baselines;
    private Set<String> baselinedNames = Set.of();
    /** Ids of the baselined series, by the frames that feed them. */
    private int[] cardBaselined = new int[0];
    private int[] appBaselined = new int[0];
    private int[] schedBaselined = new int[0];
    private Pricing pricing = Pricing.NONE;
    private final TaskOutcomes outcomes = new TaskOutcomes();

    /** A fleet learning baselines into a book of its own, with the default half-lives. */
    public FleetState() {
        this(BaselineBook.defaults());
    }

    /** A fleet learning baselines into {@code baselines}, which it then owns. */
    public FleetState(BaselineBook baselines) {
        this.baselines = baselines;
    }

    /** What the fleet learned per business; read and written on the fleet's thread only. */
    public BaselineBook baselines() {
        return baselines;
    }

    /** Learns from now on the baselines of these series (those the rules read through {@code baseline}). */
    public void useBaselines(Set<String> names) {
        this.baselinedNames = Set.copyOf(names);
        resolveBaselined();
    }

    private void resolveBaselined() {
        cardBaselined = baselinedOf(Metric.Source.CARD);
        appBaselined = baselinedOf(Metric.Source.APP);
        schedBaselined = baselinedOf(Metric.Source.SCHED);
    }

    private int[] baselinedOf(Metric.Source source) {
        return series.stream().filter(s -> s.source() == source && baselinedNames.contains(s.name()))
                .mapToInt(SeriesSpec::id).toArray();
    }

    /** Prices cards from now on; {@link Pricing#NONE} leaves every price unknown. */
    public void usePricing(Pricing next) {
        this.pricing = next;
    }

    /** The pricing cards are priced with now. */
    public Pricing pricing() {
        return pricing;
    }

    /** What an hour of a card named {@code cardName} of a node in {@code pool} costs {@code business}; NaN unpriced. */
    public double cardHourPrice(String business, String pool, String cardName) {
        return pricing.perCardHour(business, pool, cardName);
    }

    /** Switches to the series of a new rule set; windows of series that stay keep their data. */
    public void useSeries(List<SeriesSpec> next) {
        this.series = List.copyOf(next);
        resolveBaselined();
        for (NodeState node : nodes.values()) {
            node.useSeries(series);
        }
        tasks.values().forEach(t -> t.useSeries(series));
        businesses.values().forEach(b -> b.useSeries(series));
        queues.values().forEach(q -> q.useSeries(series));
    }

    List<SeriesSpec> series() {
        return series;
    }

    static WindowShape shapeFor(SeriesSpec spec) {
        return WindowShape.forWindow(spec.windowMs());
    }

    EventLog newEventLog() {
        return new EventLog(EVENT_CAPACITY, EVENT_HORIZON_MS);
    }

    public Collection<NodeState> nodes() {
        return Collections.unmodifiableCollection(nodes.values());
    }

    public NodeState node(String name) {
        return nodes.get(name);
    }

    public int cardCount() {
        int n = 0;
        for (NodeState node : nodes.values()) {
            n += node.cards().size();
        }
        return n;
    }

    /**
     * The cards a scrape exports at {@code now}: those of connected nodes with a reading received within
     * {@code staleAfterMs}. A lost node's cards, or a card that stopped reporting, drop out, so their series go
     * stale in Prometheus instead of repeating an old value.
     */
    public List<CardSnapshot> snapshot(long now, long staleAfterMs) {
        List<CardSnapshot> out = new ArrayList<>();
        for (NodeState node : nodes.values()) {
            if (!node.connected()) {
                continue;
            }
            for (CardState card : node.cards()) {
                if (card.latestAt() != Long.MIN_VALUE && now - card.latestAt() <= staleAfterMs) {
                    out.add(card.snapshot());
                }
            }
        }
        return out;
    }

    /** A node said hello: it is a member now, with the cards it listed. */
    public NodeState hello(Hello hello, long at) {
        NodeState node = nodes.get(hello.node());
        if (node == null) {
            node = new NodeState(this, hello.node(), newEventLog());
            node.useSeries(series);
            nodes.put(hello.node(), node);
        }
        node.hello(hello, at);
        return node;
    }

    /**
     * What the fleet holds of {@code node} now, its cards' windows only when {@code withWindows}, and up to which
     * seq: every frame taken when {@code caughtUp} (no sample waits to be windowed), else every sample windowed;
     * null for a node it does not know.
     */
    public NodeImage image(String node, boolean withWindows, boolean caughtUp) {
        NodeState n = nodes.get(node);
        return n == null ? null : n.image(withWindows, caughtUp);
    }

    /** A frame of the node of this seq, neither a sample nor an event, was taken. */
    public void taken(String node, long seq) {
        NodeState n = nodes.get(node);
        if (n != null) {
            n.taken(seq);
        }
    }

    /**
     * Takes back a node a checkpoint held, before its probe connects again: it is a member with its cards,
     * windows and events, silent since its last frame, less {@code absentMs} (the time the gateway was away since
     * the checkpoint) until {@code absentUntil} or until it is heard. A node already known (its probe was quicker)
     * is left as it is. Returns how many card windows could not be taken because the rules now read another series.
     */
    public int restore(NodeImage image, long absentMs, long absentUntil) {
        if (nodes.containsKey(image.name())) {
            return 0;
        }
        NodeState node = new NodeState(this, image.name(), newEventLog());
        node.useSeries(series);
        nodes.put(image.name(), node);
        if (image.hello() != null) {
            node.hello(image.hello(), image.lastFrameAt());
        }
        return node.restore(image, absentMs, absentUntil);
    }

    /**
     * Lets go of a node another gateway of the cluster now evaluates, so nothing here goes on counting its
     * silence. Its cards stay members of their tasks until their attribution ages out, as a card that stops
     * sending does: dropped at once, a task's alert would resolve here the moment its node moved, though the
     * task's condition still holds on the peer. Returns the node, or null when unknown.
     */
    public NodeState forget(String node) {
        return nodes.remove(node);
    }

    /** The node's connection closed; it stays a member, and silence counts from its last frame. */
    public void disconnected(String node) {
        NodeState n = nodes.get(node);
        if (n != null) {
            n.disconnected();
        }
    }

    /**
     * Appends a sample's readings; {@code at} is the gateway's time of arrival. A producer clock ahead of the
     * gateway is clamped to it, so windows never hold samples from the future.
     */
    public void sample(String node, Sample sample, long at, Consumer<CardState> touched) {
        NodeState n = nodes.get(node);
        if (n == null) {
            return;
        }
        n.heard(at);
        n.sampleTaken(sample.seq());
        long ts = Math.min(sample.ts(), at);
        if (at - ts > Series.ON_TIME_MS) {
            // a backlog: sleeping rules assumed every sample to come would be on time
            n.unforeseenSample();
        }
        List<CardReading> readings = sample.cards();
        for (int i = 0; i < readings.size(); i++) {
            CardReading reading = readings.get(i);
            CardState card = n.cardAt(i, reading.uuid());
            // before append, which takes the new attribution: idle time counts the interval the old one held
            card.latest(at, reading.values());
            card.append(ts, reading);
            learn(card, ts, reading);
            List<ProcessInfo> processes = reading.processes();
            for (int p = 0; p < processes.size(); p++) {
                ProcessInfo process = processes.get(p);
                if (process.task() != null) {
                    task(process.task()).attribute(card, ts, process.owner(), process.business());
                }
            }
            touched.accept(card);
        }
    }

    /** Application readings of a task, relayed by {@code node}; returns the task. */
    public TaskState app(String node, App app, long at) {
        heard(node, at);
        TaskState t = task(app.task());
        long ts = Math.min(app.ts(), at);
        NodeState relay = nodes.get(node);
        if (relay != null) {
            t.replica(relay).app(ts, app.values());
        }
        t.app(ts, app.values(), app.business());
        if (t.business() != null) {
            for (int id : appBaselined) {
                SeriesSpec spec = series.get(id);
                double v = spec.metric() != null ? app.values().get(spec.metric()) : t.derived(id);
                baselines.observe(t.business(), spec.name(), ts, v);
            }
        }
        return t;
    }

    /**
     * A scheduler's view of a queue, relayed by {@code node}: its readings, and the tasks it lists with their
     * cards, which thereby belong to those tasks. Returns the queue; {@code listed} gets each task it names.
     */
    public QueueState sched(String node, Sched sched, long at, Consumer<TaskState> listed) {
        heard(node, at);
        long ts = Math.min(sched.ts(), at);
        QueueState q = queueFor(sched.queue());
        // the tasks first: the queue's derived metrics read the cards they hold
        List<TaskState> tasks = new ArrayList<>(sched.tasks().size());
        for (SchedTask st : sched.tasks()) {
            TaskState t = task(st.task());
            String ended = t.scheduled(ts, sched.queue(), st);
            if ("succeeded".equals(ended) || "failed".equals(ended)) {
                String business = t.business();
                String owner = t.owner();
                outcomes.ended(ts, ended.equals("succeeded"), "task/" + t.name(),
                        business == null ? null : "business/" + business, owner == null ? null : "owner/" + owner);
            }
            for (String uuid : st.cards()) {
                CardState card = cardByUuid(uuid);
                if (card != null) {
                    t.attribute(card, ts, st.owner(), st.business());
                }
            }
            tasks.add(t);
        }
        q.append(ts, sched.values(), tasks);
        for (int id : schedBaselined) {
            SeriesSpec spec = series.get(id);
            baselines.observe(QueueState.baselineKey(q.name()), spec.name(), ts, sched.values().get(spec.metric()));
        }
        tasks.forEach(listed);
        return q;
    }

    private QueueState queueFor(String name) {
        QueueState q = queues.get(name);
        if (q == null) {
            q = new QueueState(this, name);
            q.useSeries(series);
            queues.put(name, q);
        }
        return q;
    }

    /** What a checkpoint keeps of every task, replica and queue: whom each belongs to, and its own windows. */
    public List<ScopeImage> scopeImages() {
        List<ScopeImage> out = new ArrayList<>();
        for (TaskState t : tasks.values()) {
            out.add(t.image());
            for (ReplicaState r : t.replicas()) {
                out.add(r.image());
            }
        }
        for (QueueState q : queues.values()) {
            out.add(q.image());
        }
        return out;
    }

    /**
     * Takes back a task, replica or queue a checkpoint held, as heard at {@code at}, the restart; a replica after
     * its node. Returns how many windows it could not take (their series changed, or the replica's node is gone).
     */
    public int restore(ScopeImage image, long at) {
        return switch (image.kind()) {
            case TASK -> task(image.name()).restore(image, at);
            case REPLICA -> {
                NodeState n = nodes.get(image.node());
                yield n == null ? image.windows().size() : task(image.name()).replica(n).restore(image, at);
            }
            case QUEUE -> queueFor(image.name()).restore(image, at);
        };
    }

    /** How the tasks of the last day ended, as listings reported it. */
    TaskOutcomes outcomes() {
        return outcomes;
    }

    /**
     * {@code [ended, succeeded]}: the tasks of {@code owner} that ended succeeded or failed in the {@code windowMs}
     * before {@code at}, for digests (owners have no scope of their own).
     */
    public int[] ownerOutcomes(String owner, long at, long windowMs) {
        return outcomes.count("owner/" + owner, at, windowMs);
    }

    /** The businesses ({@code business/}) or owners ({@code owner/}) with task outcomes of the last day. */
    public List<String> outcomeNames(String prefix) {
        return outcomes.names(prefix);
    }

    /** {@code [ended, succeeded]} of the tasks of {@code business}, likewise. */
    public int[] businessOutcomes(String business, long at, long windowMs) {
        return outcomes.count("business/" + business, at, windowMs);
    }

    private CardState cardByUuid(String uuid) {
        for (NodeState n : nodes.values()) {
            CardState c = n.card(uuid);
            if (c != null) {
                return c;
            }
        }
        return null;
    }

    private TaskState task(String name) {
        TaskState t = tasks.get(name);
        if (t == null) {
            t = new TaskState(this, name);
            t.useSeries(series);
            tasks.put(name, t);
        }
        return t;
    }

    /** The task of that name, or null when unknown (or {@code name} is null). */
    TaskState taskNamed(String name) {
        return name == null ? null : tasks.get(name);
    }

    /** Every task known now. */
    public Collection<TaskState> tasks() {
        return Collections.unmodifiableCollection(tasks.values());
    }

    /** Every queue known now. */
    public Collection<QueueState> queues() {
        return Collections.unmodifiableCollection(queues.values());
    }

    /** The queue of this name, or null. */
    public QueueState queue(String name) {
        return queues.get(name);
    }

    /**
     * The businesses as {@link #expire} or {@link #businesses(long)} last left them, for reading after an expiry
     * at the same instant: rebuilding 50,000 cards' memberships again held the event loop for tens of milliseconds.
     */
    public Collection<BusinessState> businesses() {
        return Collections.unmodifiableCollection(businesses.values());
    }

    /**
     * Every business some task belongs to at {@code at} (and those still within their grace period), its tasks
     * and cards refreshed after stale cards left their tasks, ready to be read at {@code at}.
     */
    public Collection<BusinessState> businesses(long at) {
        Map<String, List<TaskState>> byBusiness = new LinkedHashMap<>();
        for (TaskState t : tasks.values()) {
            t.prune(at);
            if (t.business() != null) {
                byBusiness.computeIfAbsent(t.business(), k -> new ArrayList<>()).add(t);
            }
        }
        for (String b : byBusiness.keySet()) {
            if (!businesses.containsKey(b)) {
                BusinessState bs = new BusinessState(this, b);
                bs.useSeries(series);
                businesses.put(b, bs);
            }
        }
        for (BusinessState b : businesses.values()) {
            List<TaskState> current = byBusiness.getOrDefault(b.name(), List.of());
            for (TaskState t : current) {
                t.at(at);
            }
            b.members(current, at);
        }
        return Collections.unmodifiableCollection(businesses.values());
    }

    /**
     * Forgets tasks, businesses and queues that have had no members and no word for longer than the grace
     * period; {@code gone} gets the engine key of each.
     */
    public void expire(long at, Consumer<String> gone) {
        tasks.values().removeIf(t -> {
            t.prune(at);
            t.expireReplicas(at, gone);
            boolean expired = retire(t.expired(at), t.instanceKey(), gone);
            if (expired) {
                t.retireReplicas(gone);
            }
            return expired;
        });
        businesses(at);
        businesses.values().removeIf(b -> retire(b.expired(at), b.instanceKey(), gone));
        queues.values().removeIf(q -> retire(q.expired(at), q.instanceKey(), gone));
        outcomes.prune(at);
    }

    private static boolean retire(boolean expired, String key, Consumer<String> gone) {
        if (expired) {
            gone.accept(key);
        }
        return expired;
    }

    /**
     * Feeds the book with the card's reading under its business. The book folds a minute's observations of all
     * of the business's cards into one mean, so the business, not the card, is what it learns.
     */
    private void learn(CardState card, long ts, CardReading reading) {
        if (cardBaselined.length == 0) {
            return;
        }
        String business = card.label("business");
        if (business == null) {
            return;
        }
        for (int id : cardBaselined) {
            SeriesSpec spec = series.get(id);
            double v = spec.metric() != null ? reading.values().get(spec.metric())
                    : card.derived(id);
            baselines.observe(business, spec.name(), ts, v);
        }
    }

    /**
     * A figure of the baseline of {@code business} for the metric of raw series {@code seriesId} at {@code now};
     * ZSCORE measures {@code series}' latest value. NaN without a business or history.
     */
    double baseline(String business, int seriesId, BaselineStat stat, double k, long now, Series series) {
        if (business == null || seriesId < 0 || seriesId >= this.series.size()) {
            return Double.NaN;
        }
        double current = stat == BaselineStat.ZSCORE ? series.last() : Double.NaN;
        return baselines.stat(business, this.series.get(seriesId).name(), now, stat, k, current);
    }

    /** Records an event on its card (when it names one) and on its node; returns the card or null. */
    public CardState event(String node, Event event, long at) {
        NodeState n = nodes.get(node);
        if (n == null) {
            return null;
        }
        n.heard(at);
        n.eventTaken(event.seq());
        long ts = Math.min(event.ts(), at);
        int code = event.xid() == null ? -1 : event.xid();
        n.event(ts, event.kind(), code);
        if (event.uuid() == null) {
            return null;
        }
        CardState card = n.cardFor(event.uuid(), null);
        card.event(ts, event.kind(), code);
        return card;
    }

    /** Any other frame of the node: it is alive, whatever we kept of it. */
    public void heard(String node, long at) {
        NodeState n = nodes.get(node);
        if (n != null) {
            n.heard(at);
        }
    }

    /** A sample of the node of this seq, shed unread: it is alive, and there is nothing of it to keep. */
    public void shed(String node, long at, long seq) {
        NodeState n = nodes.get(node);
        if (n != null) {
            n.heard(at);
            n.sampleTaken(seq);
        }
    }

    /** Bytes held by all windows and event logs. */
    public long retainedBytes() {
        long total = 0;
        for (NodeState node : nodes.values()) {
            total += node.retainedBytes();
        }
        for (TaskState t : tasks.values()) {
            total += t.retainedBytes();
        }
        for (QueueState q : queues.values()) {
            total += q.retainedBytes();
        }
        return total;
    }
}
