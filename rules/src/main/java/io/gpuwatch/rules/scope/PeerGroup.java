package io.gpuwatch.rules.scope;

import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * One figure (e.g. {@code avg(gpuUtil, 2m)}) of every member of a group (the cards of a task, the nodes of a task)
 * at one instant, sorted once so that each member can be compared with the others in O(log n): the median of the
 * others (the member itself left out, so that with two nodes each is compared with the other), how many others
 * have a value, the member's value over that median, and the group's spread, the median absolute deviation of all
 * its values. A member without a value is no peer, and every figure of it is unknown.
 *
 * @param <K> the members, compared by identity
 */
public final class PeerGroup<K> {
    private final double[] sorted;
    private final Map<K, Double> values;
    /** The median absolute deviation, computed on the first SPREAD asked: most rules never ask, and it sorts. */
    private double spread;
    private boolean spreadKnown;

    private PeerGroup(double[] sorted, Map<K, Double> values) {
        this.sorted = sorted;
        this.values = values;
    }

    /** The group of {@code members} whose figures are {@code figures[i]}; NaN figures are left out. */
    public static <K> PeerGroup<K> of(List<K> members, double[] figures) {
        Map<K, Double> values = new IdentityHashMap<>(members.size());
        double[] known = new double[members.size()];
        int n = 0;
        for (int i = 0; i < members.size(); i++) {
            double v = figures[i];
            if (!Double.isNaN(v)) {
                values.put(members.get(i), v);
                known[n++] = v;
            }
        }
        double[] sorted = Arrays.copyOf(known, n);
        Arrays.sort(sorted);
        return new PeerGroup<>(sorted, values);
    }

    /** {@code stat} of {@code member} against the others; unknown for a member not in the group or without value. */
    public double stat(K member, PeerStat stat) {
        Double own = values.get(member);
        if (own == null) {
            return stat.none();
        }
        int others = sorted.length - 1;
        if (stat == PeerStat.COUNT) {
            return others;
        }
        if (stat == PeerStat.SPREAD) {
            if (!spreadKnown) {
                spread = sorted.length == 0 ? Double.NaN : mad(sorted);
                spreadKnown = true;
            }
            return spread;
        }
        if (others == 0) {
            return Double.NaN;
        }
        double median = medianWithout(Arrays.binarySearch(sorted, own));
        if (stat == PeerStat.MEDIAN) {
            return median;
        }
        return median == 0 ? Double.NaN : own / median;
    }

    /** The median of the sorted values with the one at {@code skip} left out. */
    private double medianWithout(int skip) {
        int n = sorted.length - 1;
        double lower = without(skip, (n - 1) / 2);
        return n % 2 == 1 ? lower : (lower + without(skip, n / 2)) / 2;
    }

    private double without(int skip, int k) {
        return sorted[k < skip ? k : k + 1];
    }

    private static double mad(double[] sorted) {
        double median = median(sorted);
        double[] deviations = new double[sorted.length];
        for (int i = 0; i < sorted.length; i++) {
            deviations[i] = Math.abs(sorted[i] - median);
        }
        Arrays.sort(deviations);
        return median(deviations);
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
