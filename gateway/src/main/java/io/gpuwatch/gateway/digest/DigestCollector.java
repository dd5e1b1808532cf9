package io.gpuwatch.gateway.digest;

import io.gpuwatch.gateway.alert.Alert;

import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Works out a digest's content from the ledger's alerts as they stand at the end of the period: pure, so it runs
 * on a worker over a snapshot the event loop took. The ledger's history is bounded, so in a fleet that ends more
 * alerts in a period than the history keeps, the oldest of them are missing from the counts.
 */
public final class DigestCollector {
    /** Severities that never page and are listed as things to look at instead. */
    public static final Set<String> INSPECTION_SEVERITIES = Set.of("notice", "inspect");
    /** How many of the noisiest rules a digest names. */
    public static final int NOISY_RULES = 5;
    private static final List<String> SEVERITY_ORDER = List.of("page", "ticket");

    private DigestCollector() {
    }

    /**
     * The content of the period {@code [from, to)} from the {@code live} alerts (firing at {@code to}) and the
     * {@code ended} ones, with the firing count in {@code slices} equal slices and the business figures given.
     */
    public static DigestContent collect(List<Alert> live, List<Alert> ended, Instant from, Instant to, ZoneId zone,
                                        int slices, List<BusinessMeter.Figures> businesses, boolean priced) {
        return collect(live, ended, from, to, zone, slices, businesses, List.of(), priced);
    }

    /** {@link #collect(List, List, Instant, Instant, ZoneId, int, List, boolean)} with each owner's figures too. */
    public static DigestContent collect(List<Alert> live, List<Alert> ended, Instant from, Instant to, ZoneId zone,
                                        int slices, List<BusinessMeter.Figures> businesses,
                                        List<BusinessMeter.Figures> owners, boolean priced) {
        long start = from.toEpochMilli();
        long end = to.toEpochMilli();
        Map<String, List<Alert>> bySeverity = new TreeMap<>(Comparator.comparingInt(DigestCollector::rank)
                .thenComparing(Comparator.naturalOrder()));
        List<Alert> inspections = new ArrayList<>();
        for (Alert a : live) {
            if (a.firedAt() >= end) {
                continue;
            }
            if (INSPECTION_SEVERITIES.contains(a.severity())) {
                inspections.add(a);
            } else {
                bySeverity.computeIfAbsent(a.severity().isEmpty() ? "none" : a.severity(), k -> new ArrayList<>())
                        .add(a);
            }
        }
        Comparator<Alert> oldestFirst = Comparator.comparingLong(Alert::firedAt).thenComparing(Alert::fingerprint);
        bySeverity.values().forEach(l -> l.sort(oldestFirst));
        inspections.sort(oldestFirst);

        List<Alert> resolved = new ArrayList<>();
        Map<String, Integer> transitions = new HashMap<>();
        List<Alert> all = new ArrayList<>(live);
        for (Alert a : ended) {
            if (a.resolvedAt() >= start && a.resolvedAt() < end) {
                resolved.add(a);
            }
            all.add(a);
        }
        resolved.sort(Comparator.comparingLong(Alert::resolvedAt).thenComparing(Alert::fingerprint));
        for (Alert a : all) {
            int n = (within(a.firedAt(), start, end) ? 1 : 0)
                    + (a.resolvedAt() > 0 && within(a.resolvedAt(), start, end) ? 1 : 0);
            if (n > 0) {
                transitions.merge(a.rule(), n, Integer::sum);
            }
        }
        List<DigestContent.RuleCount> noisy = transitions.entrySet().stream()
                .map(e -> new DigestContent.RuleCount(e.getKey(), e.getValue()))
                .sorted(Comparator.comparingInt(DigestContent.RuleCount::transitions).reversed()
                        .thenComparing(DigestContent.RuleCount::rule))
                .limit(NOISY_RULES)
                .toList();
        return new DigestContent(from, to, zone, new LinkedHashMap<>(bySeverity), resolved, noisy, inspections,
                businesses, owners, priced, series(all, start, end, slices));
    }

    /** For each slice, how many alerts fired at some moment in it. */
    static double[] series(List<Alert> alerts, long start, long end, int slices) {
        double[] out = new double[Math.max(0, slices)];
        if (slices <= 0 || end <= start) {
            return out;
        }
        double width = (double) (end - start) / slices;
        for (Alert a : alerts) {
            long on = a.firedAt();
            long off = a.resolvedAt() > 0 ? a.resolvedAt() : Long.MAX_VALUE;
            for (int i = 0; i < slices; i++) {
                long s0 = start + (long) Math.floor(i * width);
                long s1 = i == slices - 1 ? end : start + (long) Math.floor((i + 1) * width);
                if (on < s1 && off > s0) {
                    out[i]++;
                }
            }
        }
        return out;
    }

    private static boolean within(long t, long start, long end) {
        return t >= start && t < end;
    }

    private static int rank(String severity) {
        int i = SEVERITY_ORDER.indexOf(severity);
        return i < 0 ? SEVERITY_ORDER.size() : i;
    }
}
