package io.gpuwatch.notify.receiver.alertmanager;

import io.gpuwatch.notify.http.FakeService;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Alertmanager's {@code POST /api/v2/alerts} as its OpenAPI spec and {@code Alert.Validate} check it: a JSON
 * array of postable alerts, each with a non-empty {@code labels} map of valid names (go-swagger's 422/400
 * {@code {"code":…,"message":…}} otherwise), RFC 3339 times and an end not before the start (400 with a JSON
 * string). Accepted alerts are kept by label set, as Alertmanager merges them. Scripted answers queued with
 * {@link #then} come first, in turn.
 */
final class FakeAlertmanager extends FakeService<FakeAlertmanager> {
    private static final Pattern NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

    final Map<JsonObject, JsonObject> alerts = new LinkedHashMap<>();
    final List<JsonArray> posts = new ArrayList<>();
    final List<String> authorizations = new ArrayList<>();
    int requests;

    @Override
    protected void seen(HttpServerRequest req) {
        requests++;
        authorizations.add(req.getHeader("Authorization"));
    }

    String url(String prefix) {
        return base() + prefix;
    }

    /** Whether the alert with these labels is active at {@code now}. */
    boolean active(JsonObject labels, Instant now) {
        JsonObject a = alerts.get(labels);
        return a != null && Instant.parse(a.getString("endsAt")).isAfter(now);
    }

    @Override
    protected void handle(HttpServerRequest req, String body) {
        if (!req.path().endsWith("/api/v2/alerts")) {
            req.response().setStatusCode(404).end("404 page not found");
            return;
        }
        if (!req.method().name().equals("POST")) {
            req.response().setStatusCode(405).end();
            return;
        }
        if (!"application/json".equals(req.getHeader("Content-Type"))) {
            swagger(req, 415, 415, "unsupported media type");
            return;
        }
        JsonArray array;
        try {
            array = new JsonArray(body);
        } catch (DecodeException | ClassCastException e) {
            swagger(req, 400, 400, "parsing alerts body from \"\" failed, because json: cannot unmarshal");
            return;
        }
        for (int i = 0; i < array.size(); i++) {
            JsonObject alert = array.getJsonObject(i);
            JsonObject labels = alert.getJsonObject("labels");
            if (labels == null) {
                swagger(req, 422, 602, i + ".labels in body is required");
                return;
            }
            if (labels.isEmpty()) {
                text(req, "at least one label pair required");
                return;
            }
            for (String name : labels.fieldNames()) {
                if (!NAME.matcher(name).matches()) {
                    text(req, "invalid label set: invalid name \"" + name + "\"");
                    return;
                }
            }
            try {
                Instant starts = Instant.parse(alert.getString("startsAt"));
                Instant ends = Instant.parse(alert.getString("endsAt"));
                if (ends.isBefore(starts)) {
                    text(req, "start time must be before end time");
                    return;
                }
            } catch (DateTimeParseException | NullPointerException e) {
                swagger(req, 422, 601, i + ".startsAt in body must be of type date-time");
                return;
            }
        }
        posts.add(array);
        for (int i = 0; i < array.size(); i++) {
            JsonObject alert = array.getJsonObject(i);
            alerts.put(alert.getJsonObject("labels"), alert);
        }
        req.response().setStatusCode(200).end();
    }

    private static void swagger(HttpServerRequest req, int status, int code, String message) {
        req.response().setStatusCode(status).putHeader("Content-Type", "application/json")
                .end(new JsonObject().put("code", code).put("message", message).encode());
    }

    private static void text(HttpServerRequest req, String message) {
        req.response().setStatusCode(400).putHeader("Content-Type", "application/json")
                .end("\"" + message.replace("\"", "\\\"") + "\"");
    }
}
