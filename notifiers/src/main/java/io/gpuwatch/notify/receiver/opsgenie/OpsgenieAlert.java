package io.gpuwatch.notify.receiver.opsgenie;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.render.Limit;
import io.gpuwatch.notify.render.Markup;
import io.gpuwatch.notify.render.Template;
import io.gpuwatch.notify.render.Truncation;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.format.DateTimeFormatter;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * Alert API bodies. The alias is the alert's fingerprint: creating an alert whose alias is open only bumps its
 * count, and close finds it by alias. Every field is fitted to Opsgenie's limits rather than rejected: message
 * 130, alias and entity 512, description 15,000, up to 20 tags of 50, details 8,000 characters in all.
 */
final class OpsgenieAlert {
    static final int MESSAGE_CHARS = 130;
    static final int DESCRIPTION_CHARS = 15_000;
    static final int ENTITY_CHARS = 512;
    static final int MAX_TAGS = 20;
    static final int TAG_CHARS = 50;
    static final int DETAILS_CHARS = 8_000;
    static final String SOURCE = "gpuwatch";

    private OpsgenieAlert() {
    }

    /** The create body. */
    static Buffer create(Notification n, OpsgenieConfig config, Template message, Template description) {
        JsonObject body = new JsonObject()
                .put("message", line(nonEmpty(text(message, n), n.labels().getOrDefault("alertname",
                        n.fingerprint())), MESSAGE_CHARS))
                .put("alias", OpsgenieReceiver.alias(n.fingerprint()))
                .put("description", fit(text(description, n), DESCRIPTION_CHARS))
                .put("source", SOURCE)
                .put("priority", config.priorityFor(n.labels().get("severity")))
                .put("tags", tags(n, config))
                .put("details", details(n));
        String entity = n.labels().getOrDefault("uuid", n.labels().getOrDefault("node", ""));
        if (!entity.isBlank()) {
            body.put("entity", line(entity, ENTITY_CHARS));
        }
        if (!config.responders().isEmpty()) {
            JsonArray responders = new JsonArray();
            for (OpsgenieConfig.Responder r : config.responders()) {
                responders.add(new JsonObject().put("type", r.type()).put(r.type().equals("user") ? "username" : "name",
                        r.name()));
            }
            body.put("responders", responders);
        }
        return body.toBuffer();
    }

    /** The close body, with a note saying when the alert ended. */
    static Buffer close(Notification n) {
        return new JsonObject()
                .put("source", SOURCE)
                .put("note", "Resolved in gpuwatch at " + DateTimeFormatter.ISO_INSTANT.format(n.endsAt()))
                .toBuffer();
    }

    private static JsonArray tags(Notification n, OpsgenieConfig config) {
        Set<String> tags = new LinkedHashSet<>(config.tags());
        for (String label : new String[] {"alertname", "severity"}) {
            String v = n.labels().get(label);
            if (v != null && !v.isBlank()) {
                tags.add(line(v, TAG_CHARS));
            }
        }
        return new JsonArray(tags.stream().limit(MAX_TAGS).toList());
    }

    // Labels in name order until the budget runs out, so the identifying ones (alertname, node, uuid) usually fit.
    private static JsonObject details(Notification n) {
        JsonObject details = new JsonObject();
        int used = 0;
        for (var e : new TreeMap<>(n.labels()).entrySet()) {
            int size = e.getKey().length() + e.getValue().length();
            if (used + size > DETAILS_CHARS) {
                break;
            }
            details.put(e.getKey(), e.getValue());
            used += size;
        }
        return details;
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

    // Whole lines while they fit, then a "+N more" line for the rest.
    private static String fit(String text, int max) {
        return Truncation.join(List.of(text.split("\n", -1)), "\n", Limit.chars(max));
    }
}
