package io.gpuwatch.gateway.capacity;

import io.gpuwatch.gateway.compute.PeakFlops;
import io.gpuwatch.gateway.state.CardState;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.gateway.state.QueueState;
import io.gpuwatch.gateway.state.TaskState;
import io.gpuwatch.gateway.store.QueueRow;
import io.gpuwatch.gateway.store.UsageRow;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.SchedTask;
import io.gpuwatch.rules.metric.DerivedMetric;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Reads the live state at each sampling instant into rows of the usage history: per task, its cards grouped by
 * pool and GPU model (how many held, busy, idle, idle long enough to reclaim), and per scheduler queue its
 * waiting and wait figures. Keeps, per card, since when it has been idle under its task, which is what makes an
 * idle card reclaimable ({@link #RECLAIMABLE_AFTER_MS}). Owned by the gateway's event loop; the rows it returns
 * are immutable, for the store's thread.
 */
public final class UsageSampler {
    /**
     * How long a card must have been idle under the same task before its idle time counts as reclaimable: the half
     * hour after which an allocated idle card is an inspection item; shorter pauses (a checkpoint, data loading,
     * the gap between steps of a pipeline) are not time a scheduler could have given the card to someone else.
     */
    public static final long RECLAIMABLE_AFTER_MS = 30 * 60_000L;

    /** One sampling instant's rows. */
    public record Minute(long at, List<UsageRow> usage, List<QueueRow> queues) {
        public Minute {
            usage = List.copyOf(usage);
            queues = List.copyOf(queues);
        }
    }

    /** Since when a card has been idle, and under which task. */
    private record Idle(String task, long since) {
    }

    private final FleetState fleet;
    private final Predicate<String> ownsNode;
    private final long resolutionMs;
    private final Map<String, Idle> idleSince = new HashMap<>();
    private long lastAt = Long.MIN_VALUE;

    /**
     * Samples {@code fleet} every {@code resolutionMs}, counting the cards of the nodes {@code ownsNode} says this
     * gateway owns (every node when it runs alone).
     */
    public UsageSampler(FleetState fleet, Predicate<String> ownsNode, long resolutionMs) {
        if (resolutionMs <= 0) {
            throw new IllegalArgumentException("resolution must be positive, got " + resolutionMs + " ms");
        }
        this.fleet = Objects.requireNonNull(fleet, "fleet");
        this.ownsNode = Objects.requireNonNull(ownsNode, "ownsNode");
        this.resolutionMs = resolutionMs;
    }

    /** The interval each row stands for. */
    public long resolutionMs() {
        return resolutionMs;
    }

    /**
     * The rows at {@code at}, each standing for the time since the previous call, at most one resolution (a
     * gateway that was down knows nothing of the gap). The first call only starts the clock and returns none.
     */
    public Minute sample(long at) {
        long span = lastAt == Long.MIN_VALUE ? 0 : Math.min(at - lastAt, resolutionMs);
        if (lastAt != Long.MIN_VALUE && at <= lastAt) {
            return new Minute(at, List.of(), List.of());
        }
        lastAt = at;
        List<UsageRow> usage = new ArrayList<>();
        Set<String> seenIdle = new HashSet<>();
        Set<String> claimed = new HashSet<>();
        for (TaskState t : fleet.tasks()) {
            tasks(t, at, span, claimed, seenIdle, usage);
        }
        idleSince.keySet().retainAll(seenIdle);
        List<QueueRow> queues = new ArrayList<>();
        if (span > 0) {
            for (QueueState q : fleet.queues()) {
                // a queue whose reports stopped, or come to another gateway of a cluster, is not this one's to write
                if (at - q.lastFrameAt() <= 2 * resolutionMs) {
                    queues.add(queue(q, at, span));
                }
            }
        }
        return span > 0 ? new Minute(at, usage, queues) : new Minute(at, List.of(), List.of());
    }

    /** A group of a task's cards: one pool and GPU model. */
    private static final class Group {
        final List<CardState> cards = new ArrayList<>();
        int busy;
        int idle;
        int reclaimable;
        double memUsed = Double.NaN;
        double cost;
        double peak;
    }

    private void tasks(TaskState t, long at, long span, Set<String> claimed, Set<String> seenIdle,
                       List<UsageRow> out) {
        SchedTask.Model model = t.model();
        String precision = model == null ? null : model.precision();
        Map<List<String>, Group> groups = new LinkedHashMap<>();
        double taskPeak = 0;
        int taskHeld = 0;
        for (CardState card : t.cards()) {
            // a card two tasks claim counts for the first
            if (!claimed.add(card.instanceKey())) {
                continue;
            }
            taskHeld++;
            String name = card.label("card.name");
            double peak = precision == null ? Double.NaN : PeakFlops.of(name, precision);
            taskPeak += peak;
            if (!ownsNode.test(card.node().name())) {
                continue;
            }
            PeakFlops.Model m = PeakFlops.modelOf(name);
            String pool = card.label("labels.pool");
            Group g = groups.computeIfAbsent(List.of(pool == null ? "" : pool, m == null ? name : m.name()),
                    k -> new Group());
            g.cards.add(card);
            g.peak += peak;
            g.cost += fleet.cardHourPrice(t.business(), pool, name);
            double mem = card.latest(Metric.MEM_USED_BYTES);
            if (!Double.isNaN(mem)) {
                g.memUsed = (Double.isNaN(g.memUsed) ? 0 : g.memUsed) + mem;
            }
            double util = card.latest(Metric.GPU_UTIL);
            if (DerivedMetric.computing(util)) {
                g.busy++;
            } else if (!Double.isNaN(util)) {
                g.idle++;
                seenIdle.add(card.instanceKey());
                Idle since = idleSince.get(card.instanceKey());
                if (since == null || !since.task().equals(t.name())) {
                    since = new Idle(t.name(), at);
                    idleSince.put(card.instanceKey(), since);
                }
                if (at - since.since() >= RECLAIMABLE_AFTER_MS) {
                    g.reclaimable++;
                }
            }
        }
        if (span <= 0) {
            return;
        }
        Integer req = t.requestedCards();
        Long reqMem = t.requestedMemBytes();
        double achieved = DerivedMetric.achievedFlops(t.appLatest(Metric.TOKENS_PER_SEC),
                t.appLatest(Metric.SAMPLES_PER_SEC), t.flopsPerToken(), t.flopsPerSample());
        double tokens = t.appLatest(Metric.TOKENS_PER_SEC);
        String workload = model == null ? null : model.workload();
        if (groups.isEmpty()) {
            // a running task whose cards no one reported yet still asked for cards that compute nothing
            if (taskHeld == 0 && req != null && req > 0) {
                out.add(new UsageRow(at, span, t.name(), t.owner(), t.business(), t.queue(), workload, null, null,
                        0, 0, 0, 0, req, reqMem == null ? 0 : reqMem, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                        0));
            }
            return;
        }
        for (Map.Entry<List<String>, Group> e : groups.entrySet()) {
            Group g = e.getValue();
            double share = (double) g.cards.size() / taskHeld;
            double flops = Double.isNaN(achieved) || !(taskPeak > 0) ? Double.NaN : achieved * g.peak / taskPeak;
            String pool = e.getKey().get(0);
            out.add(new UsageRow(at, span, t.name(), t.owner(), t.business(), t.queue(), workload,
                    pool.isEmpty() ? null : pool, e.getKey().get(1), g.cards.size(), g.busy, g.idle, g.reclaimable,
                    req == null ? 0 : req * share, reqMem == null ? 0 : reqMem * share, g.memUsed, g.cost, flops,
                    Double.isNaN(flops) ? Double.NaN : g.peak, tokens > 0 ? tokens * share : 0));
        }
    }

    private QueueRow queue(QueueState q, long at, long span) {
        double waitingCards = 0;
        for (TaskState t : fleet.tasks()) {
            Integer w = t.waitingForCards();
            if (w != null && q.name().equals(t.queue())) {
                waitingCards += w;
            }
        }
        return new QueueRow(at, span, q.name(), q.latest(Metric.PENDING), waitingCards, q.latest(Metric.WAIT_P50_S),
                q.latest(Metric.WAIT_MAX_S), q.latest(Metric.CARDS_ALLOCATED), q.latest(Metric.CARDS_TOTAL));
    }
}
