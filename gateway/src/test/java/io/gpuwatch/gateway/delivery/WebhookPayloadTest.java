package io.gpuwatch.gateway.delivery;

import io.gpuwatch.gateway.alert.AlertLinks;
import io.gpuwatch.gateway.alert.Fingerprint;
import io.gpuwatch.gateway.ledger.MemoryLedger;
import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.gateway.route.RoutingLoad;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.receiver.webhook.WebhookConfig;
import io.gpuwatch.notify.receiver.webhook.WebhookReceiver;
import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.eval.AlertState;
import io.gpuwatch.rules.eval.Transition;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a webhook consumer gets from a routed gateway: alerts made by the ledger from rule transitions, routed
 * and grouped by the dispatcher, posted by the real webhook receiver to a local server.
 */
class WebhookPayloadTest {
    private static final Instant T0 = Instant.parse("2026-12-05T10:00:00Z");
    private static final String RULES = """
            group: payload
            layer: device
            scope: card
            rules:
              - name: too-hot
                severity: page
                when: tempC > 90
                for: 1m
                runbook: docs/runbooks.md#too-hot
              - name: ecc-errors
                severity: ticket
                when: tempC > 200
                runbook: https://wiki.example.com/ecc
            """;
    private static final String ROUTES = """
            route:
              receiver: hook
              group_by: [alertname]
              group_wait: 0s
              group_interval: 1s
              routes:
                - matchers: ['severity="page"']
                  receiver: hook
                  group_by: [alertname, node]
                  group_wait: 0s
                  group_interval: 1s
            """;

    private final AtomicReference<Instant> now = new AtomicReference<>(T0);
    private final InstantSource clock = () -> now.get();
    private final BlockingQueue<JsonObject> posted = new LinkedBlockingQueue<>();
    private final MemoryLedger ledger = new MemoryLedger(100,
            new AlertLinks("https://gpuwatch.example.com/", "https://runbooks.example.com/gpu"));
    private Vertx vertx;
    private HttpServer server;
    private Dispatcher dispatcher;
    private Map<String, Rule> rules;

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        server = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(b -> {
            posted.add(b.toJsonObject());
            req.response().setStatusCode(200).end();
        })).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        WebhookReceiver hook = WebhookReceiver.create(vertx, WebClient.create(vertx), "hook",
                WebhookConfig.of("http://127.0.0.1:" + server.actualPort() + "/hook"), "https://gpuwatch.example.com");
        RoutingLoad load = RoutingConfig.parse("routes.yml", ROUTES, Set.of("hook"));
        assertTrue(load.ok(), load.diagnostics().toString());
        dispatcher = new Dispatcher(load.config(), List.of(hook), clock);
        RuleLoad rl = RuleSet.parse("payload.yml", RULES);
        assertTrue(rl.ok(), rl.diagnostics().toString());
        rules = new LinkedHashMap<>();
        rl.ruleSet().rules().forEach(r -> rules.put(r.name(), r));
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private Map<String, String> labels(String rule, String node, String uuid, String task) {
        Rule r = rules.get(rule);
        Map<String, String> l = new LinkedHashMap<>();
        l.put("alertname", rule);
        l.put("severity", r.severity().key());
        l.put("layer", "device");
        l.put("node", node);
        l.put("uuid", uuid);
        l.put("task", task);
        return l;
    }

    private void change(String rule, Map<String, String> labels, AlertState to, long activeSince) {
        ledger.apply(new Transition(rules.get(rule), labels, to == AlertState.FIRING ? AlertState.PENDING
                : AlertState.FIRING, to, now.get().toEpochMilli(), activeSince, rule + " summary", ""),
                dispatcher::dispatch);
    }

    private JsonObject next() throws InterruptedException {
        JsonObject body = posted.poll(10, TimeUnit.SECONDS);
        assertNotNull(body, "the webhook was posted to");
        return body;
    }

    @Test
    void theGroupKeyAndLabelsComeFromTheRouteAndStayWhileMembersComeAndGo() throws Exception {
        String pageKey = "{}/{severity=\"page\"}:{alertname=\"too-hot\", node=\"n1\"}";
        now.set(T0.plusSeconds(60));
        Map<String, String> gpu1 = labels("too-hot", "n1", "GPU-1", "train-a");
        change("too-hot", gpu1, AlertState.FIRING, T0.toEpochMilli());
        JsonObject first = next();
        assertEquals(pageKey, first.getString("groupKey"));
        assertEquals(new JsonObject().put("alertname", "too-hot").put("node", "n1"), first.getJsonObject("groupLabels"),
                "only the route's group_by labels, not every label the alerts share");
        JsonObject alert = first.getJsonArray("alerts").getJsonObject(0);
        String fp = Fingerprint.of("too-hot", Map.of("node", "n1", "uuid", "GPU-1"));
        assertEquals(fp, alert.getString("fingerprint"));
        assertEquals("https://gpuwatch.example.com/api/v1/alerts/" + fp, alert.getString("generatorURL"));
        assertEquals("https://runbooks.example.com/gpu/docs/runbooks.md#too-hot",
                alert.getJsonObject("annotations").getString("runbook"));
        assertEquals("2026-12-05T10:01:00Z", alert.getString("startsAt"), "when it fired, after its `for`");

        now.set(T0.plusSeconds(70));
        change("too-hot", labels("too-hot", "n1", "GPU-2", "train-b"), AlertState.FIRING, T0.toEpochMilli() + 9_000);
        now.set(T0.plusSeconds(71));
        dispatcher.tick();
        JsonObject second = next();
        assertEquals(2, second.getJsonArray("alerts").size());
        assertEquals(pageKey, second.getString("groupKey"), "a second card joining keeps the key");
        assertEquals(first.getJsonObject("groupLabels"), second.getJsonObject("groupLabels"));
        assertEquals("2026-12-05T10:01:00Z", second.getJsonArray("alerts").getJsonObject(0).getString("startsAt"),
                "a re-notified alert keeps its start, not the time of this send");

        now.set(T0.plusSeconds(80));
        change("too-hot", gpu1, AlertState.RESOLVED, T0.toEpochMilli());
        now.set(T0.plusSeconds(81));
        dispatcher.tick();
        JsonObject third = next();
        assertEquals(pageKey, third.getString("groupKey"), "a card leaving keeps the key");
        JsonArray alerts = third.getJsonArray("alerts");
        assertEquals(List.of("resolved", "firing"), List.of(alerts.getJsonObject(0).getString("status"),
                alerts.getJsonObject(1).getString("status")));
        assertEquals("2026-12-05T10:01:20Z", alerts.getJsonObject(0).getString("endsAt"));
    }

    @Test
    void aRouteWithOtherGroupByGivesItsOwnKeyAndAnAbsoluteRunbookStaysAsWritten() throws Exception {
        change("ecc-errors", labels("ecc-errors", "n7", "GPU-3", "infer"), AlertState.FIRING, T0.toEpochMilli());
        JsonObject body = next();
        assertEquals("{}:{alertname=\"ecc-errors\"}", body.getString("groupKey"));
        assertEquals(new JsonObject().put("alertname", "ecc-errors"), body.getJsonObject("groupLabels"));
        assertEquals("n7", body.getJsonObject("commonLabels").getString("node"),
                "common labels still hold every label the alerts share");
        assertEquals("https://wiki.example.com/ecc",
                body.getJsonArray("alerts").getJsonObject(0).getJsonObject("annotations").getString("runbook"));
        assertEquals(Duration.ZERO, Duration.between(T0, Instant.parse(
                body.getJsonArray("alerts").getJsonObject(0).getString("startsAt"))));
    }
}
