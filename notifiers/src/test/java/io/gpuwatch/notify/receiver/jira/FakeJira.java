package io.gpuwatch.notify.receiver.jira;

import io.gpuwatch.notify.http.FakeService;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Jira holding issues in memory and checking requests as Jira does: the Authorization header (401), JSON
 * bodies, the project and issue type (400 with {@code errors}), summary length and line breaks, labels without
 * spaces, ADF descriptions and comments under v3 and plain strings under v2, JQL by project, label and status
 * category, and transitions valid only from the issue's current status. Cloud's retired POST
 * /rest/api/3/search answers 410. Scripted answers queued with {@link #then} come first, in turn.
 */
final class FakeJira extends FakeService<FakeJira> {
    private static final Pattern JQL = Pattern.compile(
            "project = \"([^\"]*)\" AND labels = \"([^\"]*)\" AND statusCategory != Done ORDER BY created DESC");
    private static final Pattern ISSUE = Pattern.compile("/rest/api/([23])/issue/([A-Z]+-\\d+)(/comment|/transitions)?");

    /** One ticket. */
    static final class Issue {
        final String key;
        final JsonObject fields;
        final List<Object> comments = new ArrayList<>();
        String status = "To Do";

        Issue(String key, JsonObject fields) {
            this.key = key;
            this.fields = fields;
        }

        boolean done() {
            return status.equals("Done");
        }
    }

    final Map<String, Issue> issues = new LinkedHashMap<>();
    final List<String> calls = new ArrayList<>();
    /** How many creates still succeed but answer 503, as when Jira made the ticket and the answer was lost. */
    int lostCreateAnswers;
    private final String authorization;
    private final int version;

    FakeJira(String authorization, int version) {
        this.authorization = authorization;
        this.version = version;
    }

    @Override
    protected void seen(HttpServerRequest req) {
        calls.add(req.method().name() + " " + req.path());
    }

    String url() {
        return base();
    }

    @Override
    protected void handle(HttpServerRequest req, String text) {
        if (!authorization.equals(req.getHeader("Authorization"))) {
            req.response().setStatusCode(401).putHeader("Content-Type", "text/html").end("<html>Unauthorized</html>");
            return;
        }
        String prefix = "/rest/api/" + version;
        String path = req.path();
        boolean post = req.method().name().equals("POST");
        JsonObject body = new JsonObject();
        if (post) {
            String type = req.getHeader("Content-Type");
            if (type == null || !type.startsWith("application/json")) {
                req.response().setStatusCode(415).end();
                return;
            }
            try {
                body = new JsonObject(text);
            } catch (DecodeException e) {
                error(req, 400, List.of("Unexpected character in the request body"), Map.of());
                return;
            }
        }
        if (path.equals("/rest/api/3/search")) {
            error(req, 410, List.of("The requested API has been removed. Please migrate to /rest/api/3/search/jql."),
                    Map.of());
        } else if (post && path.equals(version == 3 ? prefix + "/search/jql" : prefix + "/search")) {
            search(req, body);
        } else if (post && path.equals(prefix + "/issue")) {
            create(req, body.getJsonObject("fields", new JsonObject()));
        } else {
            Matcher m = ISSUE.matcher(path);
            Issue issue = m.matches() && m.group(1).equals(String.valueOf(version)) ? issues.get(m.group(2)) : null;
            if (issue == null) {
                error(req, 404, List.of("Issue does not exist or you do not have permission to see it."), Map.of());
            } else if (post && "/comment".equals(m.group(3))) {
                Object comment = body.getValue("body");
                String bad = richText(comment);
                if (bad != null) {
                    error(req, 400, List.of(), Map.of("comment", bad));
                    return;
                }
                issue.comments.add(comment);
                req.response().setStatusCode(201).end(new JsonObject().put("id", "100" + issue.comments.size()).encode());
            } else if ("/transitions".equals(m.group(3))) {
                transitions(req, issue, post ? body : null);
            } else {
                req.response().setStatusCode(405).end();
            }
        }
    }

    private void search(HttpServerRequest req, JsonObject body) {
        Matcher m = JQL.matcher(body.getString("jql", ""));
        if (!m.matches()) {
            error(req, 400, List.of("Error in the JQL Query: unexpected " + body.getString("jql")), Map.of());
            return;
        }
        JsonArray found = new JsonArray();
        issues.values().stream()
                .filter(i -> i.fields.getJsonObject("project").getString("key").equals(m.group(1)))
                .filter(i -> i.fields.getJsonArray("labels").contains(m.group(2)) && !i.done())
                .sorted((a, b) -> b.key.compareTo(a.key))
                .limit(body.getInteger("maxResults", 50))
                .forEach(i -> found.add(new JsonObject().put("id", i.key.substring(4)).put("key", i.key)
                        .put("fields", new JsonObject().put("status", new JsonObject().put("name", i.status)))));
        req.response().putHeader("Content-Type", "application/json").end(new JsonObject().put("issues", found).encode());
    }

    private void create(HttpServerRequest req, JsonObject fields) {
        Map<String, String> errors = new LinkedHashMap<>();
        if (!"OPS".equals(fields.getJsonObject("project", new JsonObject()).getString("key"))) {
            errors.put("project", "valid project is required");
        }
        String type = fields.getJsonObject("issuetype", new JsonObject()).getString("name");
        if (!"Task".equals(type) && !"Bug".equals(type)) {
            errors.put("issuetype", "Specify a valid issue type");
        }
        String summary = fields.getString("summary", "");
        if (summary.isBlank()) {
            errors.put("summary", "You must specify a summary of the issue.");
        } else if (summary.length() > 255) {
            errors.put("summary", "Summary must be less than 255 characters.");
        } else if (summary.contains("\n")) {
            errors.put("summary", "The summary is invalid because it contains newline characters.");
        }
        JsonArray labels = fields.getJsonArray("labels", new JsonArray());
        if (labels.stream().anyMatch(l -> l.toString().contains(" "))) {
            errors.put("labels", "The label must not contain spaces.");
        }
        String bad = richText(fields.getValue("description"));
        if (bad != null) {
            errors.put("description", bad);
        }
        if (!errors.isEmpty()) {
            error(req, 400, List.of(), errors);
            return;
        }
        String key = "OPS-" + (issues.size() + 1);
        issues.put(key, new Issue(key, fields));
        if (lostCreateAnswers > 0) {
            lostCreateAnswers--;
            req.response().setStatusCode(503).end("Service Unavailable");
            return;
        }
        req.response().setStatusCode(201).putHeader("Content-Type", "application/json")
                .end(new JsonObject().put("id", String.valueOf(10_000 + issues.size())).put("key", key)
                        .put("self", url() + "/rest/api/" + version + "/issue/" + key).encode());
    }

    private void transitions(HttpServerRequest req, Issue issue, JsonObject post) {
        JsonArray available = issue.done()
                ? new JsonArray().add(transition("41", "Reopen", "new"))
                : new JsonArray().add(transition("11", "In Progress", "indeterminate")).add(transition("31", "Done", "done"));
        if (post == null) {
            req.response().putHeader("Content-Type", "application/json")
                    .end(new JsonObject().put("transitions", available).encode());
            return;
        }
        String id = post.getJsonObject("transition", new JsonObject()).getString("id", "");
        for (int i = 0; i < available.size(); i++) {
            JsonObject t = available.getJsonObject(i);
            if (t.getString("id").equals(id)) {
                issue.status = t.getJsonObject("to").getString("name");
                req.response().setStatusCode(204).end();
                return;
            }
        }
        error(req, 400, List.of("Transition id '" + id + "' is not valid for this issue."), Map.of());
    }

    private static JsonObject transition(String id, String name, String category) {
        String to = switch (name) {
            case "Reopen" -> "To Do";
            case "In Progress" -> "In Progress";
            default -> "Done";
        };
        return new JsonObject().put("id", id).put("name", name).put("to", new JsonObject().put("name", to)
                .put("statusCategory", new JsonObject().put("key", category)));
    }

    /** Null when the value is rich text this API version accepts; else Jira's complaint. */
    private String richText(Object value) {
        if (version == 2) {
            return value instanceof String ? null : "Operation value must be a string";
        }
        if (!(value instanceof JsonObject doc) || !"doc".equals(doc.getString("type"))
                || !Integer.valueOf(1).equals(doc.getInteger("version")) || !(doc.getValue("content") instanceof JsonArray)) {
            return "Operation value must be an Atlassian Document (see the Atlassian Document Format)";
        }
        for (Object block : doc.getJsonArray("content")) {
            JsonObject b = (JsonObject) block;
            if (!"paragraph".equals(b.getString("type"))) {
                return "unsupported node " + b.getString("type");
            }
            for (Object inline : b.getJsonArray("content", new JsonArray())) {
                JsonObject node = (JsonObject) inline;
                if ("text".equals(node.getString("type")) && node.getString("text", "").isEmpty()) {
                    return "INVALID_INPUT: text nodes must not be empty";
                }
            }
        }
        return null;
    }

    private static void error(HttpServerRequest req, int status, List<String> messages, Map<String, String> errors) {
        JsonObject e = new JsonObject();
        errors.forEach(e::put);
        req.response().setStatusCode(status).putHeader("Content-Type", "application/json")
                .end(new JsonObject().put("errorMessages", new JsonArray(messages)).put("errors", e).encode());
    }
}
