package io.gpuwatch.cli.chaos;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** What a chaos bench found: the clean run, each trial against it, and the totals; as a table or as JSON. */
public record ChaosReport(ChaosBench.Settings settings, ChaosRun.Outcome clean, List<Trial> trials) {
    /** One trial: what ran and how it compared. */
    public record Trial(ChaosRun.Outcome outcome, Comparison.Result result) {
    }

    public ChaosReport {
        trials = List.copyOf(trials);
    }

    /** Trials that lost a page or a resolve, sent one late or out of order, or doubled one under a new key. */
    public long troubledTrials() {
        return trials.stream().filter(t -> !t.result().clean()).count();
    }

    public Comparison.Summary cleanSummary() {
        return Comparison.summarise(clean.received());
    }

    /** Sums of the trials' counts, in the order of the table's columns. */
    public int[] totals() {
        int[] sum = new int[9];
        for (Trial t : trials) {
            Comparison.Result r = t.result();
            int[] row = {r.sends(), r.lostPages(), r.lostResolves(), r.doubledByKey(), r.doubledOther(), r.outOfOrder(),
                    r.latePages(), r.lateResolves(), r.extraPages()};
            for (int i = 0; i < sum.length; i++) {
                sum[i] += row[i];
            }
        }
        return sum;
    }

    public String table() {
        StringBuilder b = new StringBuilder();
        Comparison.Summary c = cleanSummary();
        b.append(String.format(Locale.ROOT, "clean run: %d alerts notified, %d pages, %d resolves, %d still firing at "
                + "the end (%.0f s run)%n%n", c.alerts(), c.pages(), c.resolves(), c.openAtEnd(),
                settings.runMs() / 1000.0));
        String head = "| trial | kills | sends | lost pages | lost resolves | doubled, droppable by key | "
                + "doubled, new key | out of order | late pages | late resolves | extra pages | latest resolve behind |";
        b.append(head).append('\n').append("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        for (Trial t : trials) {
            Comparison.Result r = t.result();
            b.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %.0f s |%n",
                    t.outcome().name(), kills(t.outcome()), r.sends(), r.lostPages(), r.lostResolves(),
                    r.doubledByKey(), r.doubledOther(), r.outOfOrder(), r.latePages(), r.lateResolves(), r.extraPages(),
                    r.maxResolveLateMs() / 1000.0));
        }
        int[] s = totals();
        long killCount = trials.stream().mapToLong(t -> t.outcome().kills().size()).sum();
        b.append(String.format(Locale.ROOT, "| **total** | %d kills | %d | %d | %d | %d | %d | %d | %d | %d | %d | |%n",
                killCount, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8]));
        b.append(String.format(Locale.ROOT, "%n%d of %d trials lost, doubled (under a new key), disordered or delayed "
                + "a notification (tolerance %.0f s)%n", troubledTrials(), trials.size(), settings.toleranceMs() / 1000.0));
        for (Trial t : trials) {
            for (String f : t.result().findings()) {
                b.append("  ").append(t.outcome().name()).append(": ").append(f).append('\n');
            }
        }
        return b.toString();
    }

    /** Each kill as kind@time, in a cluster which gateway it hit, and how long until it took probes again. */
    private String kills(ChaosRun.Outcome o) {
        return o.kills().stream().map(k -> String.format(Locale.ROOT, "%s@%.0fs%s (down %.0fs)", k.kill().kind().label,
                k.killedAtMs() / 1000.0, settings.cluster() ? " g" + k.kill().gateway() : "", k.downMs() / 1000.0))
                .collect(Collectors.joining(", "));
    }

    public JsonObject json() {
        Comparison.Summary c = cleanSummary();
        JsonObject j = new JsonObject()
                .put("scenario", settings.scenario().name()).put("rules", new JsonArray(settings.rules().stream()
                        .map(Object::toString).toList()))
                .put("trials", settings.trials()).put("killsPerTrial", settings.kills()).put("seed", settings.seed())
                .put("cluster", settings.cluster()).put("runMs", settings.runMs())
                .put("toleranceMs", settings.toleranceMs())
                .put("clean", new JsonObject().put("sends", c.sends()).put("alerts", c.alerts()).put("pages", c.pages())
                        .put("resolves", c.resolves()).put("openAtEnd", c.openAtEnd())
                        .put("notifications", deliveries(clean.received())));
        JsonArray rows = new JsonArray();
        for (Trial t : trials) {
            Comparison.Result r = t.result();
            JsonArray kills = new JsonArray();
            for (ChaosRun.KillLog k : t.outcome().kills()) {
                kills.add(new JsonObject().put("kind", k.kill().kind().label).put("gateway", k.kill().gateway())
                        .put("armedAtMs", k.kill().atMs()).put("killedAtMs", k.killedAtMs()).put("downMs", k.downMs())
                        .put("outageMs", k.kill().outageMs()).put("note", k.note()));
            }
            rows.add(new JsonObject().put("name", t.outcome().name()).put("kills", kills).put("sends", r.sends())
                    .put("lostPages", r.lostPages()).put("lostResolves", r.lostResolves())
                    .put("doubledByKey", r.doubledByKey()).put("doubledOther", r.doubledOther())
                    .put("outOfOrder", r.outOfOrder()).put("latePages", r.latePages())
                    .put("lateResolves", r.lateResolves())
                    .put("extraPages", r.extraPages()).put("maxResolveLateMs", r.maxResolveLateMs())
                    .put("refusedDuringOutage", t.outcome().refused())
                    .put("findings", new JsonArray(r.findings())));
        }
        int[] s = totals();
        j.put("trialResults", rows).put("total", new JsonObject().put("sends", s[0]).put("lostPages", s[1])
                .put("lostResolves", s[2]).put("doubledByKey", s[3]).put("doubledOther", s[4]).put("outOfOrder", s[5])
                .put("latePages", s[6]).put("lateResolves", s[7]).put("extraPages", s[8])
                .put("troubledTrials", troubledTrials()));
        return j;
    }

    private static JsonArray deliveries(List<Delivery> ds) {
        JsonArray a = new JsonArray();
        for (Delivery d : ds) {
            a.add(new JsonObject().put("atMs", d.atMs()).put("alertname", d.alertname()).put("node", d.node())
                    .put("status", d.status()).put("fingerprint", d.fingerprint()).put("key", d.key()));
        }
        return a;
    }
}
