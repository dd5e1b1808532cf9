package io.gpuwatch.rules.source;

import java.util.Collection;
import java.util.Locale;

/** The one "did you mean" of the project: the closest known name to a typo, in one wording everywhere. */
public final class DidYouMean {
    private DidYouMean() {
    }

    /**
     * {@code " (did you mean `x`?)"} for the known name closest to {@code given} (case ignored, ties to the first in
     * name order) when it is within a typo's distance: 1 edit for names up to 3 characters, 2 up to 8, else 3.
     * Empty when none is that close.
     */
    public static String hint(String given, Collection<String> known) {
        return wording(closest(given, known));
    }

    /** {@code " (did you mean `x`?)"} for a name already chosen, e.g. ours for a PromQL function; empty for null. */
    public static String wording(String name) {
        return name == null ? "" : " (did you mean `" + name + "`?)";
    }

    /** The known name closest to {@code given} within a typo's distance, or null. */
    public static String closest(String given, Collection<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        String lower = given.toLowerCase(Locale.ROOT);
        for (String k : known) {
            int d = distance(lower, k.toLowerCase(Locale.ROOT));
            if (d < bestDistance || d == bestDistance && best != null && k.compareTo(best) < 0) {
                best = k;
                bestDistance = d;
            }
        }
        int allowed = given.length() <= 3 ? 1 : given.length() <= 8 ? 2 : 3;
        return best != null && bestDistance <= allowed ? best : null;
    }

    /** The Levenshtein distance of {@code a} and {@code b}. */
    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
