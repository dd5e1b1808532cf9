package io.gpuwatch.notify.receiver.webhook;

import io.gpuwatch.notify.Group;
import io.gpuwatch.notify.Notification;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The Alertmanager webhook body, version "4", so anything that consumes Alertmanager webhooks consumes ours.
 * Group-level fields describe the whole batch; {@code alerts} is cut to {@code maxAlerts} and the rest counted
 * in {@code truncatedAlerts}. {@code groupKey} and {@code groupLabels} are the routing group's (its route's key
 * and {@code group_by} labels), so they stay put as alerts join and leave the group; a batch sent outside routing
 * counts as a group on the root route of the labels all its alerts share (for a single alert every label, as
 * Alertmanager does with {@code group_by: ['...']}).
 * The body is bounded: a label or annotation value over {@link #MAX_VALUE_CHARS} characters is cut and ends in
 * {@code …[cut N chars]}, and when the encoded body would still exceed {@link #MAX_BODY_BYTES}, alerts are left
 * out from the end and counted in {@code truncatedAlerts}, as {@code maxAlerts} does.
 */
final class AlertmanagerPayload {
    /** Go's zero {@code time.Time}, which Alertmanager writes as the end of an alert that still fires. */
    static final String ZERO_TIME = "0001-01-01T00:00:00Z";
    /** The longest label or annotation value sent whole, in characters (code points). */
    static final int MAX_VALUE_CHARS = 8_192;
    /** The largest body sent, in bytes of UTF-8 JSON. */
    static final int MAX_BODY_BYTES = 1_048_576;

    private AlertmanagerPayload() {
    }

    /** The body for {@code batch} of {@code group}; a null group: the root route's group of its common labels. */
    static JsonObject build(String receiver, Group group, List<Notification> batch, String externalUrl,
                            int maxAlerts) {
        Group g = group != null ? group : Group.of("{}", bounded(common(batch, Notification::labels)));
        int sent = maxAlerts > 0 && batch.size() > maxAlerts ? maxAlerts : batch.size();
        JsonObject body = payload(receiver, g, batch, externalUrl, sent);
        if (body.toBuffer().length() <= MAX_BODY_BYTES) {
            return body;
        }
        // The body grows with the alerts sent, so a binary search finds the most that fit.
        int lo = 0;
        int hi = sent - 1;
        JsonObject best = payload(receiver, g, batch, externalUrl, 0);
        while (lo <= hi) {
            int k = (lo + hi) >>> 1;
            JsonObject candidate = payload(receiver, g, batch, externalUrl, k);
            if (candidate.toBuffer().length() <= MAX_BODY_BYTES) {
                best = candidate;
                lo = k + 1;
            } else {
                hi = k - 1;
            }
        }
        return best;
    }

    private static JsonObject payload(String receiver, Group group, List<Notification> batch, String externalUrl,
                                      int sent) {
        boolean firing = batch.stream().anyMatch(n -> n.status() == Notification.Status.FIRING);
        Map<String, String> commonLabels = common(batch, Notification::labels);
        Map<String, String> commonAnnotations = common(batch, Notification::annotations);
        JsonArray alerts = new JsonArray();
        for (Notification n : batch.subList(0, sent)) {
            alerts.add(new JsonObject()
                    .put("status", status(n.status() == Notification.Status.FIRING))
                    .put("labels", object(n.labels()))
                    .put("annotations", object(n.annotations()))
                    .put("startsAt", rfc3339(n.startsAt()))
                    .put("endsAt", n.endsAt() == null ? ZERO_TIME : rfc3339(n.endsAt()))
                    .put("generatorURL", n.generatorUrl())
                    .put("fingerprint", n.fingerprint()));
        }
        return new JsonObject()
                .put("receiver", receiver)
                .put("status", status(firing))
                .put("alerts", alerts)
                .put("groupLabels", object(group.labels()))
                .put("commonLabels", object(commonLabels))
                .put("commonAnnotations", object(commonAnnotations))
                .put("externalURL", externalUrl)
                .put("version", "4")
                .put("groupKey", group.key())
                .put("truncatedAlerts", batch.size() - alerts.size());
    }

    /** RFC 3339 in UTC with trailing fraction zeros dropped, as Go's RFC3339Nano writes it. */
    static String rfc3339(Instant t) {
        String s = DateTimeFormatter.ISO_INSTANT.format(t);
        int dot = s.indexOf('.');
        if (dot < 0) {
            return s;
        }
        int end = s.length() - 1;
        while (s.charAt(end - 1) == '0') {
            end--;
        }
        return s.substring(0, end) + "Z";
    }

    private static String status(boolean firing) {
        return firing ? "firing" : "resolved";
    }

    private static Map<String, String> common(List<Notification> batch, Function<Notification, Map<String, String>> of) {
        if (batch.isEmpty()) {
            return Map.of();
        }
        Map<String, String> common = new HashMap<>(of.apply(batch.get(0)));
        for (Notification n : batch.subList(1, batch.size())) {
            Map<String, String> m = of.apply(n);
            common.entrySet().removeIf(e -> !e.getValue().equals(m.get(e.getKey())));
        }
        return common;
    }

    // Go's encoding/json writes map keys sorted; so do we, so payloads diff cleanly.
    private static JsonObject object(Map<String, String> m) {
        JsonObject o = new JsonObject();
        new TreeMap<>(m).forEach((k, v) -> o.put(k, bounded(v)));
        return o;
    }

    private static Map<String, String> bounded(Map<String, String> m) {
        Map<String, String> out = new HashMap<>();
        m.forEach((k, v) -> out.put(k, bounded(v)));
        return out;
    }

    /** The value whole when it has at most {@link #MAX_VALUE_CHARS} code points, else cut with a marker. */
    static String bounded(String v) {
        int n = v.codePointCount(0, v.length());
        if (n <= MAX_VALUE_CHARS) {
            return v;
        }
        return v.substring(0, v.offsetByCodePoints(0, MAX_VALUE_CHARS))
                + "…[cut " + (n - MAX_VALUE_CHARS) + " chars]";
    }
}
