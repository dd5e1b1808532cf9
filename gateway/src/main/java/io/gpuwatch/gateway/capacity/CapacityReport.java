package io.gpuwatch.gateway.capacity;

import io.gpuwatch.gateway.store.QueueRow;
import io.gpuwatch.gateway.store.UsageRow;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What the fleet's cards did over a window, from the usage history: per pool and business what was held, busy,
 * idle, reclaimable and requested; idle cards by owner; each queue's wait trend and what reclaiming idle cards
 * would have done to it; the tasks whose effective compute is lowest; the cost of an effective PFLOP-hour per GPU
 * model and pool; and the cost of a million tokens per business. Figures and definitions in docs/capacity.md.
 *
 * @param coveredHours hours of the window the history covers (a gateway that was down has a gap)
 */
public record CapacityReport(long from, long to, String currency, double coveredHours, Totals totals,
                             List<Allocation> allocations, List<OwnerIdle> idleOwners, List<QueueTrend> queues,
                             List<TaskCompute> worstTasks, List<WhatIf> whatIf, List<ComputeCost> computeCosts,
                             List<TokenCost> tokenCosts) {
    /** What a row without a pool, business, owner or queue is listed under. */
    public static final String NONE = "(none)";
    /** The lower end of the MFU that published large-scale training reaches (Llama 3 405B: 38–43 %). */
    public static final double MFU_BAND_LOW = 0.38;
    /** The upper end (MegaScale: 55.2 %). */
    public static final double MFU_BAND_HIGH = 0.55;
    /** A task needs this many measured card-hours in the window to be ranked by its effective compute. */
    public static final double WORST_MIN_CARD_HOURS = 1.0;
    /** How many tasks the ranking lists. */
    public static final int WORST_LIMIT = 10;
    /** Windows longer than this get a queue trend by day, shorter ones by hour. */
    public static final long DAILY_TREND_AFTER_MS = 2 * 86_400_000L;

    public CapacityReport {
        allocations = List.copyOf(allocations);
        idleOwners = List.copyOf(idleOwners);
        queues = List.copyOf(queues);
        worstTasks = List.copyOf(worstTasks);
        whatIf = List.copyOf(whatIf);
        computeCosts = List.copyOf(computeCosts);
        tokenCosts = List.copyOf(tokenCosts);
    }

    /** The whole fleet's card-hours and what they cost; a cost is NaN when a card had no price. */
    public record Totals(double cardHours, double busyCardHours, double idleCardHours, double reclaimableCardHours,
                         double cost, double idleCost, double reclaimableCost) {
    }

    /** One pool and business: card-hours held, busy, idle and reclaimable, and against what its tasks requested. */
    public record Allocation(String pool, String business, double cardHours, double busyCardHours,
                             double idleCardHours, double reclaimableCardHours, double requestedCardHours,
                             double busyRequestedCardHours, double memRequestedByteHours,
                             double memUsedRequestedByteHours) {
        /** Busy card-hours of the tasks that requested cards over the card-hours they requested; NaN if none did. */
        public double usedOfRequested() {
            return requestedCardHours > 0 ? busyRequestedCardHours / requestedCardHours : Double.NaN;
        }

        /** Device memory in use over memory requested, of the tasks that requested some; NaN if none did. */
        public double memUsedOfRequested() {
            return memRequestedByteHours > 0 ? memUsedRequestedByteHours / memRequestedByteHours : Double.NaN;
        }
    }

    /** One owner's idle cards: card-hours over the window, what they cost, and how many idle at its end. */
    public record OwnerIdle(String owner, double cardHours, double idleCardHours, double reclaimableCardHours,
                            double idleCost, double reclaimableCost, int idleCardsNow, int reclaimableCardsNow) {
    }

    /** One queue's waits, bucket by bucket. */
    public record QueueTrend(String queue, long bucketMs, List<Bucket> buckets) {
        public QueueTrend {
            buckets = List.copyOf(buckets);
        }
    }

    /** One bucket of a queue: its mean waiting tasks, mean median wait and the longest wait seen. */
    public record Bucket(long start, double meanPending, double meanWaitP50s, double maxWaitS) {
    }

    /** Where a task's effective compute stands against the published training MFU band. */
    public enum Band {
        BELOW, WITHIN, ABOVE,
        /** An inference task: decoding is memory-bound, the training band does not apply. */
        SERVING
    }

    /** One task's effective compute over the window: model FLOPs over the peak FLOPs of the cards it held. */
    public record TaskCompute(String task, String owner, String business, String workload, double cardHours,
                              double effectiveRatio, Band band) {
    }

    /**
     * What giving back the reclaimable cards of a queue's own tasks would have done to its waits (an upper
     * bound; the assumptions are in docs/capacity.md): of the task-hours spent waiting, those in instants when
     * the reclaimable cards covered the cards the waiting tasks requested, and the mean wait cut in proportion.
     */
    public record WhatIf(String queue, double waitingTaskHours, double coverableTaskHours, double reclaimableCardHours,
                         double meanWaitS) {
        /** The share of the waiting that reclaimable cards covered; NaN when nothing waited. */
        public double share() {
            return waitingTaskHours > 0 ? coverableTaskHours / waitingTaskHours : Double.NaN;
        }

        /** The mean wait once cut by {@link #share()} (Little's law: arrivals unchanged). */
        public double meanWaitAfterS() {
            return Double.isNaN(share()) ? meanWaitS : meanWaitS * (1 - share());
        }
    }

    /**
     * One GPU model in one pool: card-hours, those with a measured effective compute, their cost and the
     * effective PFLOP-hours they delivered.
     */
    public record ComputeCost(String model, String pool, double cardHours, double measuredCardHours, double cost,
                              double peakPflopHours, double effectivePflopHours) {
        /** Effective over peak PFLOP-hours of the measured card-hours; NaN without any. */
        public double effectiveRatio() {
            return peakPflopHours > 0 ? effectivePflopHours / peakPflopHours : Double.NaN;
        }

        /** What one effective PFLOP-hour cost; NaN without measured, priced card-hours. */
        public double costPerEffectivePflopHour() {
            return effectivePflopHours > 0 && !Double.isNaN(cost) ? cost / effectivePflopHours : Double.NaN;
        }
    }

    /** One business: what its cards cost and the tokens its tasks made. */
    public record TokenCost(String business, double cardHours, double cost, double tokens) {
        /** Cost per million tokens; NaN without a price or without tokens. */
        public double costPerMillionTokens() {
            return tokens > 0 && !Double.isNaN(cost) ? cost / tokens * 1e6 : Double.NaN;
        }
    }

    /** Builds a report from history rows handed over oldest first, without keeping them. */
    public static final class Builder {
        private static final double HOUR = 3_600_000.0;
        private final long from;
        private final long to;
        private final String currency;
        private final Map<List<String>, double[]> allocations = new TreeMap<>(Comparator.comparing(Object::toString));
        private final Map<String, double[]> owners = new TreeMap<>();
        private final Map<String, int[]> ownersNow = new HashMap<>();
        private final Map<String, double[]> tasks = new TreeMap<>();
        private final Map<String, String[]> taskLabels = new HashMap<>();
        private final Map<List<String>, double[]> models = new TreeMap<>(Comparator.comparing(Object::toString));
        private final Map<String, double[]> businesses = new TreeMap<>();
        /** Reclaimable cards of each queue's tasks, by instant. */
        private final Map<Long, Map<String, Integer>> reclaimableByInstant = new HashMap<>();
        private final List<QueueRow> queueRows = new ArrayList<>();
        private final Map<Long, Long> instants = new HashMap<>();
        private final double[] totals = new double[7];
        private long lastAt = Long.MIN_VALUE;

        /** A report over {@code (from, to]}, its costs in {@code currency} (empty when unpriced). */
        public Builder(long from, long to, String currency) {
            if (to <= from) {
                throw new IllegalArgumentException("the window must end after it starts");
            }
            this.from = from;
            this.to = to;
            this.currency = Objects.requireNonNull(currency, "currency");
        }

        /** Takes one usage row; rows come oldest first. */
        public void add(UsageRow r) {
            if (r.at() <= from || r.at() > to) {
                return;
            }
            instants.merge(r.at(), r.spanMs(), Math::max);
            double h = r.spanMs() / HOUR;
            double perCard = r.held() > 0 ? r.costPerHour() / r.held() : 0;
            String pool = name(r.pool());
            String business = name(r.business());
            String owner = name(r.owner());
            double[] a = allocations.computeIfAbsent(List.of(pool, business), k -> new double[8]);
            a[0] += r.held() * h;
            a[1] += r.busy() * h;
            a[2] += r.idle() * h;
            a[3] += r.reclaimable() * h;
            if (r.requestedCards() > 0) {
                a[4] += r.requestedCards() * h;
                a[5] += r.busy() * h;
            }
            if (r.memRequestedBytes() > 0) {
                a[6] += r.memRequestedBytes() * h;
                a[7] += (Double.isNaN(r.memUsedBytes()) ? 0 : r.memUsedBytes()) * h;
            }
            totals[0] += r.held() * h;
            totals[1] += r.busy() * h;
            totals[2] += r.idle() * h;
            totals[3] += r.reclaimable() * h;
            totals[4] += r.held() > 0 ? r.costPerHour() * h : 0;
            totals[5] += r.idle() * perCard * h;
            totals[6] += r.reclaimable() * perCard * h;

            double[] o = owners.computeIfAbsent(owner, k -> new double[5]);
            o[0] += r.held() * h;
            o[1] += r.idle() * h;
            o[2] += r.reclaimable() * h;
            o[3] += r.idle() * perCard * h;
            o[4] += r.reclaimable() * perCard * h;
            if (r.at() > lastAt) {
                lastAt = r.at();
                ownersNow.clear();
            }
            int[] now = ownersNow.computeIfAbsent(owner, k -> new int[2]);
            now[0] += r.idle();
            now[1] += r.reclaimable();

            boolean measured = !Double.isNaN(r.achievedFlops()) && !Double.isNaN(r.peakFlops()) && r.peakFlops() > 0;
            double[] t = tasks.computeIfAbsent(r.task(), k -> new double[3]);
            taskLabels.put(r.task(), new String[] {owner, business, r.workload()});
            if (measured) {
                t[0] += r.held() * h;
                t[1] += r.achievedFlops() * h;
                t[2] += r.peakFlops() * h;
            }

            if (r.held() > 0) {
                double[] m = models.computeIfAbsent(List.of(name(r.model()), pool), k -> new double[5]);
                m[0] += r.held() * h;
                if (measured) {
                    m[1] += r.held() * h;
                    m[2] += r.costPerHour() * h;
                    m[3] += r.peakFlops() / 1e15 * h;
                    m[4] += r.achievedFlops() / 1e15 * h;
                }
            }

            double[] b = businesses.computeIfAbsent(business, k -> new double[3]);
            b[0] += r.held() * h;
            b[1] += r.held() > 0 ? r.costPerHour() * h : 0;
            b[2] += r.tokensPerSec() * r.spanMs() / 1000.0;

            if (r.reclaimable() > 0 && r.queue() != null) {
                reclaimableByInstant.computeIfAbsent(r.at(), k -> new HashMap<>())
                        .merge(r.queue(), r.reclaimable(), Integer::sum);
            }
        }

        /** Takes one queue row. */
        public void add(QueueRow q) {
            if (q.at() > from && q.at() <= to) {
                instants.merge(q.at(), q.spanMs(), Math::max);
                queueRows.add(q);
            }
        }

        private static String name(String s) {
            return s == null || s.isEmpty() ? NONE : s;
        }

        public CapacityReport build() {
            double covered = 0;
            for (long span : instants.values()) {
                covered += span / HOUR;
            }
            List<Allocation> allocs = new ArrayList<>();
            allocations.forEach((k, a) -> allocs.add(new Allocation(k.get(0), k.get(1), a[0], a[1], a[2], a[3], a[4],
                    a[5], a[6], a[7])));
            List<OwnerIdle> idle = new ArrayList<>();
            owners.forEach((owner, o) -> {
                int[] now = ownersNow.getOrDefault(owner, new int[2]);
                if (o[1] > 0 || now[0] > 0) {
                    idle.add(new OwnerIdle(owner, o[0], o[1], o[2], o[3], o[4], now[0], now[1]));
                }
            });
            idle.sort(Comparator.comparingDouble(OwnerIdle::reclaimableCardHours).reversed()
                    .thenComparing(Comparator.comparingDouble(OwnerIdle::idleCardHours).reversed())
                    .thenComparing(OwnerIdle::owner));
            List<TaskCompute> worst = new ArrayList<>();
            tasks.forEach((task, t) -> {
                if (t[0] >= WORST_MIN_CARD_HOURS && t[2] > 0) {
                    String[] l = taskLabels.get(task);
                    double ratio = t[1] / t[2];
                    worst.add(new TaskCompute(task, l[0], l[1], l[2], t[0], ratio, band(l[2], ratio)));
                }
            });
            worst.sort(Comparator.comparingDouble(TaskCompute::effectiveRatio).thenComparing(TaskCompute::task));
            List<ComputeCost> costs = new ArrayList<>();
            models.forEach((k, m) -> costs.add(new ComputeCost(k.get(0), k.get(1), m[0], m[1], m[2], m[3], m[4])));
            List<TokenCost> tokens = new ArrayList<>();
            businesses.forEach((b, v) -> tokens.add(new TokenCost(b, v[0], v[1], v[2])));
            return new CapacityReport(from, to, currency, covered, new Totals(totals[0], totals[1], totals[2],
                    totals[3], totals[4], totals[5], totals[6]), allocs, idle, trends(), worst.subList(0,
                    Math.min(WORST_LIMIT, worst.size())), whatIf(), costs, tokens);
        }

        private static Band band(String workload, double ratio) {
            if (!"training".equals(workload)) {
                return Band.SERVING;
            }
            return ratio < MFU_BAND_LOW ? Band.BELOW : ratio > MFU_BAND_HIGH ? Band.ABOVE : Band.WITHIN;
        }

        private List<QueueTrend> trends() {
            long bucket = to - from > DAILY_TREND_AFTER_MS ? 86_400_000L : 3_600_000L;
            Map<String, TreeMap<Long, double[]>> byQueue = new TreeMap<>();
            for (QueueRow q : queueRows) {
                long start = Math.floorDiv(q.at() - 1, bucket) * bucket;
                double[] s = byQueue.computeIfAbsent(q.queue(), k -> new TreeMap<>())
                        .computeIfAbsent(start, k -> new double[] {0, 0, 0, 0, Double.NaN});
                if (!Double.isNaN(q.pending())) {
                    s[0] += q.pending();
                    s[1]++;
                }
                if (!Double.isNaN(q.waitP50s())) {
                    s[2] += q.waitP50s();
                    s[3]++;
                }
                double max = Double.isNaN(q.waitMaxS()) ? q.waitP50s() : q.waitMaxS();
                if (!Double.isNaN(max) && (Double.isNaN(s[4]) || max > s[4])) {
                    s[4] = max;
                }
            }
            List<QueueTrend> out = new ArrayList<>();
            byQueue.forEach((queue, buckets) -> {
                List<Bucket> bs = new ArrayList<>();
                buckets.forEach((start, s) -> bs.add(new Bucket(start, s[1] > 0 ? s[0] / s[1] : Double.NaN,
                        s[3] > 0 ? s[2] / s[3] : Double.NaN, s[4])));
                out.add(new QueueTrend(queue, bucket, bs));
            });
            return out;
        }

        private List<WhatIf> whatIf() {
            Map<String, double[]> byQueue = new TreeMap<>();
            for (QueueRow q : queueRows) {
                double h = q.spanMs() / HOUR;
                double[] s = byQueue.computeIfAbsent(q.queue(), k -> new double[5]);
                int reclaimable = reclaimableByInstant.getOrDefault(q.at(), Map.of()).getOrDefault(q.queue(), 0);
                s[2] += reclaimable * h;
                double pending = Double.isNaN(q.pending()) ? 0 : q.pending();
                if (pending <= 0) {
                    continue;
                }
                s[0] += pending * h;
                // the waiting tasks' requests, covered in the proportion the reclaimable cards reach
                if (q.pendingCards() > 0) {
                    s[1] += pending * Math.min(1, reclaimable / q.pendingCards()) * h;
                }
                if (!Double.isNaN(q.waitP50s())) {
                    s[3] += q.waitP50s();
                    s[4]++;
                }
            }
            List<WhatIf> out = new ArrayList<>();
            byQueue.forEach((queue, s) -> out.add(new WhatIf(queue, s[0], s[1], s[2],
                    s[4] > 0 ? s[3] / s[4] : Double.NaN)));
            return out;
        }
    }
}
