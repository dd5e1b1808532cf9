package io.gpuwatch.probe.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * XID sent → page received, over the XIDs of a run: how many paged, and the median, 99th percentile (nearest rank)
 * and maximum latency in ms; the figures are -1 when nothing paged.
 *
 * @param missing the XIDs no firing alert has arrived for
 */
public record LatencySummary(int sent, int paged, List<XidSent> missing, long minMs, long medianMs, long p99Ms,
                             long maxMs) {
    public LatencySummary {
        missing = List.copyOf(missing);
    }

    /** Joins the XIDs sent with the first firing arrival per card uuid. */
    public static LatencySummary of(List<XidSent> sent, Map<String, Long> firstFiring) {
        List<Long> latencies = new ArrayList<>();
        List<XidSent> missing = new ArrayList<>();
        for (XidSent x : sent) {
            Long at = PageReceiver.covering(firstFiring, x);
            if (at == null) {
                missing.add(x);
            } else {
                latencies.add(at - x.sentAtMs());
            }
        }
        latencies.sort(null);
        int n = latencies.size();
        if (n == 0) {
            return new LatencySummary(sent.size(), 0, missing, -1, -1, -1, -1);
        }
        return new LatencySummary(sent.size(), n, missing, latencies.get(0), rank(latencies, 0.5), rank(latencies, 0.99),
                latencies.get(n - 1));
    }

    private static long rank(List<Long> sorted, double q) {
        int i = (int) Math.ceil(q * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
    }
}
