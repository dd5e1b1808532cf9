package io.gpuwatch.cli.chaos;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A trial's notifications against the clean run's, alert by alert (by fingerprint). Each alert's notifications,
 * less those repeating a delivery key already received, read as a sequence of firing and resolved episodes; the
 * trial should have the clean run's episodes, at about the same times, and repeat nothing the clean run did not.
 */
final class Comparison {
    /**
     * What one trial did differently from the clean run.
     *
     * @param sends alerts received, every copy counted
     * @param lostPages firing episodes of the clean run the trial never sent
     * @param lostResolves resolved episodes of the clean run the trial never sent (an alert left firing)
     * @param doubledByKey copies that repeat a delivery key already received: a receiver can drop them by it
     * @param doubledOther further copies of a status already sent for the alert, under a new key (or none)
     * @param outOfOrder a resolve before any firing of the alert, or a firing that predates a resolve already sent
     * @param latePages pages that came more than the tolerance after the clean run's
     * @param lateResolves resolves that came more than the tolerance after the clean run's
     * @param extraPages firing episodes beyond the clean run's (the alert fired again)
     * @param maxResolveLateMs the latest a resolve came behind the clean run's (0 when none was later)
     * @param findings one line per difference, for the report
     */
    record Result(int sends, int lostPages, int lostResolves, int doubledByKey, int doubledOther, int outOfOrder,
                  int latePages, int lateResolves, int extraPages, long maxResolveLateMs, List<String> findings) {
        boolean clean() {
            return lostPages == 0 && lostResolves == 0 && doubledOther == 0 && outOfOrder == 0 && latePages == 0
                    && lateResolves == 0;
        }
    }

    /** One alert's notifications: deduplicated by key, with the episodes they make. */
    private record Track(List<Delivery> kept, int droppable, List<Delivery> episodes) {
        int count(boolean firing) {
            return (int) episodes.stream().filter(d -> d.firing() == firing).count();
        }

        List<Delivery> of(boolean firing) {
            return episodes.stream().filter(d -> d.firing() == firing).toList();
        }

        int repeats() {
            return kept.size() - episodes.size();
        }
    }

    /** A run on its own: alerts notified, their firing and resolved episodes, and those still firing at the end. */
    record Summary(int sends, int alerts, int pages, int resolves, int openAtEnd) {
    }

    private Comparison() {
    }

    static Summary summarise(List<Delivery> run) {
        Map<String, Track> t = tracks(run);
        int pages = 0;
        int resolves = 0;
        int open = 0;
        for (Track track : t.values()) {
            pages += track.count(true);
            resolves += track.count(false);
            if (track.episodes().get(track.episodes().size() - 1).firing()) {
                open++;
            }
        }
        return new Summary(run.size(), t.size(), pages, resolves, open);
    }

    static Result compare(List<Delivery> clean, List<Delivery> trial, long toleranceMs) {
        Map<String, Track> c = tracks(clean);
        Map<String, Track> t = tracks(trial);
        Set<String> alerts = new TreeSet<>(c.keySet());
        alerts.addAll(t.keySet());
        int lostPages = 0;
        int lostResolves = 0;
        int byKey = 0;
        int other = 0;
        int disorder = 0;
        int latePages = 0;
        int late = 0;
        int extra = 0;
        long maxLate = 0;
        List<String> findings = new ArrayList<>();
        Track none = new Track(List.of(), 0, List.of());
        for (String fp : alerts) {
            Track ct = c.getOrDefault(fp, none);
            Track tt = t.getOrDefault(fp, none);
            Delivery any = !tt.kept().isEmpty() ? tt.kept().get(0) : ct.kept().get(0);
            String what = any.alertname() + (any.node() == null ? "" : " on " + any.node());
            List<Delivery> cPages = ct.of(true);
            int lp = Math.max(0, cPages.size() - tt.count(true));
            for (int i = cPages.size() - lp; i < cPages.size(); i++) {
                findings.add(String.format(Locale.ROOT, "lost page: %s (clean run: %s)", what, at(cPages.get(i))));
            }
            lostPages += lp;
            List<Delivery> tPages = tt.of(true);
            for (int i = 0; i < Math.min(cPages.size(), tPages.size()); i++) {
                long behind = tPages.get(i).atMs() - cPages.get(i).atMs();
                if (behind > toleranceMs) {
                    latePages++;
                    findings.add(String.format(Locale.ROOT, "late page: %s %.0f s late (%s, clean run %s)", what,
                            behind / 1000.0, at(tPages.get(i)), at(cPages.get(i))));
                }
            }
            int ep = Math.max(0, tt.count(true) - cPages.size());
            if (ep > 0) {
                findings.add(String.format(Locale.ROOT, "extra page: %s (%d more than the clean run, last %s)", what,
                        ep, at(tt.of(true).get(tt.count(true) - 1))));
            }
            extra += ep;
            List<Delivery> cRes = ct.of(false);
            List<Delivery> tRes = tt.of(false);
            int lr = Math.max(0, cRes.size() - tRes.size());
            for (int i = cRes.size() - lr; i < cRes.size(); i++) {
                findings.add(String.format(Locale.ROOT, "lost resolve: %s (clean run: %s)", what, at(cRes.get(i))));
            }
            lostResolves += lr;
            for (int i = 0; i < Math.min(cRes.size(), tRes.size()); i++) {
                long behind = tRes.get(i).atMs() - cRes.get(i).atMs();
                maxLate = Math.max(maxLate, behind);
                if (behind > toleranceMs) {
                    late++;
                    findings.add(String.format(Locale.ROOT, "late resolve: %s %.0f s late (%s, clean run %s)", what,
                            behind / 1000.0, at(tRes.get(i)), at(cRes.get(i))));
                }
            }
            byKey += tt.droppable();
            if (tt.droppable() > 0) {
                findings.add(String.format(Locale.ROOT, "doubled, droppable by key: %s ×%d", what, tt.droppable()));
            }
            int d = Math.max(0, tt.repeats() - ct.repeats());
            if (d > 0) {
                findings.add(String.format(Locale.ROOT, "doubled under a new key: %s ×%d", what, d));
            }
            other += d;
            int o = disorder(tt.kept());
            if (o > 0) {
                findings.add(String.format(Locale.ROOT, "out of order: %s ×%d", what, o));
            }
            disorder += o;
        }
        return new Result(trial.size(), lostPages, lostResolves, byKey, other, disorder, latePages, late, extra, maxLate,
                findings);
    }

    /** A run's notifications by alert, in arrival order. */
    private static Map<String, Track> tracks(List<Delivery> deliveries) {
        Map<String, List<Delivery>> byAlert = new LinkedHashMap<>();
        for (Delivery d : deliveries) {
            String fp = d.fingerprint() != null ? d.fingerprint() : d.alertname() + "/" + d.node();
            byAlert.computeIfAbsent(fp, k -> new ArrayList<>()).add(d);
        }
        Map<String, Track> tracks = new LinkedHashMap<>();
        byAlert.forEach((fp, list) -> {
            Set<String> keys = new HashSet<>();
            List<Delivery> kept = new ArrayList<>();
            int droppable = 0;
            for (Delivery d : list) {
                if (d.key() != null && !keys.add(d.key() + " " + d.status())) {
                    droppable++;
                } else {
                    kept.add(d);
                }
            }
            List<Delivery> episodes = new ArrayList<>();
            for (Delivery d : kept) {
                if (episodes.isEmpty() || episodes.get(episodes.size() - 1).firing() != d.firing()) {
                    episodes.add(d);
                }
            }
            tracks.put(fp, new Track(kept, droppable, episodes));
        });
        return tracks;
    }

    /** Resolves before any firing, and firings that started before a resolve already received ended. */
    private static int disorder(List<Delivery> kept) {
        int n = 0;
        boolean fired = false;
        Instant lastEnd = null;
        for (Delivery d : kept) {
            if (d.firing()) {
                Instant starts = instant(d.startsAt());
                if (lastEnd != null && starts != null && !starts.isAfter(lastEnd)) {
                    n++;
                }
                fired = true;
            } else {
                if (!fired) {
                    n++;
                }
                Instant ends = instant(d.endsAt());
                if (ends != null && (lastEnd == null || ends.isAfter(lastEnd))) {
                    lastEnd = ends;
                }
            }
        }
        return n;
    }

    private static Instant instant(String rfc3339) {
        if (rfc3339 == null) {
            return null;
        }
        try {
            return Instant.parse(rfc3339);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static String at(Delivery d) {
        return String.format(Locale.ROOT, "%s at %.0f s", d.status(), d.atMs() / 1000.0);
    }
}
