package io.gpuwatch.offline.score;

import io.gpuwatch.rules.Severity;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Scores the notifications of replayed traces against their labels (docs/alert-quality.md): a notification
 * belongs to a label when {@link Fired#covers} says so, and only to labels of its own trace. Pure: the same
 * input gives the same score.
 */
public final class Scorer {
    /** One replayed trace: its name, its labels, and every firing notification of the replay. */
    public record Trace(String name, List<Label> labels, List<Fired> fired) {
        public Trace {
            labels = List.copyOf(labels);
            fired = List.copyOf(fired);
        }
    }

    private Scorer() {
    }

    /** Pools every trace into one score. */
    public static Score score(List<Trace> traces) {
        List<Score.Item> items = new ArrayList<>();
        Map<String, int[]> perRule = new TreeMap<>();
        List<Score.TraceRow> rows = new ArrayList<>();
        long pages = 0;
        long truePages = 0;
        long notifications = 0;
        long trueNotifications = 0;
        for (Trace t : traces) {
            int incidents = 0;
            int caught = 0;
            int lookalikes = 0;
            int loud = 0;
            for (Label l : t.labels()) {
                Score.Item item = item(t.name(), l, t.fired());
                items.add(item);
                if (l.incident()) {
                    incidents++;
                    caught += onTime(item) ? 1 : 0;
                } else {
                    lookalikes++;
                    loud += item.verdict() == Score.Verdict.QUIET ? 0 : 1;
                }
            }
            int traceTrue = 0;
            for (Fired f : t.fired()) {
                boolean real = t.labels().stream().anyMatch(l -> l.incident() && f.covers(l));
                int[] c = perRule.computeIfAbsent(f.rule(), k -> new int[2]);
                c[0]++;
                c[1] += real ? 1 : 0;
                traceTrue += real ? 1 : 0;
                if (f.severity() == Severity.PAGE) {
                    pages++;
                    truePages += real ? 1 : 0;
                }
            }
            notifications += t.fired().size();
            trueNotifications += traceTrue;
            rows.add(new Score.TraceRow(t.name(), incidents, caught, lookalikes, loud, t.fired().size(), traceTrue));
        }
        List<Score.RuleRow> rules = new ArrayList<>();
        perRule.forEach((rule, c) -> rules.add(new Score.RuleRow(rule, c[0], c[1])));
        List<Long> delays = items.stream().filter(i -> i.label().incident() && i.delayMs() != null)
                .map(Score.Item::delayMs).sorted().toList();
        return new Score(
                recall(items, Label.Kind.HARD), recall(items, Label.Kind.COMPOSITE),
                new Score.Ratio(items.stream().filter(i -> i.verdict() == Score.Verdict.OK).count(),
                        items.stream().filter(Scorer::onTime).count()),
                new Score.Ratio(trueNotifications, notifications),
                new Score.Ratio(truePages, pages),
                new Score.Ratio(truePages, items.stream().filter(i -> i.label().incident() && i.pages() > 0).count()),
                new Score.Ratio(items.stream().filter(i -> i.verdict() == Score.Verdict.PAGED).count(),
                        items.stream().filter(i -> !i.label().incident()).count()),
                new Score.Ratio(items.stream().filter(i -> i.label().must() == Label.Must.NOT_NOTIFY
                        && i.notifications() > 0).count(),
                        items.stream().filter(i -> i.label().must() == Label.Must.NOT_NOTIFY).count()),
                median(delays), delays.isEmpty() ? null : delays.get(delays.size() - 1),
                items, rules, rows);
    }

    private static boolean onTime(Score.Item i) {
        return i.verdict() == Score.Verdict.OK || i.verdict() == Score.Verdict.WRONG_SEVERITY;
    }

    private static Score.Ratio recall(List<Score.Item> items, Label.Kind kind) {
        return new Score.Ratio(items.stream().filter(i -> i.label().kind() == kind && onTime(i)).count(),
                items.stream().filter(i -> i.label().kind() == kind).count());
    }

    /** The middle delay; the mean of the two middle ones for an even count. */
    private static Long median(List<Long> sorted) {
        if (sorted.isEmpty()) {
            return null;
        }
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static Score.Item item(String trace, Label l, List<Fired> fired) {
        Fired first = null;
        Fired top = null;
        int count = 0;
        int pages = 0;
        boolean onTime = false;
        for (Fired f : fired) {
            if (!f.covers(l)) {
                continue;
            }
            count++;
            pages += f.severity() == Severity.PAGE ? 1 : 0;
            onTime |= f.at() <= l.at() + l.withinMs();
            if (first == null || f.at() < first.at()) {
                first = f;
            }
            if (top == null || rank(f.severity()) < rank(top.severity())) {
                top = f;
            }
        }
        Score.Verdict verdict;
        if (l.incident()) {
            verdict = first == null ? Score.Verdict.MISSED : !onTime ? Score.Verdict.LATE
                    : l.accepts(top.severity()) ? Score.Verdict.OK : Score.Verdict.WRONG_SEVERITY;
        } else {
            verdict = pages > 0 ? Score.Verdict.PAGED
                    : count > 0 && l.must() == Label.Must.NOT_NOTIFY ? Score.Verdict.NOTIFIED : Score.Verdict.QUIET;
        }
        return new Score.Item(trace, l, top == null ? null : top.severity(), top == null ? null : top.action(),
                first == null ? null : first.at() - l.at(), count, pages, verdict);
    }

    /** Page first; a severity outside the four last. */
    private static int rank(Severity s) {
        return s == null ? Severity.values().length : s.ordinal();
    }
}
