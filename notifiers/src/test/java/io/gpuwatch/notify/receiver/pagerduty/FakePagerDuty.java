package io.gpuwatch.notify.receiver.pagerduty;

import io.gpuwatch.notify.http.FakeService;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Events API v2 endpoint as PagerDuty checks it: POST /v2/enqueue with a JSON body, a 32-character
 * routing key, a known action, a trigger's required payload fields and the size limits; 202 with the dedup key
 * when accepted, 400 {@code invalid event} with {@code errors} when not. It keeps alerts by dedup key, so a
 * repeated trigger attaches to the open alert and {@link #pages} counts only real pages. Scripted answers
 * queued with {@link #then} are given before any checking, in turn.
 */
final class FakePagerDuty extends FakeService<FakePagerDuty> {
    static final String ROUTING_KEY = "R0UT1NGK3Y0123456789abcdefABCDEF";

    /** One PagerDuty alert: its last trigger and its state. */
    static final class Alert {
        JsonObject lastTrigger;
        String state = "triggered";
    }

    final List<JsonObject> events = new ArrayList<>();
    final Map<String, Alert> alerts = new LinkedHashMap<>();
    int pages;
    int requests;

    @Override
    protected void seen(HttpServerRequest req) {
        requests++;
    }

    String url() {
        return base() + "/v2/enqueue";
    }

    @Override
    protected void handle(HttpServerRequest req, String body) {
        if (req.method().name().equals("POST") && !req.path().equals("/v2/enqueue")) {
            req.response().setStatusCode(404).end();
            return;
        }
        if (!req.method().name().equals("POST")) {
            req.response().setStatusCode(405).end();
            return;
        }
        List<String> errors = new ArrayList<>();
        String type = req.getHeader("Content-Type");
        if (type == null || !type.startsWith("application/json")) {
            errors.add("Content-Type must be application/json");
        }
        if (body.length() > 512 * 1024) {
            errors.add("Event object is too large");
        }
        JsonObject event;
        try {
            event = new JsonObject(body);
        } catch (DecodeException e) {
            invalid(req, List.of("Malformed JSON"));
            return;
        }
        String key = event.getString("routing_key", "");
        if (key.length() != 32) {
            errors.add("Length of 'routing_key' is incorrect (should be 32 characters)");
        }
        String action = event.getString("event_action", "");
        if (!Set.of("trigger", "acknowledge", "resolve").contains(action)) {
            errors.add("'event_action' is invalid (must be one of the following: 'trigger', 'acknowledge' or 'resolve')");
        }
        String dedup = event.getString("dedup_key");
        if (dedup != null && dedup.length() > 255) {
            errors.add("'dedup_key' is too long (maximum is 255 characters)");
        }
        if (!action.equals("trigger") && dedup == null) {
            errors.add("'dedup_key' is missing and must be present for " + action + " events");
        }
        if (action.equals("trigger")) {
            JsonObject payload = event.getJsonObject("payload");
            if (payload == null) {
                errors.add("'payload' is missing or blank");
            } else {
                for (String field : List.of("summary", "source", "severity")) {
                    String v = payload.getString(field);
                    if (v == null || v.isBlank()) {
                        errors.add("'payload." + field + "' is missing or blank");
                    }
                }
                if (payload.getString("summary", "").length() > 1024) {
                    errors.add("'payload.summary' is too long (maximum is 1024 characters)");
                }
                if (!Set.of("critical", "error", "warning", "info").contains(payload.getString("severity", ""))) {
                    errors.add("'payload.severity' is invalid");
                }
            }
        }
        if (!errors.isEmpty()) {
            invalid(req, errors);
            return;
        }
        events.add(event);
        if (action.equals("trigger")) {
            Alert open = alerts.get(dedup);
            if (open == null || open.state.equals("resolved")) {
                open = new Alert();
                alerts.put(dedup, open);
                pages++;
            }
            open.lastTrigger = event;
        } else if (alerts.containsKey(dedup) && !alerts.get(dedup).state.equals("resolved")) {
            alerts.get(dedup).state = action.equals("resolve") ? "resolved" : "acknowledged";
        }
        req.response().setStatusCode(202).putHeader("Content-Type", "application/json")
                .end(new JsonObject().put("status", "success").put("message", "Event processed")
                        .put("dedup_key", dedup).encode());
    }

    private static void invalid(HttpServerRequest req, List<String> errors) {
        req.response().setStatusCode(400).putHeader("Content-Type", "application/json")
                .end(new JsonObject().put("status", "invalid event").put("message", "Event object is invalid")
                        .put("errors", new JsonArray(errors)).encode());
    }
}
