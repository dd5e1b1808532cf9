package io.gpuwatch.notify.receiver.alertmanager;

import io.gpuwatch.notify.Notification;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The body of {@code POST /api/v2/alerts}: an array of Alertmanager's {@code postableAlert}
 * ({@code labels} required, {@code annotations}, {@code startsAt}, {@code endsAt}, {@code generatorURL}). A
 * resolved alert carries its real end; a firing one ends {@code validity} after now, as Prometheus does, so
 * Alertmanager resolves it by itself if we stop re-sending. Label names outside {@code [a-zA-Z_][a-zA-Z0-9_]*},
 * which Alertmanager's classic validation rejects for the whole batch, have the other characters replaced by
 * {@code _}; empty values are left out, since Alertmanager treats them as absent.
 */
final class PostableAlerts {
    private PostableAlerts() {
    }

    static JsonArray build(List<Notification> batch, Instant now, long validityMs) {
        JsonArray alerts = new JsonArray();
        for (Notification n : batch) {
            Instant ends = n.endsAt() != null ? n.endsAt() : now.plusMillis(validityMs);
            JsonObject alert = new JsonObject()
                    .put("labels", labels(n.labels()))
                    .put("annotations", sorted(n.annotations()))
                    .put("startsAt", time(n.startsAt()))
                    .put("endsAt", time(ends.isBefore(n.startsAt()) ? n.startsAt() : ends));
            if (!n.generatorUrl().isEmpty()) {
                alert.put("generatorURL", n.generatorUrl());
            }
            alerts.add(alert);
        }
        return alerts;
    }

    /** A label name Alertmanager's classic validation accepts. */
    static String labelName(String name) {
        StringBuilder sb = new StringBuilder(name.length() + 1);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9';
            if (i == 0 && c >= '0' && c <= '9') {
                sb.append('_').append(c);
            } else {
                sb.append(ok ? c : '_');
            }
        }
        return sb.length() == 0 ? "_" : sb.toString();
    }

    private static JsonObject labels(Map<String, String> labels) {
        JsonObject o = new JsonObject();
        new TreeMap<>(labels).forEach((k, v) -> {
            if (!v.isEmpty()) {
                o.put(labelName(k), v);
            }
        });
        return o;
    }

    private static JsonObject sorted(Map<String, String> m) {
        JsonObject o = new JsonObject();
        new TreeMap<>(m).forEach(o::put);
        return o;
    }

    private static String time(Instant t) {
        return DateTimeFormatter.ISO_INSTANT.format(t);
    }
}
