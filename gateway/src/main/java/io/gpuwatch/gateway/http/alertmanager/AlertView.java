package io.gpuwatch.gateway.http.alertmanager;

import io.gpuwatch.gateway.alert.Alert;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.util.List;
import java.util.TreeMap;

/**
 * One live alert as Alertmanager's API shows it (its {@code gettableAlert}): the receivers its routes send it to,
 * and the silences and the alerts that mute it now.
 *
 * @param generatorUrl the link its notifications carry
 */
record AlertView(Alert alert, List<String> receivers, List<String> silencedBy, List<String> inhibitedBy,
                 String generatorUrl) {
    /**
     * What {@code endsAt} holds while an alert fires: Go's zero time, as no end is known. gpuwatch resolves its
     * alerts itself, so it does not guess one as Alertmanager does for alerts sent without an end.
     */
    static final String NO_END = "0001-01-01T00:00:00Z";

    AlertView {
        receivers = List.copyOf(receivers);
        silencedBy = List.copyOf(silencedBy);
        inhibitedBy = List.copyOf(inhibitedBy);
    }

    /** {@code suppressed} when a silence or an inhibition mutes it, else {@code active}; none waits unprocessed. */
    String state() {
        return silencedBy.isEmpty() && inhibitedBy.isEmpty() ? "active" : "suppressed";
    }

    JsonObject json() {
        JsonArray to = new JsonArray();
        receivers.forEach(r -> to.add(new JsonObject().put("name", r)));
        return new JsonObject()
                .put("labels", new JsonObject(new TreeMap<String, Object>(alert.labels())))
                .put("annotations", new JsonObject(new TreeMap<String, Object>(alert.annotations())))
                .put("startsAt", Instant.ofEpochMilli(alert.activeSince()).toString())
                .put("updatedAt", Instant.ofEpochMilli(alert.firedAt()).toString())
                .put("endsAt", NO_END)
                .put("fingerprint", alert.fingerprint())
                .put("receivers", to)
                .put("status", new JsonObject().put("state", state())
                        .put("silencedBy", new JsonArray(silencedBy))
                        .put("inhibitedBy", new JsonArray(inhibitedBy)))
                .put("generatorURL", generatorUrl);
    }
}
