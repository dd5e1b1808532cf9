package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.delivery.RecordingReceiver;
import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.reload.RuleFiles;
import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.gateway.route.RoutingLoad;
import io.gpuwatch.notify.Acknowledging;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.eval.AlertState;
import io.gpuwatch.rules.eval.Transition;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Silences, acknowledgements and groups over HTTP, against a gateway routing to a pager and a chat. */
@ExtendWith(VertxExtension.class)
class ApiRoutesTest {
    private static final long T0 = 1_764_700_000_000L;

    /** A pager that remembers what it was told was acknowledged. */
    private static final class Pager implements Receiver, Acknowledging {
        final List<String> acked = new ArrayList<>();

        @Override
        public String name() {
            return "pager";
        }

        @Override
        public Future<Void> send(List<Notification> batch) {
            return Future.succeededFuture();
        }

        @Override
        public Future<Void> acknowledge(String fingerprint) {
            acked.add(fingerprint);
            return Future.succeededFuture();
        }
    }

    private final Pager pager = new Pager();
    private Gateway gateway;
    private WebClient web;

    @BeforeEach
    void start(Vertx vertx) throws Exception {
        RuleLoad rules = RuleSet.parse("api.yml", """
                group: api
                layer: device
                scope: card
                rules:
                  - name: too-hot
                    severity: page
                    when: tempC > 85
                    summary: "hot"
                """);
        assertTrue(rules.ok(), rules.diagnostics().toString());
        // pages go to the pager and chat; everything waits an hour in its group, so the groups can be read
        RoutingLoad routing = RoutingConfig.parse("routes.yml", """
                route:
                  receiver: chat
                  group_wait: 1h
                  routes:
                    - matchers: ['severity="page"']
                      receiver: pager
                      continue: true
                    - matchers: ['severity="page"']
                      receiver: chat
                """, null);
        assertTrue(routing.ok(), routing.diagnostics().toString());
        Receiver chat = new RecordingReceiver("chat");
        // a tick an hour apart keeps the test the only one touching the ledger and groups
        gateway = new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 3_600_000, "http://localhost"),
                rules.ruleSet(), RuleFiles.none(), () -> null, List.of(pager, chat), routing.config(),
                () -> Instant.ofEpochMilli(T0));
        await(vertx.deployVerticle(gateway));
        web = WebClient.create(vertx);
        Transition fires = new Transition(rules.ruleSet().rules().get(0), Map.of("alertname", "too-hot",
                "severity", "page", "node", "gpu-7", "uuid", "GPU-1"), AlertState.PENDING, AlertState.FIRING, T0, T0,
                "hot", "");
        gateway.ledger().apply(fires, gateway.dispatcher()::dispatch);
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private HttpResponse<Buffer> post(String path, JsonObject body) throws Exception {
        return await(web.post(gateway.port(), "127.0.0.1", path).sendJsonObject(body));
    }

    private JsonObject get(String path) throws Exception {
        HttpResponse<Buffer> r = await(web.get(gateway.port(), "127.0.0.1", path).send());
        assertEquals(200, r.statusCode(), r.bodyAsString());
        return r.bodyAsJsonObject();
    }

    @Test
    void aSilenceIsCreatedListedAndExpiredAndBadFieldsAreNamed() throws Exception {
        HttpResponse<Buffer> made = post("/api/v1/silences", new JsonObject()
                .put("matchers", new JsonArray().add("node=\"gpu-7\"").add("alertname=~\"too-.*\""))
                .put("endsAt", "2030-01-01T00:00:00Z").put("createdBy", "ana").put("comment", "re-cabling"));
        assertEquals(201, made.statusCode(), made.bodyAsString());
        String id = made.bodyAsJsonObject().getString("id");

        JsonObject listed = get("/api/v1/silences").getJsonArray("silences").getJsonObject(0);
        assertEquals(id, listed.getString("id"));
        assertEquals("active", listed.getString("state"));
        assertEquals(List.of("node=\"gpu-7\"", "alertname=~\"too-.*\""), listed.getJsonArray("matchers").getList());
        assertEquals("ana", listed.getString("createdBy"));

        HttpResponse<Buffer> badMatcher = post("/api/v1/silences", new JsonObject()
                .put("matchers", new JsonArray().add("node=\"gpu-7\"").add("=\"gpu-8\""))
                .put("endsAt", "2030-01-01T00:00:00Z").put("createdBy", "ana"));
        assertEquals(400, badMatcher.statusCode());
        assertEquals("matchers[1]", badMatcher.bodyAsJsonObject().getString("field"));
        HttpResponse<Buffer> noEnd = post("/api/v1/silences", new JsonObject()
                .put("matchers", new JsonArray().add("node=\"gpu-7\"")).put("createdBy", "ana"));
        assertEquals(400, noEnd.statusCode());
        assertEquals("endsAt", noEnd.bodyAsJsonObject().getString("field"));
        HttpResponse<Buffer> noAuthor = post("/api/v1/silences", new JsonObject()
                .put("matchers", new JsonArray().add("node=\"gpu-7\"")).put("endsAt", "2030-01-01T00:00:00Z"));
        assertEquals("createdBy", noAuthor.bodyAsJsonObject().getString("field"));

        HttpResponse<Buffer> expired = await(web.delete(gateway.port(), "127.0.0.1", "/api/v1/silences/" + id).send());
        assertEquals(200, expired.statusCode());
        assertEquals("expired", expired.bodyAsJsonObject().getString("state"));
        assertEquals(404, await(web.delete(gateway.port(), "127.0.0.1", "/api/v1/silences/" + id).send())
                .statusCode(), "an expired silence cannot be expired again");
        assertEquals(404, await(web.delete(gateway.port(), "127.0.0.1", "/api/v1/silences/nope").send())
                .statusCode());
        assertEquals("expired", get("/api/v1/silences").getJsonArray("silences").getJsonObject(0)
                .getString("state"), "kept for the record");
    }

    @Test
    void anAcknowledgementIsShownOnTheAlertAndReachesThePagerItWasRoutedTo() throws Exception {
        JsonObject alert = get("/api/v1/alerts").getJsonArray("alerts").getJsonObject(0);
        String fingerprint = alert.getString("fingerprint");
        assertNull(alert.getValue("acked"));

        HttpResponse<Buffer> acked = post("/api/v1/alerts/" + fingerprint + "/ack",
                new JsonObject().put("by", "ana").put("comment", "on it"));
        assertEquals(200, acked.statusCode(), acked.bodyAsString());
        assertEquals(List.of(fingerprint), pager.acked);
        JsonObject told = acked.bodyAsJsonObject().getJsonArray("receivers").getJsonObject(0);
        assertEquals("pager", told.getString("receiver"));
        assertTrue(told.getBoolean("ok"));

        JsonObject shown = get("/api/v1/alerts").getJsonArray("alerts").getJsonObject(0).getJsonObject("acked");
        assertEquals("ana", shown.getString("by"));
        assertEquals("on it", shown.getString("comment"));
        assertEquals(Instant.ofEpochMilli(T0).toString(), shown.getString("at"));

        assertEquals(404, post("/api/v1/alerts/unknown/ack", new JsonObject().put("by", "ana")).statusCode());
        HttpResponse<Buffer> anonymous = post("/api/v1/alerts/" + fingerprint + "/ack", new JsonObject());
        assertEquals(400, anonymous.statusCode());
        assertEquals("by", anonymous.bodyAsJsonObject().getString("field"));
    }

    @Test
    void withoutAStoreAnAlertHasItsTimelineButNoRecordedDeliveriesAndAPagerThatCannotUnackSaysSo()
            throws Exception {
        String fingerprint = get("/api/v1/alerts").getJsonArray("alerts").getJsonObject(0).getString("fingerprint");
        assertEquals(200, post("/api/v1/alerts/" + fingerprint + "/ack", new JsonObject().put("by", "ana"))
                .statusCode());
        HttpResponse<Buffer> unacked = await(web.delete(gateway.port(), "127.0.0.1", "/api/v1/alerts/" + fingerprint
                + "/ack").send());
        assertEquals(200, unacked.statusCode(), unacked.bodyAsString());
        assertEquals("local", unacked.bodyAsJsonObject().getJsonObject("unacked").getString("by"));
        JsonObject told = unacked.bodyAsJsonObject().getJsonArray("receivers").getJsonObject(0);
        assertEquals("pager", told.getString("receiver"));
        assertTrue(!told.getBoolean("ok") && told.getString("error").contains("no way to withdraw"), told.encode());

        JsonObject page = get("/api/v1/alerts/" + fingerprint);
        assertEquals("firing", page.getJsonObject("alert").getString("state"));
        assertEquals(List.of("firing", "unack"), page.getJsonArray("timeline").stream()
                .map(e -> ((JsonObject) e).getString("event")).toList(), "memory keeps only the newest");
        assertNull(page.getValue("deliveries"));
        JsonObject receivers = get("/api/v1/receivers");
        assertTrue(!receivers.getBoolean("durable"));
        assertNull(receivers.getJsonArray("receivers").getJsonObject(0).getValue("outboxDepth"));
    }

    @Test
    void theGroupsWaitingToBeSentAreListed() throws Exception {
        JsonArray groups = get("/api/v1/groups").getJsonArray("groups");
        assertEquals(List.of("chat", "pager"), groups.stream().map(g -> ((JsonObject) g).getString("receiver"))
                .sorted().toList());
        JsonObject first = groups.getJsonObject(0);
        assertEquals("firing", first.getJsonArray("alerts").getJsonObject(0).getString("status"));
        assertEquals("gpu-7", first.getJsonArray("alerts").getJsonObject(0).getJsonObject("labels").getString("node"));
    }
}
