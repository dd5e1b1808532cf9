package io.gpuwatch.gateway.capacity;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/** The capacity report's sections, in the order a platform lead reads them, and its Markdown form. */
public final class CapacityText {
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyy-MM-dd").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter HOUR = DateTimeFormatter.ofPattern("MM-dd HH:00").withZone(ZoneOffset.UTC);

    private CapacityText() {
    }

    /** The report's title line. */
    static String title(CapacityReport r) {
        return "Capacity report " + Instant.ofEpochMilli(r.from()) + " to " + Instant.ofEpochMilli(r.to());
    }

    /** What the history covers of the window. */
    static String coverage(CapacityReport r) {
        double window = (r.to() - r.from()) / 3_600_000.0;
        return "The history covers " + Figures.hours(r.coveredHours()) + " of the window's " + Figures.hours(window)
                + " hours (1-minute rows; a gap is time the gateway was not sampling). Cards held: "
                + Figures.hours(r.totals().cardHours()) + " card-hours costing " + Figures.money(r.totals().cost(),
                r.currency()) + "; idle " + Figures.hours(r.totals().idleCardHours()) + " ("
                + Figures.money(r.totals().idleCost(), r.currency()) + "), of which reclaimable "
                + Figures.hours(r.totals().reclaimableCardHours()) + " ("
                + Figures.money(r.totals().reclaimableCost(), r.currency()) + ").";
    }

    /** The report as sections. */
    static List<Section> sections(CapacityReport r) {
        List<Section> out = new ArrayList<>();
        List<List<String>> rows = new ArrayList<>();
        List<Section.Bar> bars = new ArrayList<>();
        for (CapacityReport.OwnerIdle o : r.idleOwners()) {
            rows.add(List.of(o.owner(), Figures.hours(o.cardHours()), Figures.hours(o.idleCardHours()),
                    Figures.hours(o.reclaimableCardHours()), Figures.money(o.reclaimableCost(), r.currency()),
                    o.idleCardsNow() + " (" + o.reclaimableCardsNow() + ")"));
            bars.add(new Section.Bar(o.owner(), o.reclaimableCardHours()));
        }
        out.add(new Section("Idle cards by owner", "Who holds cards that compute nothing (gpuUtil below 5 %). "
                + "Reclaimable: idle under the same task for 30 minutes or more in a row, counted from the 30th "
                + "minute. Most reclaimable first.", List.of("owner", "card-hours held", "idle card-hours",
                "reclaimable card-hours", "reclaimable cost", "idle now (reclaimable)"), rows, "reclaimable card-hours",
                bars));

        rows = new ArrayList<>();
        for (CapacityReport.Allocation a : r.allocations()) {
            rows.add(List.of(a.pool(), a.business(), Figures.hours(a.cardHours()), Figures.hours(a.busyCardHours()),
                    Figures.hours(a.idleCardHours()), Figures.hours(a.reclaimableCardHours()),
                    Figures.hours(a.requestedCardHours()), Figures.percent(a.usedOfRequested()),
                    Figures.percent(a.memUsedOfRequested())));
        }
        out.add(new Section("Requested against used, per pool and business", "Card-hours held, busy, idle and "
                + "reclaimable; used of requested is the busy card-hours of the tasks that requested cards over "
                + "what they requested (cards never granted count as requested and unused).", List.of("pool",
                "business", "card-hours", "busy", "idle", "reclaimable", "requested", "used of requested",
                "memory used of requested"), rows, "", List.of()));

        rows = new ArrayList<>();
        bars = new ArrayList<>();
        for (CapacityReport.TaskCompute t : r.worstTasks()) {
            rows.add(List.of(t.task(), t.owner(), t.business(), t.workload() == null ? "—" : t.workload(),
                    Figures.hours(t.cardHours()), Figures.percent1(t.effectiveRatio()), band(t.band())));
            bars.add(new Section.Bar(t.task(), t.effectiveRatio() * 100));
        }
        out.add(new Section("Lowest effective compute", "Tasks with at least "
                + Figures.hours(CapacityReport.WORST_MIN_CARD_HOURS) + " measured card-hours, by model FLOPs over "
                + "the peak FLOPs of the cards they held (card-hour weighted), lowest first; training is compared "
                + "with the 38–55 % MFU published for large-scale training.", List.of("task", "owner", "business",
                "workload", "card-hours", "effective compute", "against 38–55 %"), rows, "% effective compute",
                bars));

        rows = new ArrayList<>();
        bars = new ArrayList<>();
        for (CapacityReport.ComputeCost c : r.computeCosts()) {
            rows.add(List.of(c.model(), c.pool(), Figures.hours(c.cardHours()), Figures.hours(c.measuredCardHours()),
                    Figures.percent1(c.effectiveRatio()), Figures.hours(c.effectivePflopHours()),
                    c.effectivePflopHours() > 0 ? Figures.money(c.costPerEffectivePflopHour(), r.currency())
                            : "no declared model"));
            if (!Double.isNaN(c.costPerEffectivePflopHour())) {
                bars.add(new Section.Bar(c.model() + " · " + c.pool(), c.costPerEffectivePflopHour()));
            }
        }
        out.add(new Section("Cost per effective PFLOP-hour, by GPU model and pool", "What an hour of 10¹⁵ FLOP/s "
                + "of model math actually delivered cost: the price of the card-hours over the PFLOP-hours the "
                + "tasks on them achieved, over the card-hours whose task declares its model.", List.of("model",
                "pool", "card-hours", "measured card-hours", "effective compute", "effective PFLOP-hours",
                "cost per effective PFLOP-hour"), rows, r.currency() + " per effective PFLOP-hour", bars));

        rows = new ArrayList<>();
        for (CapacityReport.TokenCost c : r.tokenCosts()) {
            rows.add(List.of(c.business(), Figures.hours(c.cardHours()), Figures.money(c.cost(), r.currency()),
                    Figures.estimate(c.tokens()), c.tokens() > 0 ? Figures.money(c.costPerMillionTokens(),
                            r.currency()) : "no tokens reported"));
        }
        out.add(new Section("Cost per million tokens, per business", "Everything the business's cards cost over "
                + "every token its tasks reported making.", List.of("business", "card-hours", "cost", "tokens",
                "per million tokens"), rows, "", List.of()));

        for (CapacityReport.QueueTrend q : r.queues()) {
            rows = new ArrayList<>();
            bars = new ArrayList<>();
            DateTimeFormatter f = q.bucketMs() >= 86_400_000L ? DAY : HOUR;
            for (CapacityReport.Bucket b : q.buckets()) {
                String when = f.format(Instant.ofEpochMilli(b.start()));
                rows.add(List.of(when, Figures.estimate(b.meanPending()), Figures.seconds(b.meanWaitP50s()),
                        Figures.seconds(b.maxWaitS())));
                bars.add(new Section.Bar(when, Double.isNaN(b.meanWaitP50s()) ? 0 : b.meanWaitP50s() / 60));
            }
            out.add(new Section("Queue " + q.queue() + ": wait by " + (q.bucketMs() >= 86_400_000L ? "day" : "hour"),
                    "Mean waiting tasks, mean median wait and the longest wait, per bucket (UTC).", List.of("from",
                    "waiting tasks", "median wait", "longest wait"), rows, "minutes median wait", bars));
        }

        rows = new ArrayList<>();
        for (CapacityReport.WhatIf w : r.whatIf()) {
            rows.add(List.of(w.queue(), Figures.estimate(w.waitingTaskHours()),
                    Figures.estimate(w.reclaimableCardHours()),
                    Figures.estimate(w.coverableTaskHours()), Double.isNaN(w.share()) ? "—"
                            : Figures.estimate(w.share() * 100) + " %", Figures.seconds(w.meanWaitS()) + " → "
                            + Figures.seconds(w.meanWaitAfterS())));
        }
        out.add(new Section("What if the idle allocations went back", "An upper bound, to two figures: the waiting "
                + "that fell in minutes when reclaimable cards of the queue's own tasks could have covered the "
                + "cards the waiting tasks requested, and the mean wait cut in proportion (Little's law, arrivals "
                + "unchanged). It assumes a reclaimed card fits any waiting task of its queue and is handed over at "
                + "once (docs/capacity.md).", List.of("queue", "task-hours waiting", "reclaimable card-hours",
                "task-hours coverable", "share", "mean wait now → after"), rows, "", List.of()));
        return out;
    }

    private static String band(CapacityReport.Band b) {
        return switch (b) {
            case BELOW -> "below";
            case WITHIN -> "within";
            case ABOVE -> "above";
            case SERVING -> "serving: not comparable";
        };
    }

    /** The report in Markdown. */
    public static String markdown(CapacityReport r) {
        StringBuilder sb = new StringBuilder("# ").append(title(r)).append("\n\n").append(coverage(r)).append('\n');
        for (Section s : sections(r)) {
            sb.append("\n## ").append(s.title()).append("\n\n").append(s.text()).append("\n\n");
            if (s.rows().isEmpty()) {
                sb.append("Nothing in this window.\n");
                continue;
            }
            sb.append('|');
            s.headers().forEach(h -> sb.append(' ').append(cell(h)).append(" |"));
            sb.append("\n|");
            s.headers().forEach(h -> sb.append("---|"));
            sb.append('\n');
            for (List<String> row : s.rows()) {
                sb.append('|');
                row.forEach(c -> sb.append(' ').append(cell(c)).append(" |"));
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    /** A table cell: a pipe or line break in a name must not break the table. */
    private static String cell(String s) {
        return s.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("\r", " ");
    }
}
