package io.gpuwatch.gateway.coverage;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.util.List;

/**
 * What arrives from one node over the window ending {@code at}: each card's readings a second and its signals, and
 * the application frames the node relays ({@code appFramesPerSecond}, carrying {@code appSignals}).
 */
public record NodeCoverage(String node, String pool, String driver, long at, long windowMs, List<CardCoverage> cards,
                           double appFramesPerSecond, List<String> appSignals) {
    public NodeCoverage {
        cards = List.copyOf(cards);
        appSignals = List.copyOf(appSignals);
    }

    /** One card: readings a second, the signals they carried, and those that never came. */
    public record CardCoverage(String uuid, String model, double readingsPerSecond,
                               List<CoverageReport.SignalCoverage> present, List<String> missing) {
        public CardCoverage {
            present = List.copyOf(present);
            missing = List.copyOf(missing);
        }
    }

    /** The node as the API serves it. */
    public JsonObject toJson() {
        JsonArray cs = new JsonArray();
        for (CardCoverage c : cards) {
            JsonArray present = new JsonArray();
            for (CoverageReport.SignalCoverage s : c.present()) {
                present.add(new JsonObject().put("signal", s.signal()).put("perSecond", round(s.perSecond()))
                        .put("frameShare", round(s.frameShare())));
            }
            cs.add(new JsonObject().put("uuid", c.uuid()).put("model", c.model())
                    .put("readingsPerSecond", round(c.readingsPerSecond())).put("present", present)
                    .put("missing", new JsonArray(c.missing())));
        }
        return new JsonObject().put("node", node).put("pool", pool).put("driver", driver)
                .put("at", Instant.ofEpochMilli(at).toString()).put("windowSeconds", windowMs / 1000)
                .put("cards", cs).put("appFramesPerSecond", round(appFramesPerSecond))
                .put("appSignals", new JsonArray(appSignals));
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
