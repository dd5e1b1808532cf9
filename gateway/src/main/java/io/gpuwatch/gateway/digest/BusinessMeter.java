package io.gpuwatch.gateway.digest;

import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.state.CardState;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.gateway.state.TaskState;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.metric.DerivedMetric;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Measures each business and each owner at regular instants, for the figures of a digest period: how many
 * allocated cards it holds, how many of them idle (latest {@code gpuUtil} below {@link #IDLE_UTIL_PERCENT}), what
 * they cost an hour under the pricing, how many tokens a second its tasks report, what its tasks requested
 * against what computes, their model FLOP/s against the peak of their cards, and how many of its tasks ended
 * and succeeded since the previous instant. Windows keep minutes, digests cover hours or days, so the meter keeps
 * its own samples (at most {@link #RETENTION_MS} back). Owned by the event loop.
 */
public final class BusinessMeter {
    /** A card below this utilisation while a process holds it counts as idle, as the example rules have it. */
    public static final double IDLE_UTIL_PERCENT = 5;
    /** Long enough for a daily digest with an hour to spare. */
    public static final long RETENTION_MS = 25 * 3_600_000L;

    /**
     * One business or owner at one instant; {@code costPerHour} is NaN when a card it holds has no price.
     * {@code requestedCards} adds up the requests of its tasks whose listing requested cards, {@code busyRequested}
     * the cards of those tasks computing; {@code achievedFlops} and {@code peakFlops} add up the tasks whose
     * effective compute is known; {@code ended} and {@code succeeded} count its task runs that ended since the
     * previous instant.
     */
    public record Usage(int heldCards, int idleCards, double costPerHour, double tokensPerSec, int requestedCards,
                        int busyRequested, double achievedFlops, double peakFlops, int ended, int succeeded) {
        /** A business before requests, model FLOPs and outcomes were measured. */
        public Usage(int heldCards, int idleCards, double costPerHour, double tokensPerSec) {
            this(heldCards, idleCards, costPerHour, tokensPerSec, 0, 0, 0, 0, 0, 0);
        }
    }

    /** All businesses and owners at one instant, standing for the {@code intervalMs} before it. */
    public record Sample(long at, long intervalMs, Map<String, Usage> businesses, Map<String, Usage> owners) {
        public Sample {
            businesses = Map.copyOf(businesses);
            owners = Map.copyOf(owners);
        }

        public Sample(long at, long intervalMs, Map<String, Usage> businesses) {
            this(at, intervalMs, businesses, Map.of());
        }
    }

    /**
     * A business (or owner, by name) over a period; {@code cost} is NaN without prices, {@code tokens} 0 when none
     * were reported; FLOP-hours are FLOP/s × hours.
     */
    public record Figures(String business, double idleCardHours, double cardHours, double cost, double tokens,
                          double requestedCardHours, double usedRequestedCardHours, double achievedFlopHours,
                          double peakFlopHours, int ended, int succeeded) {
        public Figures(String business, double idleCardHours, double cardHours, double cost, double tokens) {
            this(business, idleCardHours, cardHours, cost, tokens, 0, 0, 0, 0, 0, 0);
        }

        /** Cost per million tokens, NaN when either is unknown or no tokens were made. */
        public double costPerMillionTokens() {
            return Double.isNaN(cost) || tokens <= 0 ? Double.NaN : cost / tokens * 1e6;
        }

        /** Busy card-hours over requested card-hours of the tasks that requested cards; NaN when none did. */
        public double requestedVsUsed() {
            return requestedCardHours <= 0 ? Double.NaN : usedRequestedCardHours / requestedCardHours;
        }

        /** Model FLOPs over the peak FLOPs of the cards that made them, over the period; NaN when unknown. */
        public double effectiveComputeRatio() {
            return peakFlopHours <= 0 ? Double.NaN : achievedFlopHours / peakFlopHours;
        }

        /** The share of the ended task runs that succeeded; NaN when none ended. */
        public double taskSuccessRate() {
            return ended == 0 ? Double.NaN : (double) succeeded / ended;
        }
    }

    private final FleetState fleet;
    private final Pricing pricing;
    private final Deque<Sample> samples = new ArrayDeque<>();
    private long lastAt = Long.MIN_VALUE;

    public BusinessMeter(FleetState fleet, Pricing pricing) {
        this.fleet = fleet;
        this.pricing = pricing;
    }

    /** The pricing the costs are computed with ({@link Pricing#NONE} when none was given). */
    public Pricing pricing() {
        return pricing;
    }

    /** Measures every business at {@code at}; the first sample only sets the start, covering nothing. */
    public void sample(long at) {
        Map<String, List<TaskState>> byBusiness = new TreeMap<>();
        Map<String, List<TaskState>> byOwner = new TreeMap<>();
        for (TaskState t : fleet.tasks()) {
            if (t.business() != null) {
                byBusiness.computeIfAbsent(t.business(), k -> new ArrayList<>()).add(t);
            }
            if (t.owner() != null) {
                byOwner.computeIfAbsent(t.owner(), k -> new ArrayList<>()).add(t);
            }
        }
        long since = lastAt == Long.MIN_VALUE ? 0 : at - lastAt;
        // a business whose tasks all ended and left still has its outcomes to count
        for (String b : fleet.outcomeNames("business/")) {
            byBusiness.computeIfAbsent(b, k -> new ArrayList<>());
        }
        for (String o : fleet.outcomeNames("owner/")) {
            byOwner.computeIfAbsent(o, k -> new ArrayList<>());
        }
        Map<String, Usage> usage = new TreeMap<>();
        byBusiness.forEach((business, tasks) -> usage.put(business, measure(business, tasks,
                since <= 0 ? new int[2] : fleet.businessOutcomes(business, at, since))));
        Map<String, Usage> owners = new TreeMap<>();
        byOwner.forEach((owner, tasks) -> owners.put(owner, measure(null, tasks,
                since <= 0 ? new int[2] : fleet.ownerOutcomes(owner, at, since))));
        if (lastAt != Long.MIN_VALUE && at > lastAt) {
            samples.addLast(new Sample(at, at - lastAt, usage, owners));
        }
        lastAt = Math.max(lastAt, at);
        while (!samples.isEmpty() && samples.peekFirst().at() < at - RETENTION_MS) {
            samples.removeFirst();
        }
    }

    /**
     * The usage of {@code tasks}; an owner's ({@code business} null) cards are priced at the rate of each task's
     * own business.
     */
    private Usage measure(String business, List<TaskState> tasks, int[] outcomes) {
        Set<String> seen = new HashSet<>();
        int held = 0;
        int idle = 0;
        double cost = 0;
        double tps = 0;
        int requested = 0;
        int busyRequested = 0;
        double achieved = 0;
        double peak = 0;
        for (TaskState t : tasks) {
            Integer r = t.requestedCards();
            if (r != null && r > 0) {
                requested += r;
                busyRequested += t.busyCards();
            }
            double a = DerivedMetric.achievedFlops(t.appLatest(Metric.TOKENS_PER_SEC),
                    t.appLatest(Metric.SAMPLES_PER_SEC), t.flopsPerToken(), t.flopsPerSample());
            double p = t.peakFlops();
            if (!Double.isNaN(a) && !Double.isNaN(p) && p > 0) {
                achieved += a;
                peak += p;
            }
            for (CardState card : t.cards()) {
                if (!card.allocated() || !seen.add(card.instanceKey())) {
                    continue;
                }
                held++;
                cost += pricing.perCardHour(business != null ? business : t.business(), card.label("labels.pool"),
                        card.label("card.name"));
                // the card's own latest reading: a rule set that reads no gpuUtil must not hide idle cards
                double u = card.latest(Metric.GPU_UTIL);
                if (u < IDLE_UTIL_PERCENT) {
                    idle++;
                }
            }
            double v = t.appLatest(Metric.TOKENS_PER_SEC);
            if (v > 0) {
                tps += v;
            }
        }
        return new Usage(held, idle, cost, tps, requested, busyRequested, achieved, peak, outcomes[0],
                outcomes[1]);
    }

    /** The samples taken in {@code [from, to)}, oldest first; an immutable copy, safe to read on a worker. */
    public List<Sample> samples(long from, long to) {
        List<Sample> out = new ArrayList<>();
        for (Sample s : samples) {
            if (s.at() > from && s.at() <= to) {
                out.add(s);
            }
        }
        return List.copyOf(out);
    }

    /** Each business's figures over the samples given, by name. */
    public static List<Figures> figures(List<Sample> samples) {
        return figures(samples, false);
    }

    /** Each owner's figures over the samples given, by name. */
    public static List<Figures> ownerFigures(List<Sample> samples) {
        return figures(samples, true);
    }

    private static List<Figures> figures(List<Sample> samples, boolean owners) {
        Map<String, double[]> sums = new TreeMap<>();
        for (Sample s : samples) {
            double hours = s.intervalMs() / 3_600_000.0;
            (owners ? s.owners() : s.businesses()).forEach((name, u) -> {
                double[] sum = sums.computeIfAbsent(name, k -> new double[10]);
                sum[0] += u.idleCards() * hours;
                sum[1] += u.heldCards() * hours;
                sum[2] += u.costPerHour() * hours;
                sum[3] += u.tokensPerSec() * s.intervalMs() / 1000.0;
                sum[4] += u.requestedCards() * hours;
                sum[5] += u.busyRequested() * hours;
                sum[6] += u.achievedFlops() * hours;
                sum[7] += u.peakFlops() * hours;
                sum[8] += u.ended();
                sum[9] += u.succeeded();
            });
        }
        List<Figures> out = new ArrayList<>();
        sums.forEach((name, sum) -> out.add(new Figures(name, sum[0], sum[1], sum[2], sum[3], sum[4], sum[5],
                sum[6], sum[7], (int) sum[8], (int) sum[9])));
        return out;
    }
}
