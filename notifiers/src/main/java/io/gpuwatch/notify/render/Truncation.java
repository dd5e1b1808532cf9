package io.gpuwatch.notify.render;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Fits a list of entries (one per alert) into a limit by keeping the first entries whole and replacing the
 * rest with a {@code +N more} line, so a reader sees the count of what was left out instead of a message the
 * target rejects or silently cuts mid-word.
 */
public final class Truncation {
    private Truncation() {
    }

    /** The line standing in for {@code n} omitted entries: {@code +n more}. */
    public static String more(int n) {
        return "+" + n + " more";
    }

    /**
     * The entries joined with {@code separator}, within {@code limit}: as many whole entries as fit, followed by a
     * {@code +N more} line for the rest. When not even the first entry fits beside that line, it is cut short
     * with an ellipsis, so the result always fits and always says how many entries it left out.
     */
    public static String join(List<String> entries, String separator, Limit limit) {
        String all = String.join(separator, entries);
        if (limit.fits(all)) {
            return all;
        }
        for (int kept = entries.size() - 1; kept >= 1; kept--) {
            String candidate = String.join(separator, entries.subList(0, kept)) + separator
                    + more(entries.size() - kept);
            if (limit.fits(candidate)) {
                return candidate;
            }
        }
        if (entries.size() == 1) {
            return limit.cut(entries.get(0));
        }
        String tail = separator + more(entries.size() - 1);
        Limit left = limit.less(limit.size(tail));
        return left == null ? limit.cut(more(entries.size())) : left.cut(entries.get(0)) + tail;
    }

    /**
     * The largest rendering that passes {@code fits}: {@code build} is given the first k entries followed by a
     * {@code +N more} line for the rest (the whole list first, then fewer and fewer, down to only the
     * {@code +N more} line). Empty when not even that passes, which means the fixed part of the message
     * (title, framing) alone is over the limit. Use it where the limit applies to an encoded body, such as JSON.
     */
    public static <T> Optional<T> fit(List<String> entries, Function<List<String>, T> build, Predicate<T> fits) {
        T whole = build.apply(List.copyOf(entries));
        if (fits.test(whole)) {
            return Optional.of(whole);
        }
        // Rendering size grows with k, so a binary search finds the largest k that fits.
        int lo = 0;
        int hi = entries.size() - 1;
        T best = null;
        while (lo <= hi) {
            int k = (lo + hi) >>> 1;
            T candidate = build.apply(keep(entries, k));
            if (fits.test(candidate)) {
                best = candidate;
                lo = k + 1;
            } else {
                hi = k - 1;
            }
        }
        return Optional.ofNullable(best);
    }

    /** The first {@code k} entries followed by a {@code +N more} line for the rest (no line when none is left). */
    public static List<String> keep(List<String> entries, int k) {
        if (k >= entries.size()) {
            return List.copyOf(entries);
        }
        List<String> kept = new ArrayList<>(entries.subList(0, Math.max(0, k)));
        kept.add(more(entries.size() - kept.size()));
        return List.copyOf(kept);
    }
}
