package io.gpuwatch.notify.receiver.opsgenie;

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
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Opsgenie's Alert API as it checks requests: {@code Authorization: GenieKey <key>} (401 otherwise), JSON,
 * create at POST /v2/alerts with a message of at most 130 characters and the other field limits (422 with
 * {@code errors} otherwise), close at POST /v2/alerts/{alias}/close?identifierType=alias; 202 with a request id
 * when accepted. Alerts are kept by alias: a create on an open alias only bumps its count. Scripted answers
 * queued with {@link #then} come first, in turn.
 */
final class FakeOpsgenie extends FakeService<FakeOpsgenie> {
    static final String API_KEY = "eb243592-faa2-4ba2-a551q-1afdf565c889";
    private static final Pattern CLOSE = Pattern.compile("/v2/alerts/([^/]+)/close");

    /** One Opsgenie alert. */
    static final class Alert {
        JsonObject created;
        int count = 1;
        boolean open = true;
        String closeNote;
    }

    final List<Alert> alerts = new ArrayList<>();
    final Map<String, Alert> openByAlias = new LinkedHashMap<>();
    final List<String> uris = new ArrayList<>();
    int requests;

    @Override
    protected void seen(HttpServerRequest req) {
        requests++;
        uris.add(req.uri());
    }

    String url() {
        return base();
    }

    @Override
    protected void handle(HttpServerRequest req, String body) {
        if (!("GenieKey " + API_KEY).equals(req.getHeader("Authorization"))) {
            answer(req, 401, new JsonObject().put("message", "Could not authenticate"));
            return;
        }
        if (!req.method().name().equals("POST")) {
            answer(req, 405, new JsonObject().put("message", "Method not allowed"));
            return;
        }
        JsonObject json;
        try {
            json = new JsonObject(body);
        } catch (DecodeException e) {
            answer(req, 400, new JsonObject().put("message", "Could not parse request body"));
            return;
        }
        Matcher close = CLOSE.matcher(req.path());
        if (req.path().equals("/v2/alerts")) {
            create(req, json);
        } else if (close.matches() && "alias".equals(req.getParam("identifierType"))) {
            Alert alert = openByAlias.remove(close.group(1));
            if (alert != null) {
                alert.open = false;
                alert.closeNote = json.getString("note");
            }
            accepted(req);
        } else {
            answer(req, 404, new JsonObject().put("message", "No such endpoint"));
        }
    }

    private void create(HttpServerRequest req, JsonObject json) {
        JsonObject errors = new JsonObject();
        String message = json.getString("message", "");
        if (message.isBlank()) {
            errors.put("message", "Message can not be empty.");
        } else if (message.length() > 130) {
            errors.put("message", "Message can not be longer than 130 characters.");
        }
        String alias = json.getString("alias", "");
        if (alias.length() > 512) {
            errors.put("alias", "Alias can not be longer than 512 characters.");
        }
        if (json.getString("description", "").length() > 15_000) {
            errors.put("description", "Description can not be longer than 15000 characters.");
        }
        JsonArray tags = json.getJsonArray("tags", new JsonArray());
        if (tags.size() > 20 || tags.stream().anyMatch(t -> t.toString().length() > 50)) {
            errors.put("tags", "At most 20 tags of at most 50 characters.");
        }
        if (json.containsKey("priority") && !Set.of("P1", "P2", "P3", "P4", "P5").contains(json.getString("priority"))) {
            errors.put("priority", "Priority should be one of [P1, P2, P3, P4, P5]");
        }
        if (!errors.isEmpty()) {
            answer(req, 422, new JsonObject().put("message", "Request body is not processable. Please check the errors.")
                    .put("errors", errors));
            return;
        }
        Alert open = alias.isEmpty() ? null : openByAlias.get(alias);
        if (open != null) {
            open.count++;
        } else {
            Alert alert = new Alert();
            alert.created = json;
            alerts.add(alert);
            if (!alias.isEmpty()) {
                openByAlias.put(alias, alert);
            }
        }
        accepted(req);
    }

    private static void accepted(HttpServerRequest req) {
        answer(req, 202, new JsonObject().put("result", "Request will be processed"));
    }

    private static void answer(HttpServerRequest req, int status, JsonObject body) {
        req.response().setStatusCode(status).putHeader("Content-Type", "application/json")
                .end(body.put("took", 0.01).put("requestId", UUID.randomUUID().toString()).encode());
    }
}
