package io.gpuwatch.gateway.cluster;

import io.gpuwatch.notify.Notification;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The alerts firing now anywhere in the cluster, as their owners last told: fingerprint to the alert's labels,
 * annotations and start, as JSON. A gateway that takes over a node reads that node's alerts back, so the engine
 * knows they fire (and resolves them when their condition ends) and the ledger does not take them for news.
 */
public final class SharedAlerts {
    /** The cluster-wide map: fingerprint to the alert as JSON. */
    public static final String MAP = "gpuwatch.alerts";

    private final AsyncMap<String, String> map;

    /** Alerts in {@code map}, shared by every gateway of the cluster. */
    public SharedAlerts(AsyncMap<String, String> map) {
        this.map = map;
    }

    /** One shared firing alert: rule name, identity labels, annotations and when its condition began to hold. */
    public record Entry(String fingerprint, String rule, Map<String, String> labels, Map<String, String> annotations,
                        long activeSince) {
        public Entry {
            labels = Map.copyOf(labels);
            annotations = Map.copyOf(annotations);
        }
    }

    /** Keeps a firing alert, or forgets a resolved one. */
    public Future<Void> record(Notification n) {
        if (n.status() == Notification.Status.RESOLVED) {
            return map.remove(n.fingerprint()).mapEmpty();
        }
        JsonObject json = new JsonObject()
                .put("labels", new JsonObject(new LinkedHashMap<>(n.labels())))
                .put("annotations", new JsonObject(new LinkedHashMap<>(n.annotations())))
                .put("activeSince", n.startsAt().toEpochMilli());
        return map.put(n.fingerprint(), json.encode());
    }

    /**
     * The shared alerts whose {@code node} label is {@code node}. An entry that does not read as one (written
     * by another version) is left out.
     */
    public Future<List<Entry>> ofNode(String node) {
        return map.entries().map(all -> {
            List<Entry> mine = new ArrayList<>();
            all.forEach((fp, text) -> {
                Entry e = read(fp, text);
                if (e != null && node.equals(e.labels().get("node"))) {
                    mine.add(e);
                }
            });
            return mine;
        });
    }

    private static Entry read(String fingerprint, String text) {
        try {
            JsonObject json = new JsonObject(text);
            Map<String, String> labels = strings(json.getJsonObject("labels"));
            String rule = labels.get("alertname");
            Long since = json.getLong("activeSince");
            if (rule == null || since == null) {
                return null;
            }
            return new Entry(fingerprint, rule, labels, strings(json.getJsonObject("annotations")), since);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static Map<String, String> strings(JsonObject o) {
        Map<String, String> m = new LinkedHashMap<>();
        if (o != null) {
            o.forEach(e -> m.put(e.getKey(), String.valueOf(e.getValue())));
        }
        return m;
    }
}
