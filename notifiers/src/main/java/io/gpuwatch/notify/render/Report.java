package io.gpuwatch.notify.render;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A periodic summary as text, for a chat channel: a title, a period line, sections of lines (each section a
 * heading and its items), a trend line (what it counts and a {@link Sparkline} of it), and the URL of a chart
 * image of the same series when the target can show one (null otherwise). Unlike a {@link Digest} it is not
 * made from one batch of alerts.
 */
public record Report(String title, String period, List<Section> sections, String trend, String chartUrl) {
    /** One heading and its lines; a section with no lines says so in {@code empty} instead. */
    public record Section(String heading, List<String> lines, String empty) {
        public Section {
            Objects.requireNonNull(heading, "heading");
            lines = List.copyOf(lines);
            empty = empty == null ? "" : empty;
        }

        /** The lines, or the one {@code empty} line when there are none. */
        public List<String> shown() {
            return lines.isEmpty() && !empty.isEmpty() ? List.of(empty) : lines;
        }
    }

    public Report {
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(period, "period");
        sections = List.copyOf(sections);
        trend = trend == null ? "" : trend;
    }

    /** The same report without its chart, for targets that show text only. */
    public Report withoutChart() {
        return new Report(title, period, sections, trend, null);
    }

    /**
     * The largest rendering that passes {@code fits}: the whole report first, then with the longest section cut
     * by one more line each time (its last kept line becoming {@code +N more}), until it fits. Empty when even
     * every section cut to its {@code +N more} line does not fit, which means the title and framing alone are over.
     */
    public <T> Optional<T> fit(Function<Report, T> build, Predicate<T> fits) {
        int[] kept = new int[sections.size()];
        for (int i = 0; i < kept.length; i++) {
            kept[i] = sections.get(i).lines().size();
        }
        while (true) {
            T candidate = build.apply(cut(kept));
            if (fits.test(candidate)) {
                return Optional.of(candidate);
            }
            int longest = -1;
            for (int i = 0; i < kept.length; i++) {
                if (kept[i] > 0 && (longest < 0 || kept[i] > kept[longest])) {
                    longest = i;
                }
            }
            if (longest < 0) {
                return Optional.empty();
            }
            kept[longest]--;
        }
    }

    private Report cut(int[] kept) {
        List<Section> out = new ArrayList<>(sections.size());
        for (int i = 0; i < sections.size(); i++) {
            Section s = sections.get(i);
            out.add(new Section(s.heading(), Truncation.keep(s.lines(), kept[i]), s.empty()));
        }
        return new Report(title, period, out, trend, chartUrl);
    }

    /** The report as plain text lines: title, period, the trend, then each section with indented lines. */
    public List<String> plainLines() {
        List<String> out = new ArrayList<>();
        out.add(title);
        out.add(period);
        if (!trend.isEmpty()) {
            out.add(trend);
        }
        for (Section s : sections) {
            out.add(s.heading());
            for (String line : s.shown()) {
                out.add("  " + line);
            }
        }
        return out;
    }
}
