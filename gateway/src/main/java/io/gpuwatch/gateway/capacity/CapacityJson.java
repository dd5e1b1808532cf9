package io.gpuwatch.gateway.capacity;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Instant;

/** The capacity report as the API answers it in JSON: every figure unrounded, null where unknown. */
public final class CapacityJson {
    private CapacityJson() {
    }

    /** {@code report} as JSON (docs/capacity.md lists the fields). */
    public static JsonObject of(CapacityReport r) {
        JsonObject out = new JsonObject()
                .put("from", Instant.ofEpochMilli(r.from()).toString())
                .put("to", Instant.ofEpochMilli(r.to()).toString())
                .put("currency", r.currency())
                .put("coveredHours", n(r.coveredHours()));
        CapacityReport.Totals t = r.totals();
        out.put("totals", new JsonObject().put("cardHours", n(t.cardHours())).put("busyCardHours", n(t.busyCardHours()))
                .put("idleCardHours", n(t.idleCardHours())).put("reclaimableCardHours", n(t.reclaimableCardHours()))
                .put("cost", n(t.cost())).put("idleCost", n(t.idleCost()))
                .put("reclaimableCost", n(t.reclaimableCost())));
        JsonArray allocations = new JsonArray();
        for (CapacityReport.Allocation a : r.allocations()) {
            allocations.add(new JsonObject().put("pool", a.pool()).put("business", a.business())
                    .put("cardHours", n(a.cardHours())).put("busyCardHours", n(a.busyCardHours()))
                    .put("idleCardHours", n(a.idleCardHours()))
                    .put("reclaimableCardHours", n(a.reclaimableCardHours()))
                    .put("requestedCardHours", n(a.requestedCardHours()))
                    .put("usedOfRequested", n(a.usedOfRequested()))
                    .put("memUsedOfRequested", n(a.memUsedOfRequested())));
        }
        out.put("allocations", allocations);
        JsonArray owners = new JsonArray();
        for (CapacityReport.OwnerIdle o : r.idleOwners()) {
            owners.add(new JsonObject().put("owner", o.owner()).put("cardHours", n(o.cardHours()))
                    .put("idleCardHours", n(o.idleCardHours()))
                    .put("reclaimableCardHours", n(o.reclaimableCardHours()))
                    .put("idleCost", n(o.idleCost())).put("reclaimableCost", n(o.reclaimableCost()))
                    .put("idleCardsNow", o.idleCardsNow()).put("reclaimableCardsNow", o.reclaimableCardsNow()));
        }
        out.put("idleOwners", owners);
        JsonArray queues = new JsonArray();
        for (CapacityReport.QueueTrend q : r.queues()) {
            JsonArray buckets = new JsonArray();
            for (CapacityReport.Bucket b : q.buckets()) {
                buckets.add(new JsonObject().put("start", Instant.ofEpochMilli(b.start()).toString())
                        .put("meanPending", n(b.meanPending())).put("meanWaitP50s", n(b.meanWaitP50s()))
                        .put("maxWaitS", n(b.maxWaitS())));
            }
            queues.add(new JsonObject().put("queue", q.queue()).put("bucketSeconds", q.bucketMs() / 1000)
                    .put("buckets", buckets));
        }
        out.put("queueWaits", queues);
        JsonArray worst = new JsonArray();
        for (CapacityReport.TaskCompute c : r.worstTasks()) {
            worst.add(new JsonObject().put("task", c.task()).put("owner", c.owner()).put("business", c.business())
                    .put("workload", c.workload()).put("cardHours", n(c.cardHours()))
                    .put("effectiveComputeRatio", n(c.effectiveRatio()))
                    .put("band", c.band().name().toLowerCase(java.util.Locale.ROOT)));
        }
        out.put("worstTasks", worst);
        JsonArray whatIf = new JsonArray();
        for (CapacityReport.WhatIf w : r.whatIf()) {
            whatIf.add(new JsonObject().put("queue", w.queue()).put("waitingTaskHours", n(w.waitingTaskHours()))
                    .put("coverableTaskHours", n(w.coverableTaskHours()))
                    .put("reclaimableCardHours", n(w.reclaimableCardHours())).put("share", n(w.share()))
                    .put("meanWaitS", n(w.meanWaitS())).put("meanWaitAfterS", n(w.meanWaitAfterS())));
        }
        out.put("whatIf", whatIf);
        JsonArray costs = new JsonArray();
        for (CapacityReport.ComputeCost c : r.computeCosts()) {
            costs.add(new JsonObject().put("model", c.model()).put("pool", c.pool()).put("cardHours", n(c.cardHours()))
                    .put("measuredCardHours", n(c.measuredCardHours())).put("cost", n(c.cost()))
                    .put("effectivePflopHours", n(c.effectivePflopHours()))
                    .put("effectiveComputeRatio", n(c.effectiveRatio()))
                    .put("costPerEffectivePflopHour", n(c.costPerEffectivePflopHour())));
        }
        out.put("computeCosts", costs);
        JsonArray tokens = new JsonArray();
        for (CapacityReport.TokenCost c : r.tokenCosts()) {
            tokens.add(new JsonObject().put("business", c.business()).put("cardHours", n(c.cardHours()))
                    .put("cost", n(c.cost())).put("tokens", n(c.tokens()))
                    .put("costPerMillionTokens", n(c.costPerMillionTokens())));
        }
        out.put("tokenCosts", tokens);
        return out;
    }

    private static Double n(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? null : v;
    }
}
