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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.gpuwatch.gateway.http.alertmanager.PagingGateway.OPERATOR;
import static io.gpuwatch.gateway.http.alertmanager.PagingGateway.VIEWER;
import static io.gpuwatch.gateway.http.alertmanager.PagingGateway.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Grafana's Alertmanager data source against a gateway: the requests it sends (recorded from Grafana's source
 * in {@code grafana/alertmanager-datasource-exchanges.json}, which says where each comes from) are replayed in
 * order, and each answer is checked for the status Grafana wants and the shape its models decode: Alertmanager's
 * gettableAlert, alertGroup, gettableSilence, postSilencesOKBody and alertmanagerStatus, whose config Grafana
 * reads as an Alertmanager config.
 */
@ExtendWith(VertxExtension.class)
class GrafanaExchangesTest {
    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
    private static final String FIXTURE = "/grafana/alertmanager-datasource-exchanges.json";

    @TempDir
    Path dir;

    @Test
    void grafanasRequestsGetAnswersItsModelsRead(Vertx vertx) throws Exception {
        PagingGateway paging = PagingGateway.start(vertx, dir, InstantSource.fixed(T0));
        WebClient web = WebClient.create(vertx);
        JsonArray exchanges;
        try (InputStream in = GrafanaExchangesTest.class.getResourceAsStream(FIXTURE)) {
            exchanges = new JsonObject(new String(in.readAllBytes(), StandardCharsets.UTF_8)).getJsonArray("exchanges");
        }
        assertTrue(exchanges.size() >= 10, "the recorded exchanges were read");
        String silenceId = null;
        for (Object o : exchanges) {
            JsonObject x = (JsonObject) o;
            String name = x.getString("name");
            String path = silenceId == null ? x.getString("path")
                    : x.getString("path").replace("{silenceID}", silenceId);
            HttpRequest<Buffer> request = web.request(HttpMethod.valueOf(x.getString("method")), paging.gateway.port(),
                    "127.0.0.1", path).bearerTokenAuthentication(x.getString("role").equals("operator") ? OPERATOR
                    : VIEWER);
            HttpResponse<Buffer> r;
            if (x.containsKey("body")) {
                String body = x.getJsonObject("body").encode();
                r = await(request.putHeader("Content-Type", "application/json").sendBuffer(Buffer.buffer(
                        silenceId == null ? body : body.replace("{silenceID}", silenceId))));
            } else {
                r = await(request.send());
            }
            String answer = r.bodyAsString();
            assertEquals(x.getInteger("status"), r.statusCode(), name + ": " + answer);
            if (x.containsKey("contains")) {
                String wanted = silenceId == null ? x.getString("contains")
                        : x.getString("contains").replace("{silenceID}", silenceId);
                assertTrue(answer.contains(wanted), name + ": " + wanted + " not in " + answer);
            }
            String model = x.getString("parses");
            if (!model.equals("message")) {
                // Grafana's backend refuses an upstream answer whose type does not say JSON
                assertTrue(r.getHeader("Content-Type").contains("json"), name);
            }
            switch (model) {
                case "alertmanagerStatus" -> status(name, r.bodyAsJsonObject());
                case "alertGroups" -> r.bodyAsJsonArray().forEach(g -> group(name, (JsonObject) g));
                case "gettableAlerts" -> r.bodyAsJsonArray().forEach(a -> alert(name, (JsonObject) a));
                case "gettableSilences" -> r.bodyAsJsonArray().forEach(s -> silence(name, (JsonObject) s));
                case "gettableSilence" -> silence(name, r.bodyAsJsonObject());
                case "postSilencesOKBody" -> silenceId = string(name, r.bodyAsJsonObject(), "silenceID");
                case "message" -> {
                    // Grafana keeps whatever body comes as the message it shows
                }
                default -> fail(name + ": no checker for " + model);
            }
        }
    }

    private static void status(String at, JsonObject s) {
        JsonObject cluster = s.getJsonObject("cluster");
        assertTrue(Set.of("ready", "settling", "disabled").contains(cluster.getString("status")), at);
        assertInstanceOf(JsonArray.class, cluster.getValue("peers"), at);
        JsonObject version = s.getJsonObject("versionInfo");
        for (String f : List.of("version", "revision", "branch", "buildUser", "buildDate", "goVersion")) {
            string(at, version, f);
        }
        time(at, s, "uptime");
        Object parsed = new Load(LoadSettings.builder().build())
                .loadFromString(string(at, s.getJsonObject("config"), "original"));
        assertInstanceOf(Map.class, parsed, at);
        Map<?, ?> config = (Map<?, ?>) parsed;
        List<String> receivers = new ArrayList<>();
        for (Object r : (List<?>) config.get("receivers")) {
            receivers.add((String) ((Map<?, ?>) r).get("name"));
        }
        // as Alertmanager's parser insists: a root receiver, and every route's receiver defined
        routeReceivers(at, (Map<?, ?>) config.get("route"), receivers);
    }

    private static void routeReceivers(String at, Map<?, ?> route, List<String> receivers) {
        assertTrue(receivers.contains((String) route.get("receiver")), at + ": " + route.get("receiver") + " of "
                + route + " is not among " + receivers);
        Object children = route.get("routes");
        if (children != null) {
            for (Object c : (List<?>) children) {
                routeReceivers(at, (Map<?, ?>) c, receivers);
            }
        }
    }

    private static void group(String at, JsonObject g) {
        labels(at, g.getJsonObject("labels"));
        string(at, g.getJsonObject("receiver"), "name");
        JsonArray alerts = g.getJsonArray("alerts");
        assertTrue(!alerts.isEmpty(), at + ": an empty group");
        alerts.forEach(a -> alert(at, (JsonObject) a));
    }

    private static void alert(String at, JsonObject a) {
        labels(at, a.getJsonObject("labels"));
        labels(at, a.getJsonObject("annotations"));
        for (Object r : a.getJsonArray("receivers")) {
            string(at, (JsonObject) r, "name");
        }
        string(at, a, "fingerprint");
        time(at, a, "startsAt");
        time(at, a, "updatedAt");
        time(at, a, "endsAt");
        string(at, a, "generatorURL");
        JsonObject status = a.getJsonObject("status");
        assertTrue(Set.of("unprocessed", "active", "suppressed").contains(status.getString("state")), at);
        strings(at, status.getJsonArray("silencedBy"));
        strings(at, status.getJsonArray("inhibitedBy"));
    }

    private static void silence(String at, JsonObject s) {
        string(at, s, "id");
        assertTrue(Set.of("expired", "active", "pending").contains(s.getJsonObject("status").getString("state")), at);
        time(at, s, "updatedAt");
        time(at, s, "startsAt");
        time(at, s, "endsAt");
        string(at, s, "createdBy");
        string(at, s, "comment");
        JsonArray matchers = s.getJsonArray("matchers");
        assertTrue(!matchers.isEmpty(), at);
        for (Object o : matchers) {
            JsonObject m = (JsonObject) o;
            string(at, m, "name");
            string(at, m, "value");
            assertInstanceOf(Boolean.class, m.getValue("isRegex"), at);
            assertInstanceOf(Boolean.class, m.getValue("isEqual"), at);
        }
    }

    private static void labels(String at, JsonObject labels) {
        labels.forEach(e -> assertInstanceOf(String.class, e.getValue(), at + ": label " + e.getKey()));
    }

    private static void strings(String at, JsonArray list) {
        list.forEach(v -> assertInstanceOf(String.class, v, at));
    }

    private static String string(String at, JsonObject o, String field) {
        assertInstanceOf(String.class, o.getValue(field), at + ": " + field + " of " + o);
        return o.getString(field);
    }

    /** An RFC 3339 time, as Go's strfmt.DateTime reads one. */
    private static void time(String at, JsonObject o, String field) {
        try {
            OffsetDateTime.parse(string(at, o, field));
        } catch (DateTimeParseException e) {
            fail(at + ": " + field + " is not an RFC 3339 time: " + o.getValue(field));
        }
    }
}
