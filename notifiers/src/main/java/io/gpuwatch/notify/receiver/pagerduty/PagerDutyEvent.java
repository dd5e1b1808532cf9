package io.gpuwatch.notify.receiver.pagerduty;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.render.Limit;
import io.gpuwatch.notify.render.Markup;
import io.gpuwatch.notify.render.Template;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Events API v2 bodies. The dedup key is the alert's fingerprint, so a retried or repeated trigger attaches to
 * the open PagerDuty alert instead of paging again, and resolve/acknowledge find it. Limits: summary 1024
 * characters (cut with an ellipsis), whole event 512 KB (over it, {@code custom_details} is replaced by a note).
 */
final class PagerDutyEvent {
    static final int SUMMARY_CHARS = 1024;
    static final int MAX_EVENT_BYTES = 512 * 1024;
    static final String CLIENT = "gpuwatch";

    private PagerDutyEvent() {
    }

    /** A trigger carrying the whole alert. */
    static Buffer trigger(String routingKey, Notification n, Template summary, Template source, String severity) {
        JsonObject details = new JsonObject()
                .put("fingerprint", n.fingerprint())
                .put("firing_since", DateTimeFormatter.ISO_INSTANT.format(n.startsAt()))
                .put("labels", sorted(n.labels()))
                .put("annotations", sorted(n.annotations()));
        JsonObject payload = new JsonObject()
                .put("summary", line(text(summary, n), SUMMARY_CHARS))
                .put("source", line(nonEmpty(text(source, n), CLIENT), SUMMARY_CHARS))
                .put("severity", severity)
                .put("timestamp", DateTimeFormatter.ISO_INSTANT.format(n.startsAt()))
                .put("custom_details", details);
        putIfPresent(payload, "class", n.labels().get("alertname"));
        putIfPresent(payload, "group", n.labels().get("node"));
        putIfPresent(payload, "component", n.labels().get("uuid"));
        JsonObject event = new JsonObject()
                .put("routing_key", routingKey)
                .put("event_action", "trigger")
                .put("dedup_key", PagerDutyReceiver.dedupKey(n.fingerprint()))
                .put("payload", payload)
                .put("client", CLIENT);
        JsonArray links = new JsonArray();
        if (!n.generatorUrl().isEmpty()) {
            event.put("client_url", n.generatorUrl());
            links.add(new JsonObject().put("href", n.generatorUrl()).put("text", "Alert in gpuwatch"));
        }
        String runbook = n.annotations().get("runbook");
        if (runbook != null && !runbook.isBlank()) {
            links.add(new JsonObject().put("href", runbook).put("text", "Runbook"));
        }
        if (!links.isEmpty()) {
            event.put("links", links);
        }
        Buffer body = event.toBuffer();
        if (body.length() <= MAX_EVENT_BYTES) {
            return body;
        }
        // As Alertmanager does: the details are what grows without bound, and a page without them beats none.
        payload.put("custom_details", new JsonObject()
                .put("fingerprint", n.fingerprint())
                .put("note", "details dropped: the event exceeded PagerDuty's 512 KB limit"));
        return event.toBuffer();
    }

    /** An acknowledge or resolve: PagerDuty needs only the key and the action. */
    static Buffer action(String routingKey, String action, String dedupKey) {
        return new JsonObject()
                .put("routing_key", routingKey)
                .put("event_action", action)
                .put("dedup_key", dedupKey)
                .toBuffer();
    }

    private static JsonObject sorted(Map<String, String> m) {
        JsonObject o = new JsonObject();
        new TreeMap<>(m).forEach(o::put);
        return o;
    }

    private static void putIfPresent(JsonObject o, String key, String value) {
        if (value != null && !value.isBlank()) {
            o.put(key, value);
        }
    }

    private static String nonEmpty(String v, String fallback) {
        return v.isBlank() ? fallback : v;
    }

    private static String text(Template template, Notification n) {
        return template.render(n, List.of(n), Markup.PLAIN);
    }

    private static String line(String text, int max) {
        return Limit.chars(max).line(text);
    }
}
