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
    /** Up to this many members are found by a scan, which beats hashing them; larger groups build an index. */
    private static final int SCANNED = 32;

    private final double[] sorted;
    /** The members with a value, and their values, in member order. */
    private final Object[] known;
    private final double[] values;
    /** Position in {@link #known} by member, built on the first look-up in a group too large to scan. */
    private Map<Object, Integer> index;
    /** The median absolute deviation, computed on the first SPREAD asked: most rules never ask, and it sorts. */
    private double spread;
    private boolean spreadKnown;

    private PeerGroup(double[] sorted, Object[] known, double[] values) {
        this.sorted = sorted;
        this.known = known;
        this.values = values;
    }

    /** The group of {@code members} whose figures are {@code figures[i]}; NaN figures are left out. */
    public static <K> PeerGroup<K> of(List<? extends K> members, double[] figures) {
        Object[] known = new Object[members.size()];
        double[] values = new double[members.size()];
        int n = 0;
        for (int i = 0; i < known.length; i++) {
            double v = figures[i];
            if (!Double.isNaN(v)) {
                known[n] = members.get(i);
                values[n++] = v;
            }
        }
        double[] sorted = Arrays.copyOf(values, n);
        Arrays.sort(sorted);
        return new PeerGroup<>(sorted, Arrays.copyOf(known, n), Arrays.copyOf(values, n));
    }

    /** {@code stat} of {@code member} against the others; unknown for a member not in the group or without value. */
    public double stat(K member, PeerStat stat) {
        int at = positionOf(member);
        if (at < 0) {
            return stat.none();
        }
        double own = values[at];
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

    /** Where {@code member} is in {@link #known}, by identity; -1 when it has no value. A member listed twice counts
     * with its last figure. */
    private int positionOf(Object member) {
        if (known.length <= SCANNED) {
            for (int i = known.length - 1; i >= 0; i--) {
                if (known[i] == member) {
                    return i;
                }
            }
            return -1;
        }
        if (index == null) {
            index = new IdentityHashMap<>(known.length);
            for (int i = 0; i < known.length; i++) {
                index.put(known[i], i);
            }
        }
        Integer at = index.get(member);
        return at == null ? -1 : at;
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
