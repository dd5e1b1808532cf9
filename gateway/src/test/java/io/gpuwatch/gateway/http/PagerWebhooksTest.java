package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.delivery.RecordingReceiver;
import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.ack.PagerHook;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.ledger.PersistentLedger;
import io.gpuwatch.gateway.reload.RuleFiles;
import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.gateway.route.RoutingLoad;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.receiver.pagerduty.PagerDutyConfig;
import io.gpuwatch.notify.receiver.pagerduty.PagerDutyReceiver;
import io.gpuwatch.notify.secret.Secret;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.eval.AlertState;
import io.gpuwatch.rules.eval.Transition;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
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

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Acknowledgements made in PagerDuty and Opsgenie reach the gateway through their webhooks: a proven one is
 * shown on the alert (and kept on disk with a data directory) but never sent back to PagerDuty, anything
 * unproven is refused, and anything that is not an acknowledgement of a live alert is answered and ignored.
 * The gateway routes its pages to a real PagerDuty receiver pointed at a local fake of the Events API.
 */
@ExtendWith(VertxExtension.class)
class PagerWebhooksTest {
    private static final long T0 = 1_764_700_000_000L;
    private static final String PD_SECRET = "pd-webhook-signing-secret";
    private static final String OPSGENIE_SECRET = "opsgenie-shared-secret";

    @TempDir
    Path dir;

    /** Every event the fake PagerDuty Events API was sent. */
    private final List<JsonObject> toPagerDuty = new CopyOnWriteArrayList<>();
    private RuleSet rules;
    private RoutingConfig routing;
    private HttpServer fakePagerDuty;
    private WebClient web;
    private Gateway gateway;

    @BeforeEach
    void setUp(Vertx vertx) throws Exception {
        RuleLoad load = RuleSet.parse("hooks.yml", """
                group: hooks
                layer: device
                scope: card
                rules:
                  - name: too-hot
                    severity: page
                    when: tempC > 85
                    summary: "hot"
                """);
        assertTrue(load.ok(), load.diagnostics().toString());
        rules = load.ruleSet();
        // pages go to PagerDuty and to the Opsgenie team; an hour's group wait sends nothing during a test
        RoutingLoad r = RoutingConfig.parse("routes.yml", """
                route:
                  receiver: oncall
                  group_wait: 1h
                  routes:
                    - matchers: ['severity="page"']
                      receiver: oncall
                      continue: true
                    - matchers: ['severity="page"']
                      receiver: ops
                """, null);
        assertTrue(r.ok(), r.diagnostics().toString());
        routing = r.config();
        fakePagerDuty = await(vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(b -> {
            toPagerDuty.add(b.toJsonObject());
            req.response().setStatusCode(202).putHeader("Content-Type", "application/json")
                    .end("{\"status\":\"success\",\"message\":\"Event processed\"}");
        })).listen(0, "127.0.0.1"));
        web = WebClient.create(vertx);
    }

    private Gateway start(Vertx vertx, GatewayConfig config, boolean fire) throws Exception {
        PagerDutyConfig pd = new PagerDutyConfig("http://127.0.0.1:" + fakePagerDuty.actualPort() + "/v2/enqueue",
                Secret.of("R0UTINGKEY0000000000000000000000", "test"), PagerDutyConfig.DEFAULT_SUMMARY,
                PagerDutyConfig.DEFAULT_SOURCE, PagerDutyConfig.DEFAULT_SEVERITIES, 5_000, 1, 1, 1);
        Receiver oncall = PagerDutyReceiver.create(vertx, web, "oncall", pd);
        Receiver ops = new RecordingReceiver("ops");
        Gateway g = new Gateway(config, rules, RuleFiles.none(), () -> null, List.of(oncall, ops), routing,
                () -> Instant.ofEpochMilli(T0))
                .pagerHooks(List.of(new PagerHook("oncall", PagerHook.Service.PAGERDUTY, Secret.of(PD_SECRET, "test")),
                        new PagerHook("ops", PagerHook.Service.OPSGENIE, Secret.of(OPSGENIE_SECRET, "test"))));
        await(vertx.deployVerticle(g));
        if (fire) {
            for (String uuid : List.of("GPU-1", "GPU-2", "GPU-3")) {
                Transition fires = new Transition(rules.rules().get(0), Map.of("alertname", "too-hot",
                        "severity", "page", "node", "gpu-7", "uuid", uuid), AlertState.PENDING, AlertState.FIRING,
                        T0, T0, "hot", "");
                g.ledger().apply(fires, g.dispatcher()::dispatch);
            }
            if (g.ledger() instanceof PersistentLedger kept) {
                await(kept.settled());
            }
        }
        return g;
    }

    private Gateway start(Vertx vertx) throws Exception {
        gateway = start(vertx, new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 3_600_000,
                "http://localhost"), true);
        return gateway;
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** HMAC-SHA256 of the body, as PagerDuty signs it, in lower-case hex. */
    private static String sign(String secret, String body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        StringBuilder hex = new StringBuilder();
        for (byte b : mac.doFinal(body.getBytes(StandardCharsets.UTF_8))) {
            hex.append(String.format("%02x", b));
        }
        return hex.toString();
    }

    /** A V3 webhook body as PagerDuty sends it for an incident opened with {@code incidentKey}. */
    private static String pagerDutyEvent(String type, Object incidentKey) {
        return new JsonObject().put("event", new JsonObject()
                .put("id", "01DEN4HPBQAAAG05V5QQYBRZMF")
                .put("event_type", type)
                .put("resource_type", "incident")
                .put("occurred_at", "2026-12-03T10:15:00.000Z")
                .put("agent", new JsonObject().put("html_url", "https://acme.pagerduty.com/users/PLH1HKV")
                        .put("id", "PLH1HKV").put("self", "https://api.pagerduty.com/users/PLH1HKV")
                        .put("summary", "Ana Oncall").put("type", "user_reference"))
                .putNull("client")
                .put("data", new JsonObject().put("id", "PGR0VU2").put("type", "incident")
                        .put("self", "https://api.pagerduty.com/incidents/PGR0VU2")
                        .put("html_url", "https://acme.pagerduty.com/incidents/PGR0VU2").put("number", 2)
                        .put("status", "acknowledged").put("incident_key", incidentKey)
                        .put("created_at", "2026-12-03T10:00:00Z").put("title", "hot")))
                .encode();
    }

    /** An Opsgenie outgoing webhook body for an alert with {@code alias}. */
    private static String opsgenieEvent(String action, Object alias) {
        return new JsonObject().put("action", action)
                .put("alert", new JsonObject().put("alertId", "70413a06-38d6-4c85-92b8-5ebc900d42e2")
                        .put("message", "hot").put("tags", new JsonArray().add("too-hot").add("page"))
                        .put("tinyId", "12").put("entity", "GPU-1").put("alias", alias)
                        .put("createdAt", 1_764_700_000_000L).put("updatedAt", 1_764_700_900_000L)
                        .put("username", "bo@example.com").put("userId", "daed1180-0ce8-438b-8f8e-57e1a5920a2d"))
                .put("source", new JsonObject().put("name", "").put("type", "web"))
                .put("integrationName", "gpuwatch acknowledgements").put("integrationType", "Webhook")
                .encode();
    }

    private HttpResponse<Buffer> post(String path, String header, String value, String body) throws Exception {
        HttpRequest<Buffer> req = web.post(gateway.port(), "127.0.0.1", path).putHeader("Content-Type",
                "application/json");
        if (header != null) {
            req.putHeader(header, value);
        }
        return await(req.sendBuffer(Buffer.buffer(body)));
    }

    private HttpResponse<Buffer> toPagerDutyHook(String signature, String body) throws Exception {
        return post("/api/v1/receivers/oncall/pagerduty-webhook", "X-PagerDuty-Signature", signature, body);
    }

    private HttpResponse<Buffer> signedPagerDuty(String body) throws Exception {
        return toPagerDutyHook("v1=" + sign(PD_SECRET, body), body);
    }

    private HttpResponse<Buffer> toOpsgenieHook(String secret, String body) throws Exception {
        return post("/api/v1/receivers/ops/opsgenie-webhook", secret == null ? null : "X-Gpuwatch-Webhook-Secret",
                secret, body);
    }

    /** The live alerts by their uuid label. */
    private Map<String, JsonObject> alerts() throws Exception {
        HttpResponse<Buffer> r = await(web.get(gateway.port(), "127.0.0.1", "/api/v1/alerts").send());
        assertEquals(200, r.statusCode(), r.bodyAsString());
        Map<String, JsonObject> out = new HashMap<>();
        r.bodyAsJsonObject().getJsonArray("alerts").stream().map(JsonObject.class::cast)
                .forEach(a -> out.put(a.getJsonObject("labels").getString("uuid"), a));
        return out;
    }

    private String fingerprint(String uuid) throws Exception {
        return alerts().get(uuid).getString("fingerprint");
    }

    /** The dedup keys PagerDuty was asked to acknowledge. */
    private List<String> acknowledgedAtPagerDuty() {
        return toPagerDuty.stream().filter(e -> "acknowledge".equals(e.getString("event_action")))
                .map(e -> e.getString("dedup_key")).toList();
    }

    @Test
    void aSignedPagerDutyAcknowledgementIsShownOnTheAlertAndNotSentBackToPagerDuty(Vertx vertx) throws Exception {
        start(vertx);
        String hot = fingerprint("GPU-1");
        String body = pagerDutyEvent("incident.acknowledged", hot);
        // while a subscription's secret is rotated PagerDuty signs with both; one matching is enough
        HttpResponse<Buffer> taken = toPagerDutyHook("v1=" + sign("the-old-secret", body) + ", v1="
                + sign(PD_SECRET, body), body);
        assertEquals(200, taken.statusCode(), taken.bodyAsString());
        assertTrue(taken.bodyAsJsonObject().getBoolean("recorded"), taken.bodyAsString());

        JsonObject acked = alerts().get("GPU-1").getJsonObject("acked");
        assertEquals("Ana Oncall", acked.getString("by"));
        assertEquals("acknowledged in PagerDuty", acked.getString("comment"));
        assertEquals("pagerduty", acked.getString("source"));
        assertEquals(Instant.ofEpochMilli(T0).toString(), acked.getString("at"));
        assertNull(alerts().get("GPU-2").getValue("acked"));

        // an acknowledgement over the API is sent to PagerDuty, and is answered once PagerDuty has it, so by now
        // the webhook's would have arrived before it had the gateway sent it back
        String other = fingerprint("GPU-2");
        HttpResponse<Buffer> api = post("/api/v1/alerts/" + other + "/ack", null, null,
                new JsonObject().put("by", "cy").encode());
        assertEquals(200, api.statusCode(), api.bodyAsString());
        assertEquals(List.of(PagerDutyReceiver.dedupKey(other)), acknowledgedAtPagerDuty(),
                "only the acknowledgement given in gpuwatch goes to PagerDuty");
    }

    @Test
    void aPagerDutyWebhookWithoutTheRightSignatureIsRefusedAndChangesNothing(Vertx vertx) throws Exception {
        start(vertx);
        String body = pagerDutyEvent("incident.acknowledged", fingerprint("GPU-1"));
        HttpResponse<Buffer> unsigned = toPagerDutyHook(null, body);
        assertEquals(401, unsigned.statusCode());
        assertEquals(401, toPagerDutyHook("v1=" + sign("another-secret", body), body).statusCode());
        assertEquals(401, toPagerDutyHook("v1=" + sign(PD_SECRET, body + " "), body).statusCode(),
                "the signature covers the exact bytes");
        assertEquals(401, toPagerDutyHook("v0=" + sign(PD_SECRET, body), body).statusCode(),
                "only v1 signatures count");
        assertFalse(unsigned.bodyAsString().contains(PD_SECRET));
        assertNull(alerts().get("GPU-1").getValue("acked"));
    }

    @Test
    void pagerDutyEventsThatAcknowledgeNothingOfOursAreAnsweredAndIgnored(Vertx vertx) throws Exception {
        start(vertx);
        HttpResponse<Buffer> unknown = signedPagerDuty(pagerDutyEvent("incident.acknowledged", "not-one-of-ours"));
        assertEquals(200, unknown.statusCode(), "PagerDuty retries anything but 2xx");
        assertFalse(unknown.bodyAsJsonObject().getBoolean("recorded"));
        HttpResponse<Buffer> noKey = signedPagerDuty(pagerDutyEvent("incident.acknowledged", null));
        assertEquals(200, noKey.statusCode());
        assertFalse(noKey.bodyAsJsonObject().getBoolean("recorded"));
        HttpResponse<Buffer> resolved = signedPagerDuty(pagerDutyEvent("incident.resolved", fingerprint("GPU-1")));
        assertEquals(200, resolved.statusCode());
        assertFalse(resolved.bodyAsJsonObject().getBoolean("recorded"));
        assertEquals(200, signedPagerDuty("{\"event\":{\"event_type\":\"pagey.ping\"}}").statusCode());
        alerts().values().forEach(a -> assertNull(a.getValue("acked"), a.encode()));
    }

    @Test
    void aMalformedPagerDutyEventIsRefusedNamingTheField(Vertx vertx) throws Exception {
        start(vertx);
        HttpResponse<Buffer> notJson = signedPagerDuty("{\"event\": ");
        assertEquals(400, notJson.statusCode());
        assertEquals("body", notJson.bodyAsJsonObject().getString("field"));
        assertEquals("event", signedPagerDuty("{\"messages\":[]}").bodyAsJsonObject().getString("field"));
        assertEquals("event.event_type", signedPagerDuty("{\"event\":{\"event_type\":7}}").bodyAsJsonObject()
                .getString("field"));
        HttpResponse<Buffer> badKey = signedPagerDuty(pagerDutyEvent("incident.acknowledged", 42));
        assertEquals(400, badKey.statusCode());
        assertEquals("event.data.incident_key", badKey.bodyAsJsonObject().getString("field"));
    }

    @Test
    void aReceiverWithoutAWebhookSecretHasNoWebhook(Vertx vertx) throws Exception {
        start(vertx);
        String body = pagerDutyEvent("incident.acknowledged", fingerprint("GPU-1"));
        String signature = "v1=" + sign(PD_SECRET, body);
        assertEquals(404, post("/api/v1/receivers/ops/pagerduty-webhook", "X-PagerDuty-Signature", signature, body)
                .statusCode(), "ops takes Opsgenie's webhook, not PagerDuty's");
        assertEquals(404, post("/api/v1/receivers/nobody/pagerduty-webhook", "X-PagerDuty-Signature", signature,
                body).statusCode());
        assertEquals(404, post("/api/v1/receivers/oncall/opsgenie-webhook", "X-Gpuwatch-Webhook-Secret",
                OPSGENIE_SECRET, opsgenieEvent("Acknowledge", fingerprint("GPU-1"))).statusCode());
        assertNull(alerts().get("GPU-1").getValue("acked"));
    }

    @Test
    void anOpsgenieAcknowledgementWithTheSecretIsShownOnTheAlertAndNotSentToPagerDuty(Vertx vertx)
            throws Exception {
        start(vertx);
        String hot = fingerprint("GPU-1");
        HttpResponse<Buffer> taken = toOpsgenieHook(OPSGENIE_SECRET, opsgenieEvent("Acknowledge", hot));
        assertEquals(200, taken.statusCode(), taken.bodyAsString());
        JsonObject acked = alerts().get("GPU-1").getJsonObject("acked");
        assertEquals("bo@example.com", acked.getString("by"));
        assertEquals("acknowledged in Opsgenie", acked.getString("comment"));
        assertEquals("opsgenie", acked.getString("source"));

        String other = fingerprint("GPU-2");
        assertEquals(200, post("/api/v1/alerts/" + other + "/ack", null, null,
                new JsonObject().put("by", "cy").encode()).statusCode());
        assertEquals(List.of(PagerDutyReceiver.dedupKey(other)), acknowledgedAtPagerDuty(),
                "PagerDuty, where the alert is paged too, hears only of the acknowledgement given in gpuwatch");
    }

    @Test
    void anOpsgenieWebhookWithoutTheSecretIsRefusedAndOtherActionsAreIgnored(Vertx vertx) throws Exception {
        start(vertx);
        String hot = fingerprint("GPU-1");
        assertEquals(401, toOpsgenieHook(null, opsgenieEvent("Acknowledge", hot)).statusCode());
        assertEquals(401, toOpsgenieHook("opsgenie-shared-secreT", opsgenieEvent("Acknowledge", hot)).statusCode());
        HttpResponse<Buffer> closed = toOpsgenieHook(OPSGENIE_SECRET, opsgenieEvent("Close", hot));
        assertEquals(200, closed.statusCode());
        assertFalse(closed.bodyAsJsonObject().getBoolean("recorded"));
        HttpResponse<Buffer> unknown = toOpsgenieHook(OPSGENIE_SECRET, opsgenieEvent("Acknowledge", "someone-else"));
        assertEquals(200, unknown.statusCode());
        assertFalse(unknown.bodyAsJsonObject().getBoolean("recorded"));
        HttpResponse<Buffer> noAlias = toOpsgenieHook(OPSGENIE_SECRET, opsgenieEvent("Acknowledge", null));
        assertEquals(400, noAlias.statusCode());
        assertEquals("alert.alias", noAlias.bodyAsJsonObject().getString("field"));
        assertEquals("action", toOpsgenieHook(OPSGENIE_SECRET, "{\"alert\":{}}").bodyAsJsonObject()
                .getString("field"));
        assertNull(alerts().get("GPU-1").getValue("acked"));
    }

    @Test
    void theEchoOfAnApiAcknowledgementKeepsWhoGaveIt(Vertx vertx) throws Exception {
        start(vertx);
        String hot = fingerprint("GPU-3");
        assertEquals(200, post("/api/v1/alerts/" + hot + "/ack", null, null,
                new JsonObject().put("by", "ana").put("comment", "on it").encode()).statusCode());
        // PagerDuty reports the acknowledgement the gateway just sent it, by the integration
        HttpResponse<Buffer> echo = signedPagerDuty(pagerDutyEvent("incident.acknowledged", hot));
        assertEquals(200, echo.statusCode());
        assertFalse(echo.bodyAsJsonObject().getBoolean("recorded"));
        JsonObject acked = alerts().get("GPU-3").getJsonObject("acked");
        assertEquals("ana", acked.getString("by"));
        assertEquals("api", acked.getString("source"));
        assertEquals(List.of(PagerDutyReceiver.dedupKey(hot)), acknowledgedAtPagerDuty());
    }

    @Test
    void withADataDirectoryAWebhookAcknowledgementIsOnDiskBeforeItIsAnswered(Vertx vertx) throws Exception {
        GatewayConfig durable = new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 3_600_000,
                "http://localhost").withDataDir(dir.resolve("data"));
        gateway = start(vertx, durable, true);
        String hot = fingerprint("GPU-1");
        assertEquals(200, signedPagerDuty(pagerDutyEvent("incident.acknowledged", hot)).statusCode());
        await(vertx.undeploy(gateway.deploymentID()));

        gateway = start(vertx, durable, false);
        JsonObject acked = alerts().get("GPU-1").getJsonObject("acked");
        assertEquals("Ana Oncall", acked.getString("by"));
        assertEquals("pagerduty", acked.getString("source"));

        await(gateway.store().orElseThrow().close());
        HttpResponse<Buffer> refused = toOpsgenieHook(OPSGENIE_SECRET, opsgenieEvent("Acknowledge",
                fingerprint("GPU-2")));
        assertEquals(503, refused.statusCode(), "Opsgenie retries what the gateway could not keep");
        assertNull(alerts().get("GPU-2").getValue("acked"));
    }
}
