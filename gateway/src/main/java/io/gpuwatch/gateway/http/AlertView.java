package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.store.Acknowledgement;
import io.gpuwatch.gateway.store.Escalation;
import io.gpuwatch.rules.eval.AlertState;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

/**
 * An alert as the API shows it: the ledger's alert with what mutes it now (the silences by id, the inhibiting
 * alerts by fingerprint) and the acknowledgement in force; an ended alert is muted and acknowledged by nothing.
 */
record AlertView(Alert alert, List<String> silencedBy, List<String> inhibitedBy, Acknowledgement acked,
                 Escalation escalation) {
    AlertView {
        silencedBy = List.copyOf(silencedBy);
        inhibitedBy = List.copyOf(inhibitedBy);
    }

    /** {@code a} as it stands at {@code now} on {@code gateway}. */
    static AlertView of(ApiHost gateway, Alert a, Instant now) {
        if (a.state() == AlertState.RESOLVED || a.state() == AlertState.INACTIVE) {
            return new AlertView(a, List.of(), List.of(), null, null);
        }
        return new AlertView(a, gateway.dispatcher().silences().silenced(a.labels(), now),
                gateway.dispatcher().inhibitedBy(a.fingerprint(), a.labels()),
                gateway.acknowledgements().of(a.fingerprint(), a.activeSince()).orElse(null),
                gateway.escalation(a.fingerprint()).filter(e -> e.activeSince() == a.activeSince()).orElse(null));
    }

    /**
     * The alert's JSON: times as epoch milliseconds, as this API first gave them, and again as RFC 3339 under
     * {@code times}.
     */
    JsonObject json() {
        Alert a = alert;
        return new JsonObject()
                .put("fingerprint", a.fingerprint())
                .put("rule", a.rule())
                .put("severity", a.severity())
                .put("state", a.state().name().toLowerCase(Locale.ROOT))
                .put("labels", new JsonObject(new TreeMap<String, Object>(a.labels())))
                .put("annotations", new JsonObject(new TreeMap<String, Object>(a.annotations())))
                .put("activeSince", a.activeSince())
                .put("firedAt", a.firedAt() == 0 ? null : a.firedAt())
                .put("resolvedAt", a.resolvedAt() == 0 ? null : a.resolvedAt())
                .put("times", new JsonObject().put("activeSince", time(a.activeSince()))
                        .put("firedAt", time(a.firedAt())).put("resolvedAt", time(a.resolvedAt())))
                .put("silencedBy", new JsonArray(silencedBy))
                .put("inhibitedBy", new JsonArray(inhibitedBy))
                .put("acked", acked == null ? null : AckRecorder.json(acked))
                .put("escalation", escalation == null ? null : escalation(escalation));
    }

    /**
     * Where the alert's escalation stands: its policy, the round and step paged last (from 1; 0 before the
     * first), whether it runs, is held by an acknowledgement or has run out, and when the next step is due.
     */
    private static JsonObject escalation(Escalation e) {
        return new JsonObject().put("policy", e.policy()).put("round", e.round() + 1).put("step", e.step() + 1)
                .put("state", e.state().name().toLowerCase(Locale.ROOT))
                .put("nextAt", e.deadline() == null ? null : e.deadline().toString());
    }

    /** Epoch milliseconds as RFC 3339; null for 0, a time that did not happen. */
    static String time(long ms) {
        return ms == 0 ? null : Instant.ofEpochMilli(ms).toString();
    }
}
