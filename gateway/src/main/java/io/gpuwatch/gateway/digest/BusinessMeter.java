package io.gpuwatch.gateway.digest;

import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.state.CardState;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.gateway.state.TaskState;
import io.gpuwatch.rules.RuleSet;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Measures each business at regular instants, for the figures of a digest period: how many allocated cards it
 * holds, how many of them idle (latest {@code gpuUtil} below {@link #IDLE_UTIL_PERCENT}), what they cost an hour
 * under the pricing, and how many tokens a second its tasks report. Windows keep minutes, digests cover hours
 * or days, so the meter keeps its own samples (at most {@link #RETENTION_MS} back). Owned by the event loop.
 */
public final class BusinessMeter {
    /** A card below this utilisation while a process holds it counts as idle, as the example rules have it. */
    public static final double IDLE_UTIL_PERCENT = 5;
    /** Long enough for a daily digest with an hour to spare. */
    public static final long RETENTION_MS = 25 * 3_600_000L;

    /** One business at one instant; {@code costPerHour} is NaN when a card it holds has no price. */
    public record Usage(int heldCards, int idleCards, double costPerHour, double tokensPerSec) {
    }

    /** All businesses at one instant, standing for the {@code intervalMs} before it. */
    public record Sample(long at, long intervalMs, Map<String, Usage> businesses) {
        public Sample {
            businesses = Map.copyOf(businesses);
        }
    }

    /** A business over a period; {@code cost} is NaN without prices, {@code tokens} 0 when none were reported. */
    public record Figures(String business, double idleCardHours, double cardHours, double cost, double tokens) {
        /** Cost per million tokens, NaN when either is unknown or no tokens were made. */
        public double costPerMillionTokens() {
            return Double.isNaN(cost) || tokens <= 0 ? Double.NaN : cost / tokens * 1e6;
        }
    }

    private final FleetState fleet;
    private final Supplier<RuleSet> rules;
    private final Pricing pricing;
    private final Deque<Sample> samples = new ArrayDeque<>();
    private long lastAt = Long.MIN_VALUE;

    public BusinessMeter(FleetState fleet, Supplier<RuleSet> rules, Pricing pricing) {
        this.fleet = fleet;
        this.rules = rules;
        this.pricing = pricing;
    }

    /** The pricing the costs are computed with ({@link Pricing#NONE} when none was given). */
    public Pricing pricing() {
        return pricing;
    }

    /** Measures every business at {@code at}; the first sample only sets the start, covering nothing. */
    public void sample(long at) {
        RuleSet r = rules.get();
        int util = r.seriesId("gpuUtil");
        int tokens = r.seriesId("tokensPerSec");
        Map<String, List<TaskState>> byBusiness = new TreeMap<>();
        for (TaskState t : fleet.tasks()) {
            if (t.business() != null) {
                byBusiness.computeIfAbsent(t.business(), k -> new ArrayList<>()).add(t);
            }
        }
        Map<String, Usage> usage = new TreeMap<>();
        byBusiness.forEach((business, tasks) -> usage.put(business, measure(business, tasks, util, tokens)));
        if (lastAt != Long.MIN_VALUE && at > lastAt) {
            samples.addLast(new Sample(at, at - lastAt, usage));
        }
        lastAt = Math.max(lastAt, at);
        while (!samples.isEmpty() && samples.peekFirst().at() < at - RETENTION_MS) {
            samples.removeFirst();
        }
    }

    private Usage measure(String business, List<TaskState> tasks, int util, int tokens) {
        Set<String> seen = new HashSet<>();
        int held = 0;
        int idle = 0;
        double cost = 0;
        double tps = 0;
        for (TaskState t : tasks) {
            for (CardState card : t.cards()) {
                if (!card.allocated() || !seen.add(card.instanceKey())) {
                    continue;
                }
                held++;
                cost += pricing.perCardHour(business, card.label("labels.pool"), card.label("card.name"));
                double u = util < 0 ? Double.NaN : card.series(util).last();
                if (u < IDLE_UTIL_PERCENT) {
                    idle++;
                }
            }
            double v = tokens < 0 ? Double.NaN : t.series(tokens).last();
            if (v > 0) {
                tps += v;
            }
        }
        return new Usage(held, idle, cost, tps);
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
        Map<String, double[]> sums = new TreeMap<>();
        for (Sample s : samples) {
            double hours = s.intervalMs() / 3_600_000.0;
            s.businesses().forEach((business, u) -> {
                double[] sum = sums.computeIfAbsent(business, k -> new double[4]);
                sum[0] += u.idleCards() * hours;
                sum[1] += u.heldCards() * hours;
                sum[2] += u.costPerHour() * hours;
                sum[3] += u.tokensPerSec() * s.intervalMs() / 1000.0;
            });
        }
        List<Figures> out = new ArrayList<>();
        sums.forEach((business, sum) -> out.add(new Figures(business, sum[0], sum[1], sum[2], sum[3])));
        return out;
    }
}
