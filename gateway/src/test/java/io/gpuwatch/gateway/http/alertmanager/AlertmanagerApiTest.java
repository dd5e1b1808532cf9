package io.gpuwatch.gateway.http.alertmanager;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;

import static io.gpuwatch.gateway.http.alertmanager.PagingGateway.ADMIN;
import static io.gpuwatch.gateway.http.alertmanager.PagingGateway.OPERATOR;
import static io.gpuwatch.gateway.http.alertmanager.PagingGateway.VIEWER;
import static io.gpuwatch.gateway.http.alertmanager.PagingGateway.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Alertmanager's v2 API on a gateway: each route's 200, 400, 401 and 403, alerts with their receivers and what
 * mutes them, the state filters, groups, silences in Alertmanager's shape shared with {@code /api/v1} and
 * audited, and the status with the routing as an Alertmanager config.
 */
@ExtendWith(VertxExtension.class)
class AlertmanagerApiTest {
    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
    private static final JsonObject SILENCE = new JsonObject()
            .put("matchers", new JsonArray().add(new JsonObject().put("name", "node").put("value", "gpu-8")
                    .put("isRegex", false).put("isEqual", true)))
            .put("startsAt", T0.toString()).put("endsAt", "2030-01-01T00:00:00Z").put("createdBy", "ana")
            .put("comment", "re-cabling");

    @TempDir
    Path dir;

    private PagingGateway paging;
    private WebClient web;

    @BeforeEach
    void start(Vertx vertx) throws Exception {
        paging = PagingGateway.start(vertx, dir, InstantSource.fixed(T0));
        web = WebClient.create(vertx);
    }

    private HttpRequest<Buffer> call(HttpMethod method, String path, String token) {
        HttpRequest<Buffer> r = web.request(method, paging.gateway.port(), "127.0.0.1", path);
        return token == null ? r : r.bearerTokenAuthentication(token);
    }

    private HttpResponse<Buffer> send(HttpMethod method, String path, String token) throws Exception {
        return await(call(method, path, token).send());
    }

    private HttpResponse<Buffer> post(String path, String token, JsonObject body) throws Exception {
        return await(call(HttpMethod.POST, path, token).sendJsonObject(body));
    }

    private JsonArray array(String path) throws Exception {
        HttpResponse<Buffer> r = send(HttpMethod.GET, path, VIEWER);
        assertEquals(200, r.statusCode(), path + ": " + r.bodyAsString());
        assertEquals("application/json", r.getHeader("Content-Type"));
        return r.bodyAsJsonArray();
    }

    private String silence(JsonObject body) throws Exception {
        HttpResponse<Buffer> made = post("/api/v2/silences", OPERATOR, body);
        assertEquals(200, made.statusCode(), made.bodyAsString());
        return made.bodyAsJsonObject().getString("silenceID");
    }

    /** The 400's body: one JSON string starting with the field at fault. */
    private void refused(HttpResponse<Buffer> r, String field) {
        assertEquals(400, r.statusCode(), r.bodyAsString());
        String message = (String) r.bodyAsJson(Object.class);
        assertTrue(message.startsWith(field + ": "), message);
    }

    @Test
    void everyRouteWantsATokenAndItsRole() throws Exception {
        String id = silence(SILENCE);
        for (String path : List.of("/api/v2/alerts", "/api/v2/alerts/groups", "/api/v2/silences",
                "/api/v2/silence/" + id, "/api/v2/status")) {
            HttpResponse<Buffer> none = send(HttpMethod.GET, path, null);
            assertEquals(401, none.statusCode(), path);
            assertEquals("Bearer realm=\"gpuwatch\"", none.getHeader("WWW-Authenticate"), path);
            assertEquals(401, send(HttpMethod.GET, path, "not-a-token").statusCode(), path);
            assertEquals(200, send(HttpMethod.GET, path, VIEWER).statusCode(), path);
        }
        assertEquals(401, post("/api/v2/silences", null, SILENCE).statusCode());
        HttpResponse<Buffer> viewer = post("/api/v2/silences", VIEWER, SILENCE);
        assertEquals(403, viewer.statusCode());
        assertTrue(viewer.bodyAsString().contains("token dash has role viewer; this needs operator"),
                viewer.bodyAsString());
        assertEquals(401, send(HttpMethod.DELETE, "/api/v2/silence/" + id, null).statusCode());
        assertEquals(403, send(HttpMethod.DELETE, "/api/v2/silence/" + id, VIEWER).statusCode());
        assertEquals(200, send(HttpMethod.DELETE, "/api/v2/silence/" + id, OPERATOR).statusCode());

        JsonObject alert = new JsonObject().put("labels", new JsonObject().put("alertname", "elsewhere"));
        assertEquals(401, await(call(HttpMethod.POST, "/api/v2/alerts", null)
                .sendJson(new JsonArray().add(alert))).statusCode());
        assertEquals(403, await(call(HttpMethod.POST, "/api/v2/alerts", VIEWER)
                .sendJson(new JsonArray().add(alert))).statusCode());
        HttpResponse<Buffer> elsewhere = await(call(HttpMethod.POST, "/api/v2/alerts", OPERATOR)
                .sendJson(new JsonArray().add(alert)));
        assertEquals(501, elsewhere.statusCode());
        assertTrue(elsewhere.bodyAsString().contains("send these to an Alertmanager"), elsewhere.bodyAsString());
        assertEquals(2, array("/api/v2/alerts").size(), "nothing was taken in");
    }

    @Test
    void alertsShowTheirReceiversAndWhatMutesThem() throws Exception {
        JsonArray all = array("/api/v2/alerts");
        assertEquals(2, all.size());
        JsonObject hot = byName(all, "too-hot");
        assertEquals(List.of("pager", "chat"), hot.getJsonArray("receivers").stream()
                .map(r -> ((JsonObject) r).getString("name")).toList());
        assertEquals("active", hot.getJsonObject("status").getString("state"));
        assertEquals(T0.toString(), hot.getString("startsAt"));
        assertEquals(T0.toString(), hot.getString("updatedAt"));
        assertEquals("0001-01-01T00:00:00Z", hot.getString("endsAt"));
        assertEquals("gpu-7", hot.getJsonObject("labels").getString("node"));
        assertEquals("too-hot", hot.getJsonObject("annotations").getString("summary"));
        assertEquals(paging.fingerprint("too-hot"), hot.getString("fingerprint"));
        assertTrue(hot.getString("generatorURL").startsWith("http://gpuwatch.example:9464/"),
                hot.getString("generatorURL"));
        assertEquals(List.of("chat"), byName(all, "too-slow").getJsonArray("receivers").stream()
                .map(r -> ((JsonObject) r).getString("name")).toList());

        String id = silence(SILENCE);
        paging.silenceNode(T0.toEpochMilli());
        all = array("/api/v2/alerts");
        assertEquals(3, all.size());
        JsonObject slow = byName(all, "too-slow").getJsonObject("status");
        assertEquals("suppressed", slow.getString("state"));
        assertEquals(List.of(id), slow.getJsonArray("silencedBy").getList());
        JsonObject inhibited = byName(all, "too-hot").getJsonObject("status");
        assertEquals("suppressed", inhibited.getString("state"));
        assertEquals(List.of(paging.fingerprint("node-silent")), inhibited.getJsonArray("inhibitedBy").getList());
        assertEquals(List.of(), inhibited.getJsonArray("silencedBy").getList());

        // amtool's default: active alerts only
        assertEquals(List.of("node-silent"), names(array(
                "/api/v2/alerts?active=true&silenced=false&inhibited=false&unprocessed=false")));
        assertEquals(List.of("too-hot", "too-slow"), names(array("/api/v2/alerts?active=false")));
        assertEquals(List.of("node-silent", "too-hot"), names(array("/api/v2/alerts?silenced=false")));
        assertEquals(List.of("node-silent", "too-slow"), names(array("/api/v2/alerts?inhibited=0")));
        assertEquals(List.of("too-hot"), names(array("/api/v2/alerts?filter=alertname%3D%22too-hot%22")));
        assertEquals(List.of("too-hot"), names(array("/api/v2/alerts?filter=node%3D~%22gpu-.%22"
                + "&filter=severity%21%3Dticket&filter=alertname%21~node.*")));
        assertEquals(List.of("node-silent", "too-hot"), names(array("/api/v2/alerts?receiver=pag.*")));
        assertEquals(List.of(), names(array("/api/v2/alerts?receiver=pag")), "anchored at both ends");

        refused(send(HttpMethod.GET, "/api/v2/alerts?filter=%3Dgpu-7", VIEWER), "filter");
        refused(send(HttpMethod.GET, "/api/v2/alerts?filter=node%3Dgpu-7&filter=node%3D~%22(%22", VIEWER),
                "filter[1]");
        refused(send(HttpMethod.GET, "/api/v2/alerts?active=maybe", VIEWER), "active");
        refused(send(HttpMethod.GET, "/api/v2/alerts?silenced=true&silenced=false", VIEWER), "silenced");
        refused(send(HttpMethod.GET, "/api/v2/alerts?receiver=(", VIEWER), "receiver");
    }

    @Test
    void groupsFollowTheRoutesAndTheirGroupBy() throws Exception {
        JsonArray groups = array("/api/v2/alerts/groups");
        assertEquals(3, groups.size(), groups.encodePrettily());
        JsonObject pager = groups.stream().map(g -> (JsonObject) g)
                .filter(g -> g.getJsonObject("receiver").getString("name").equals("pager")).findFirst().orElseThrow();
        assertEquals(Map.of("alertname", "too-hot"), pager.getJsonObject("labels").getMap());
        assertEquals(List.of("too-hot"), names(pager.getJsonArray("alerts")));
        assertEquals("active", pager.getJsonArray("alerts").getJsonObject(0).getJsonObject("status")
                .getString("state"));

        JsonArray paged = array("/api/v2/alerts/groups?receiver=pager");
        assertEquals(1, paged.size());
        silence(SILENCE);
        // the slow card's group holds only a silenced alert now, so it is left out
        assertEquals(2, array("/api/v2/alerts/groups?silenced=false").size());
        assertEquals(List.of("too-slow"), array("/api/v2/alerts/groups?active=false").stream()
                .flatMap(g -> names(((JsonObject) g).getJsonArray("alerts")).stream()).toList());
        refused(send(HttpMethod.GET, "/api/v2/alerts/groups?inhibited=no", VIEWER), "inhibited");
    }

    @Test
    void silencesAreTheGatewaysOwnInAlertmanagersShapeAndAudited() throws Exception {
        String id = silence(SILENCE.copy().put("matchers", new JsonArray()
                .add(new JsonObject().put("name", "node").put("value", "gpu-8").put("isRegex", false))
                .add(new JsonObject().put("name", "alertname").put("value", "too-.*").put("isRegex", true))
                .add(new JsonObject().put("name", "severity").put("value", "page").put("isRegex", false)
                        .put("isEqual", false))));
        JsonObject listed = array("/api/v2/silences").getJsonObject(0);
        assertEquals(id, listed.getString("id"));
        assertEquals("active", listed.getJsonObject("status").getString("state"));
        assertEquals(new JsonArray()
                .add(new JsonObject().put("name", "node").put("value", "gpu-8").put("isRegex", false)
                        .put("isEqual", true))
                .add(new JsonObject().put("name", "alertname").put("value", "too-.*").put("isRegex", true)
                        .put("isEqual", true))
                .add(new JsonObject().put("name", "severity").put("value", "page").put("isRegex", false)
                        .put("isEqual", false)), listed.getJsonArray("matchers"));
        assertEquals("ana", listed.getString("createdBy"));
        assertEquals("re-cabling", listed.getString("comment"));
        assertEquals(T0.toString(), listed.getString("startsAt"));
        assertEquals("2030-01-01T00:00:00Z", listed.getString("endsAt"));
        assertEquals(T0.toString(), listed.getString("updatedAt"));
        assertEquals(listed, send(HttpMethod.GET, "/api/v2/silence/" + id, VIEWER).bodyAsJsonObject());
        assertEquals(404, send(HttpMethod.GET, "/api/v2/silence/nope", VIEWER).statusCode());

        // the same silence on /api/v1, muting the same alert
        JsonObject v1 = send(HttpMethod.GET, "/api/v1/silences", VIEWER).bodyAsJsonObject();
        assertEquals(List.of("node=\"gpu-8\"", "alertname=~\"too-.*\"", "severity!=\"page\""),
                v1.getJsonArray("silences").getJsonObject(0).getJsonArray("matchers").getList());
        assertEquals(List.of(id), byName(array("/api/v2/alerts"), "too-slow").getJsonObject("status")
                .getJsonArray("silencedBy").getList());

        // filters read the silence's matchers as labels
        assertEquals(1, array("/api/v2/silences?filter=node%3D%22gpu-8%22").size());
        assertEquals(0, array("/api/v2/silences?filter=node%3D%22gpu-7%22").size());
        assertEquals(1, array("/api/v2/silences?filter=rack%3D%22%22").size(), "an empty value passes a lacking label");
        refused(send(HttpMethod.GET, "/api/v2/silences?filter=%3Dgpu-7", VIEWER), "filter");

        // a later end alone changes it in place; other matchers replace it, expiring the old one
        JsonObject longer = SILENCE.copy().put("id", id).put("matchers", listed.getJsonArray("matchers"))
                .put("endsAt", "2031-01-01T00:00:00Z");
        assertEquals(id, silence(longer));
        String replacement = silence(SILENCE.copy().put("id", id));
        assertNotEquals(id, replacement);
        JsonObject old = send(HttpMethod.GET, "/api/v2/silence/" + id, VIEWER).bodyAsJsonObject();
        assertEquals("expired", old.getJsonObject("status").getString("state"));
        assertEquals(List.of(replacement, id), array("/api/v2/silences").stream()
                .map(s -> ((JsonObject) s).getString("id")).toList(), "active first, then expired");

        assertEquals(200, send(HttpMethod.DELETE, "/api/v2/silence/" + replacement, OPERATOR).statusCode());
        HttpResponse<Buffer> again = send(HttpMethod.DELETE, "/api/v2/silence/" + replacement, OPERATOR);
        assertEquals(404, again.statusCode());
        assertTrue(again.bodyAsString().contains("has already expired"), again.bodyAsString());
        assertEquals(404, send(HttpMethod.DELETE, "/api/v2/silence/nope", OPERATOR).statusCode());
        // as in Alertmanager, posting an expired silence's id makes a new silence
        String recreated = silence(SILENCE.copy().put("id", replacement));
        assertNotEquals(replacement, recreated);
        assertEquals(404, post("/api/v2/silences", OPERATOR, SILENCE.copy().put("id", "nope")).statusCode());

        JsonArray audit = send(HttpMethod.GET, "/api/v1/audit", ADMIN).bodyAsJsonObject().getJsonArray("entries");
        assertEquals(List.of("silence.create", "silence.expire", "silence.update", "silence.update",
                "silence.create"), audit.stream().map(e -> ((JsonObject) e).getString("action")).toList());
        for (Object e : audit) {
            assertEquals("ana", ((JsonObject) e).getString("who"));
        }
    }

    @Test
    void aBadSilenceIsRefusedNamingTheField() throws Exception {
        refused(post("/api/v2/silences", OPERATOR, SILENCE.copy().put("matchers", new JsonArray())), "matchers");
        refused(post("/api/v2/silences", OPERATOR, SILENCE.copy().put("matchers", new JsonArray().add("node=x"))),
                "matchers[0]");
        refused(post("/api/v2/silences", OPERATOR, SILENCE.copy().put("matchers", new JsonArray()
                .add(new JsonObject().put("name", "1node").put("value", "x").put("isRegex", false)))),
                "matchers[0].name");
        refused(post("/api/v2/silences", OPERATOR, SILENCE.copy().put("matchers", new JsonArray()
                .add(new JsonObject().put("name", "node").put("isRegex", false)))), "matchers[0].value");
        refused(post("/api/v2/silences", OPERATOR, SILENCE.copy().put("matchers", new JsonArray()
                .add(new JsonObject().put("name", "node").put("value", "x")))), "matchers[0].isRegex");
        refused(post("/api/v2/silences", OPERATOR, SILENCE.copy().put("matchers", new JsonArray()
                .add(new JsonObject().put("name", "node").put("value", "(").put("isRegex", true)))),
                "matchers[0].value");
        refused(post("/api/v2/silences", OPERATOR, SILENCE.copy().put("matchers", new JsonArray()
                .add(new JsonObject().put("name", "node").put("value", ".*").put("isRegex", true)))), "matchers");
        refused(post("/api/v2/silences", OPERATOR, SILENCE.copy().put("startsAt", "tomorrow")), "startsAt");
        refused(post("/api/v2/silences", OPERATOR, SILENCE.copy().putNull("endsAt")), "endsAt");
        refused(post("/api/v2/silences", OPERATOR, SILENCE.copy().put("endsAt",
                T0.minus(Duration.ofHours(1)).toString())), "endsAt");
        refused(post("/api/v2/silences", OPERATOR, SILENCE.copy().put("createdBy", " ")), "createdBy");
        refused(post("/api/v2/silences", OPERATOR, SILENCE.copy().put("comment", 7)), "comment");
        refused(post("/api/v2/silences", OPERATOR, SILENCE.copy().put("id", 7)), "id");
        refused(await(call(HttpMethod.POST, "/api/v2/silences", OPERATOR)
                .putHeader("Content-Type", "application/json").sendBuffer(Buffer.buffer("[1]"))), "body");
        assertEquals(0, array("/api/v2/silences").size());
    }

    @Test
    void aChangeTheStoreCannotKeepIsRefusedAndUndone() throws Exception {
        String id = silence(SILENCE);
        await(paging.gateway.store().orElseThrow().close());
        HttpResponse<Buffer> made = post("/api/v2/silences", OPERATOR, SILENCE);
        assertEquals(500, made.statusCode(), made.bodyAsString());
        assertTrue(made.bodyAsString().contains("could not be stored"), made.bodyAsString());
        HttpResponse<Buffer> expired = send(HttpMethod.DELETE, "/api/v2/silence/" + id, OPERATOR);
        assertEquals(500, expired.statusCode(), expired.bodyAsString());
        JsonArray left = array("/api/v2/silences");
        assertEquals(1, left.size(), "the silence that was not stored mutes nothing");
        assertEquals("active", left.getJsonObject(0).getJsonObject("status").getString("state"),
                "the expiry that was not stored is undone");
    }

    @Test
    void theStatusShowsTheRoutingAsAnAlertmanagerConfig() throws Exception {
        HttpResponse<Buffer> r = send(HttpMethod.GET, "/api/v2/status", VIEWER);
        assertEquals(200, r.statusCode());
        JsonObject status = r.bodyAsJsonObject();
        assertEquals("disabled", status.getJsonObject("cluster").getString("status"));
        assertEquals(new JsonArray(), status.getJsonObject("cluster").getJsonArray("peers"));
        JsonObject version = status.getJsonObject("versionInfo");
        for (String field : List.of("version", "revision", "branch", "buildUser", "buildDate", "goVersion")) {
            assertTrue(version.getString(field) != null && !version.getString(field).isEmpty(), field);
        }
        assertEquals(T0.toString(), status.getString("uptime"));
        String original = status.getJsonObject("config").getString("original");
        assertTrue(!original.contains("&id"), "no YAML anchors, which a reader would have to follow: " + original);
        @SuppressWarnings("unchecked")
        Map<String, Object> config = (Map<String, Object>) new Load(LoadSettings.builder().build())
                .loadFromString(original);
        @SuppressWarnings("unchecked")
        Map<String, Object> route = (Map<String, Object>) config.get("route");
        assertEquals("chat", route.get("receiver"));
        assertEquals(List.of("alertname"), route.get("group_by"));
        assertEquals("1h", route.get("group_wait"));
        assertEquals(List.of(Map.of("name", "chat"), Map.of("name", "pager")), config.get("receivers"));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> children = (List<Map<String, Object>>) route.get("routes");
        assertEquals(List.of("severity=\"page\""), children.get(0).get("matchers"));
        assertEquals(true, children.get(0).get("continue"));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> inhibit = (List<Map<String, Object>>) config.get("inhibit_rules");
        assertEquals(List.of("alertname=\"node-silent\""), inhibit.get(0).get("source_matchers"));
        assertEquals(List.of("node"), inhibit.get(0).get("equal"));
    }

    @Test
    void durationsAreWrittenAsPrometheusReadsThem() {
        assertEquals("0s", ConfigYaml.duration(Duration.ZERO));
        assertEquals("4h", ConfigYaml.duration(Duration.ofHours(4)));
        assertEquals("1h30m", ConfigYaml.duration(Duration.ofMinutes(90)));
        assertEquals("1d2h", ConfigYaml.duration(Duration.ofHours(26)));
        assertEquals("1s500ms", ConfigYaml.duration(Duration.ofMillis(1500)));
    }

    private static JsonObject byName(JsonArray alerts, String name) {
        return alerts.stream().map(a -> (JsonObject) a)
                .filter(a -> a.getJsonObject("labels").getString("alertname").equals(name)).findFirst().orElseThrow();
    }

    private static List<String> names(JsonArray alerts) {
        return alerts.stream().map(a -> ((JsonObject) a).getJsonObject("labels").getString("alertname")).sorted()
                .toList();
    }
}
