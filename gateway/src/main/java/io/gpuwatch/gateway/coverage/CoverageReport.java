package io.gpuwatch.gateway.coverage;

import io.gpuwatch.rules.Layer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * Which signals arrive, per pool, card model and driver, over the window ending {@code at}: per layer the signals
 * present with how widely and how often, and the missing ones with the likely reason and the rules that therefore
 * cannot fire there; then the tasks whose application metrics arrive and the queues a scheduler reports.
 */
public record CoverageReport(long at, long windowMs, List<GroupCoverage> groups, List<ScopeCoverage> tasks,
                             List<ScopeCoverage> queues) {
    public CoverageReport {
        groups = List.copyOf(groups);
        tasks = List.copyOf(tasks);
        queues = List.copyOf(queues);
    }

    /** What a group shares: the nodes' pool label, the cards' model and the driver the node's hello named. */
    public record Key(String pool, String model, String driver) {
    }

    /**
     * One group: {@code nodes} and {@code cards} known, {@code sampledCards} of them that sent any reading in the
     * window, and the four layers.
     */
    public record GroupCoverage(Key key, int nodes, int cards, int sampledCards, List<LayerCoverage> layers) {
        public GroupCoverage {
            layers = List.copyOf(layers);
        }

        /** The layer's coverage. */
        public LayerCoverage layer(Layer layer) {
            return layers.stream().filter(l -> l.layer() == layer).findFirst().orElseThrow();
        }
    }

    /** The signals of one layer that arrive, and those that do not. */
    public record LayerCoverage(Layer layer, List<SignalCoverage> present, List<Missing> missing) {
        public LayerCoverage {
            present = List.copyOf(present);
            missing = List.copyOf(missing);
        }

        /** The present signal of this name, or null. */
        public SignalCoverage signal(String name) {
            return present.stream().filter(s -> s.signal().equals(name)).findFirst().orElse(null);
        }

        /** The missing signal of this name, or null. */
        public Missing missing(String name) {
            return missing.stream().filter(s -> s.signal().equals(name)).findFirst().orElse(null);
        }
    }

    /**
     * A signal that arrives: the share of the group's members (cards, nodes or queues) that sent it, how many
     * readings of it a member that sent it delivered per second, and the share of their frames that carried it.
     */
    public record SignalCoverage(String signal, double share, double perSecond, double frameShare) {
    }

    /** A signal no member sent, why that is likely, and the rules reading it. */
    public record Missing(String signal, String reason, List<RuleRef> rules) {
        public Missing {
            rules = List.copyOf(rules);
        }
    }

    /** A loaded rule, by name, layer and scope. */
    public record RuleRef(String name, String layer, String scope) {
    }

    /** A task or queue whose frames arrive, how often, and which metrics they carry. */
    public record ScopeCoverage(String name, double framesPerSecond, List<String> signals) {
        public ScopeCoverage {
            signals = List.copyOf(signals);
        }
    }

    /** The report as the API serves it. */
    public JsonObject toJson() {
        JsonArray gs = new JsonArray();
        for (GroupCoverage g : groups) {
            JsonObject layers = new JsonObject();
            for (LayerCoverage l : g.layers()) {
                JsonArray present = new JsonArray();
                for (SignalCoverage s : l.present()) {
                    present.add(new JsonObject().put("signal", s.signal()).put("share", round(s.share()))
                            .put("perSecond", round(s.perSecond()))
                            .put("frameShare", Double.isNaN(s.frameShare()) ? null : round(s.frameShare())));
                }
                JsonArray missing = new JsonArray();
                for (Missing m : l.missing()) {
                    JsonArray rules = new JsonArray();
                    m.rules().forEach(r -> rules.add(new JsonObject().put("name", r.name()).put("layer", r.layer())
                            .put("scope", r.scope())));
                    missing.add(new JsonObject().put("signal", m.signal()).put("reason", m.reason())
                            .put("rules", rules));
                }
                layers.put(l.layer().key(), new JsonObject().put("present", present).put("missing", missing));
            }
            gs.add(new JsonObject().put("pool", g.key().pool()).put("model", g.key().model())
                    .put("driver", g.key().driver()).put("nodes", g.nodes()).put("cards", g.cards())
                    .put("sampledCards", g.sampledCards()).put("layers", layers));
        }
        return new JsonObject().put("at", Instant.ofEpochMilli(at).toString()).put("windowSeconds", windowMs / 1000)
                .put("groups", gs).put("tasks", scopes(tasks, "task")).put("queues", scopes(queues, "queue"));
    }

    private static JsonArray scopes(List<ScopeCoverage> in, String key) {
        JsonArray out = new JsonArray();
        for (ScopeCoverage s : in) {
            out.add(new JsonObject().put(key, s.name()).put("framesPerSecond", round(s.framesPerSecond()))
                    .put("signals", new JsonArray(s.signals())));
        }
        return out;
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    /**
     * The API's JSON as Markdown, for people choosing a provider: one section per group, a line per layer with
     * its signals, and the missing ones with what they cost in rules. Reads the JSON, so the CLI renders what a
     * gateway of any version served.
     */
    public static String markdown(JsonObject report) {
        StringBuilder sb = new StringBuilder("# Monitoring coverage\n\n")
                .append("Signals that arrived in the ").append(report.getLong("windowSeconds", 0L))
                .append(" s up to ").append(report.getString("at", "?")).append(".\n");
        JsonArray groups = report.getJsonArray("groups", new JsonArray());
        if (groups.isEmpty()) {
            sb.append("\nNo node has said hello yet.\n");
        }
        for (int i = 0; i < groups.size(); i++) {
            JsonObject g = groups.getJsonObject(i);
            sb.append("\n## pool ").append(g.getString("pool")).append(" · ").append(g.getString("model"))
                    .append(" · driver ").append(g.getString("driver")).append("\n\n")
                    .append(g.getInteger("nodes")).append(" nodes, ").append(g.getInteger("cards"))
                    .append(" cards, ").append(g.getInteger("sampledCards")).append(" of them sending readings\n\n")
                    .append("| layer | arrives | missing |\n|---|---|---|\n");
            JsonObject layers = g.getJsonObject("layers");
            StringBuilder costs = new StringBuilder();
            for (String layer : layers.fieldNames()) {
                JsonObject l = layers.getJsonObject(layer);
                StringBuilder present = new StringBuilder();
                for (Object o : l.getJsonArray("present")) {
                    JsonObject s = (JsonObject) o;
                    present.append(present.isEmpty() ? "" : ", ").append(s.getString("signal"));
                    double share = s.getDouble("share");
                    if (share < 1) {
                        present.append(String.format(Locale.ROOT, " (%.0f%%)", share * 100));
                    }
                }
                StringBuilder missing = new StringBuilder();
                for (Object o : l.getJsonArray("missing")) {
                    JsonObject m = (JsonObject) o;
                    missing.append(missing.isEmpty() ? "" : ", ").append(m.getString("signal"));
                    JsonArray rules = m.getJsonArray("rules");
                    costs.append("- `").append(m.getString("signal")).append("` (").append(layer).append("): ")
                            .append(m.getString("reason"));
                    if (!rules.isEmpty()) {
                        costs.append(" — cannot fire: ");
                        for (int r = 0; r < rules.size(); r++) {
                            JsonObject rule = rules.getJsonObject(r);
                            costs.append(r == 0 ? "" : ", ").append(rule.getString("name")).append(" (")
                                    .append(rule.getString("layer")).append(")");
                        }
                    }
                    costs.append('\n');
                }
                sb.append("| ").append(layer).append(" | ").append(present.isEmpty() ? "—" : present)
                        .append(" | ").append(missing.isEmpty() ? "—" : missing).append(" |\n");
            }
            if (!costs.isEmpty()) {
                sb.append("\nMissing signals and what they cost:\n\n").append(costs);
            }
        }
        appendScopes(sb, "Tasks with application metrics", "task", report.getJsonArray("tasks", new JsonArray()));
        appendScopes(sb, "Queues a scheduler reports", "queue", report.getJsonArray("queues", new JsonArray()));
        return sb.toString();
    }

    private static void appendScopes(StringBuilder sb, String heading, String key, JsonArray scopes) {
        sb.append("\n## ").append(heading).append("\n\n");
        if (scopes.isEmpty()) {
            sb.append("none\n");
            return;
        }
        for (int i = 0; i < scopes.size(); i++) {
            JsonObject s = scopes.getJsonObject(i);
            sb.append("- ").append(s.getString(key)).append(": ")
                    .append(String.format(Locale.ROOT, "%.2f", s.getDouble("framesPerSecond"))).append(" frames/s (")
                    .append(String.join(", ", s.getJsonArray("signals").stream().map(Object::toString).toList()))
                    .append(")\n");
        }
    }
}
