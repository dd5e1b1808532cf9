package io.gpuwatch.gateway.delivery;

import io.gpuwatch.gateway.group.Flush;
import io.gpuwatch.notify.Notification;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One outbox row's payload: the batch of notifications of a group, the group's labels and why it went out, as
 * JSON text ({@code {"reason":"FIRST","groupLabels":{…},"alerts":[{"fingerprint":…,"status":"FIRING",…}]}}),
 * times in ISO-8601. The group's key is the row's key. Rows written before group labels were kept read with none.
 */
public record BatchPayload(Flush.Reason reason, Map<String, String> groupLabels, List<Notification> alerts) {
    public BatchPayload {
        groupLabels = Map.copyOf(groupLabels);
        alerts = List.copyOf(alerts);
    }

    /** The payload of {@code flush}. */
    public static BatchPayload of(Flush flush) {
        return new BatchPayload(flush.reason(), flush.groupLabels(), flush.alerts());
    }

    /** The JSON text of this payload; equal payloads give equal text. */
    public String encode() {
        JsonArray list = new JsonArray();
        for (Notification n : alerts) {
            JsonObject o = new JsonObject()
                    .put("fingerprint", n.fingerprint())
                    .put("status", n.status().name())
                    .put("labels", map(n.labels()))
                    .put("annotations", map(n.annotations()))
                    .put("startsAt", n.startsAt().toString());
            if (n.endsAt() != null) {
                o.put("endsAt", n.endsAt().toString());
            }
            list.add(o.put("generatorUrl", n.generatorUrl()));
        }
        return new JsonObject().put("reason", reason.name()).put("groupLabels", map(groupLabels)).put("alerts", list)
                .encode();
    }

    /**
     * Reads text written by {@link #encode}.
     *
     * @throws IllegalArgumentException naming {@code where} and the field at fault
     */
    public static BatchPayload decode(String json, String where) {
        try {
            JsonObject o = new JsonObject(json);
            Flush.Reason reason = Flush.Reason.valueOf(required(o, "reason", where));
            JsonArray list = o.getJsonArray("alerts");
            if (list == null) {
                throw new IllegalArgumentException(where + ": `alerts` is missing");
            }
            List<Notification> alerts = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                String at = where + " alerts[" + i + "]";
                JsonObject a = list.getJsonObject(i);
                String ends = a.getString("endsAt");
                alerts.add(new Notification(required(a, "fingerprint", at),
                        Notification.Status.valueOf(required(a, "status", at)),
                        strings(a.getJsonObject("labels"), at + ".labels"),
                        strings(a.getJsonObject("annotations"), at + ".annotations"),
                        Instant.parse(required(a, "startsAt", at)), ends == null ? null : Instant.parse(ends),
                        a.getString("generatorUrl")));
            }
            JsonObject group = o.getJsonObject("groupLabels");
            return new BatchPayload(reason, group == null ? Map.of() : strings(group, where + " groupLabels"), alerts);
        } catch (DecodeException | ClassCastException | DateTimeParseException e) {
            throw new IllegalArgumentException(where + ": unreadable payload: " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            // an unknown enum name or an inconsistent notification: say which row
            String m = e.getMessage() == null ? e.toString() : e.getMessage();
            throw m.startsWith(where) ? e : new IllegalArgumentException(where + ": " + m, e);
        }
    }

    private static JsonObject map(Map<String, String> m) {
        JsonObject o = new JsonObject();
        new TreeMap<>(m).forEach(o::put);
        return o;
    }

    private static String required(JsonObject o, String field, String where) {
        String v = o.getString(field);
        if (v == null) {
            throw new IllegalArgumentException(where + ": `" + field + "` is missing");
        }
        return v;
    }

    private static Map<String, String> strings(JsonObject o, String where) {
        if (o == null) {
            throw new IllegalArgumentException(where + " is missing");
        }
        Map<String, String> m = new LinkedHashMap<>();
        for (String k : o.fieldNames()) {
            m.put(k, o.getString(k));
        }
        return m;
    }
}
