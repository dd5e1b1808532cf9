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

    /** {@link #join(List, Markup, String, Limit)} for plain entries. */
    public static String join(List<String> entries, String separator, Limit limit) {
        return join(entries.stream().map(Text::literal).toList(), Markup.PLAIN, separator, limit);
    }

    /**
     * The entries, escaped for {@code markup} and joined with {@code separator}, within {@code limit}: as many
     * whole entries as fit, followed by a {@code +N more} line for the rest. When not even the first entry fits
     * beside that line, it is cut short with an ellipsis (between source characters, so no escape is split), so
     * the result always fits and always says how many entries it left out.
     */
    public static String join(List<Text> entries, Markup markup, String separator, Limit limit) {
        List<String> shown = entries.stream().map(e -> e.in(markup)).toList();
        String all = String.join(separator, shown);
        if (limit.fits(all)) {
            return all;
        }
        for (int kept = shown.size() - 1; kept >= 1; kept--) {
            String candidate = String.join(separator, shown.subList(0, kept)) + separator
                    + more(shown.size() - kept);
            if (limit.fits(candidate)) {
                return candidate;
            }
        }
        if (entries.size() == 1) {
            return entries.get(0).cut(limit, markup);
        }
        String tail = separator + more(entries.size() - 1);
        Limit left = limit.less(limit.size(tail));
        return left == null ? limit.cut(more(entries.size())) : entries.get(0).cut(left, markup) + tail;
    }

    /** {@link #fit(List, Markup, Function, Predicate)} for plain entries. */
    public static <T> Optional<T> fit(List<String> entries, Function<List<String>, T> build, Predicate<T> fits) {
        return fit(entries.stream().map(Text::literal).toList(), Markup.PLAIN, build, fits);
    }

    /**
     * The largest rendering that passes {@code fits}: {@code build} is given the first k entries, escaped for
     * {@code markup}, followed by a {@code +N more} line for the rest (the whole list first, then fewer and fewer).
     * When not even the first entry fits whole, it is cut short with an ellipsis, as long as fits, followed by
     * the {@code +N more} line for the others, so one long alert still shows its text. Empty when not even the
     * {@code +N more} line alone passes, which means the fixed part of the message (title, framing) alone is over
     * the limit. Use it where the limit applies to an encoded body, such as JSON.
     */
    public static <T> Optional<T> fit(List<Text> entries, Markup markup, Function<List<String>, T> build,
                                      Predicate<T> fits) {
        List<String> shown = entries.stream().map(e -> e.in(markup)).toList();
        T whole = build.apply(shown);
        if (fits.test(whole)) {
            return Optional.of(whole);
        }
        // Rendering size grows with k, so a binary search finds the largest k that fits.
        int lo = 0;
        int hi = shown.size() - 1;
        T best = null;
        int bestK = -1;
        while (lo <= hi) {
            int k = (lo + hi) >>> 1;
            T candidate = build.apply(keep(shown, k));
            if (fits.test(candidate)) {
                best = candidate;
                bestK = k;
                lo = k + 1;
            } else {
                hi = k - 1;
            }
        }
        if (bestK >= 1 || entries.isEmpty()) {
            return Optional.ofNullable(best);
        }
        T cut = cutFirst(entries, markup, build, fits);
        return Optional.ofNullable(cut != null ? cut : best);
    }

    // The first entry's longest prefix (in source characters, escaped after cutting) that fits with an ellipsis.
    private static <T> T cutFirst(List<Text> entries, Markup markup, Function<List<String>, T> build,
                                  Predicate<T> fits) {
        Text first = entries.get(0);
        String rest = entries.size() > 1 ? more(entries.size() - 1) : null;
        int lo = 1;
        int hi = first.codePoints() - 1;
        T best = null;
        while (lo <= hi) {
            int n = (lo + hi) >>> 1;
            String entry = first.prefix(n).in(markup) + Text.ELLIPSIS;
            T candidate = build.apply(rest == null ? List.of(entry) : List.of(entry, rest));
            if (fits.test(candidate)) {
                best = candidate;
                lo = n + 1;
            } else {
                hi = n - 1;
            }
        }
        return best;
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
