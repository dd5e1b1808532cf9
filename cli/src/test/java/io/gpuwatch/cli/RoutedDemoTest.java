package io.gpuwatch.cli;

import io.gpuwatch.cli.alerting.AlertingFile;
import io.gpuwatch.cli.alerting.AlertingLoad;
import io.gpuwatch.cli.alerting.Wiring;
import io.gpuwatch.gateway.delivery.Dispatcher;
import io.gpuwatch.gateway.eval.Evaluator;
import io.gpuwatch.gateway.ledger.MemoryLedger;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.secret.SecretSource;
import io.gpuwatch.probe.scenario.Scenario;
import io.gpuwatch.probe.scenario.ScenarioLoad;
import io.gpuwatch.probe.scenario.ScenarioLoader;
import io.gpuwatch.probe.sim.SimFleet;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The demo's script through an alerting file's real routing (the default tree) to local fake Slack, PagerDuty
 * and Jira endpoints, on a stepped clock: one PagerDuty trigger and one resolve per paging incident, chat
 * messages for the pages, one Jira ticket per ticket incident, closed when it resolves. Plus a Slack outage.
 */
class RoutedDemoTest {
    private static final long T0 = 1_764_700_000_000L;
    private static final Pattern JQL = Pattern.compile(
            "project = \"([^\"]*)\" AND labels = \"([^\"]*)\" AND statusCategory != Done ORDER BY created DESC");
    private static final Pattern ISSUE = Pattern.compile("/rest/api/3/issue/(OPS-\\d+)(/comment|/transitions)");

    private Vertx vertx;
    private WebClient client;
    private HttpServer server;
    private final List<JsonObject> pagerDuty = Collections.synchronizedList(new ArrayList<>());
    private final List<String> slack = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger slackRequests = new AtomicInteger();
    private final AtomicInteger slackFailuresLeft = new AtomicInteger();
    private final Map<String, JsonObject> jiraIssues = Collections.synchronizedMap(new TreeMap<>());
    private final Set<String> jiraDone = Collections.synchronizedSet(new TreeSet<>());
    private final ByteArrayOutputStream console = new ByteArrayOutputStream();
    private final List<Future<Void>> inFlight = Collections.synchronizedList(new ArrayList<>());
    private int port;

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        client = WebClient.create(vertx);
        server = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(b -> answer(req, b.toString())))
                .listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        port = server.actualPort();
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** The three services, each checking what its real counterpart would reject. */
    private void answer(HttpServerRequest req, String body) {
        String path = req.path();
        if (path.equals("/slack")) {
            slackRequests.incrementAndGet();
            if (slackFailuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                req.response().setStatusCode(500).end("internal_error");
                return;
            }
            JsonObject msg = new JsonObject(body);
            if (!(msg.getValue("blocks") instanceof JsonArray) && msg.getString("text") == null) {
                req.response().setStatusCode(400).end("invalid_payload");
                return;
            }
            slack.add(body);
            req.response().end("ok");
        } else if (path.equals("/v2/enqueue")) {
            JsonObject event = new JsonObject(body);
            if (!"test-routing-key".equals(event.getString("routing_key")) || event.getString("dedup_key") == null) {
                req.response().setStatusCode(400).end(new JsonObject().put("status", "invalid event").encode());
                return;
            }
            pagerDuty.add(event);
            req.response().setStatusCode(202).end(new JsonObject().put("status", "success")
                    .put("dedup_key", event.getString("dedup_key")).encode());
        } else if (path.startsWith("/rest/api/3/")) {
            jira(req, path, body);
        } else {
            req.response().setStatusCode(404).end();
        }
    }

    private void jira(HttpServerRequest req, String path, String body) {
        if (req.getHeader("Authorization") == null || !req.getHeader("Authorization").startsWith("Basic ")) {
            req.response().setStatusCode(401).end();
            return;
        }
        JsonObject json = body.isEmpty() ? new JsonObject() : new JsonObject(body);
        JsonObject ok = new JsonObject();
        if (path.equals("/rest/api/3/search/jql")) {
            Matcher m = JQL.matcher(json.getString("jql", ""));
            if (!m.matches()) {
                req.response().setStatusCode(400).end();
                return;
            }
            JsonArray found = new JsonArray();
            synchronized (jiraIssues) {
                jiraIssues.forEach((key, fields) -> {
                    if (fields.getJsonArray("labels").contains(m.group(2)) && !jiraDone.contains(key)) {
                        found.add(new JsonObject().put("id", key.substring(4)).put("key", key).put("fields",
                                new JsonObject().put("status", new JsonObject().put("name", "To Do"))));
                    }
                });
            }
            req.response().putHeader("Content-Type", "application/json").end(ok.put("issues", found).encode());
            return;
        }
        if (path.equals("/rest/api/3/issue") && req.method().name().equals("POST")) {
            String key;
            synchronized (jiraIssues) {
                key = "OPS-" + (jiraIssues.size() + 1);
                jiraIssues.put(key, json.getJsonObject("fields"));
            }
            req.response().setStatusCode(201).putHeader("Content-Type", "application/json")
                    .end(ok.put("id", key.substring(4)).put("key", key).encode());
            return;
        }
        Matcher m = ISSUE.matcher(path);
        if (!m.matches() || !jiraIssues.containsKey(m.group(1))) {
            req.response().setStatusCode(404).end();
        } else if (m.group(2).equals("/comment")) {
            req.response().setStatusCode(201).end(ok.put("id", "1").encode());
        } else if (req.method().name().equals("GET")) {
            JsonObject done = new JsonObject().put("id", "31").put("name", "Done").put("to", new JsonObject()
                    .put("name", "Done").put("statusCategory", new JsonObject().put("key", "done")));
            req.response().putHeader("Content-Type", "application/json")
                    .end(ok.put("transitions", new JsonArray().add(done)).encode());
        } else {
            jiraDone.add(m.group(1));
            req.response().setStatusCode(204).end();
        }
    }

    private AlertingLoad alerting(String routing) {
        String text = """
                receivers:
                  - name: paging
                    type: pagerduty
                    url: http://127.0.0.1:%1$d/v2/enqueue
                    routingKey: {env: PD_KEY}
                  - name: chat
                    type: slack
                    url: {env: SLACK_URL}
                    minIntervalMs: 0
                    initialBackoffMs: 1
                    maxBackoffMs: 1
                  - name: ticketing
                    type: jira
                    url: http://127.0.0.1:%1$d
                    project: OPS
                    email: bot@example.com
                    apiToken: {env: JIRA_TOKEN}
                  - name: digest
                    type: console
                """.formatted(port) + routing;
        AlertingLoad load = AlertingFile.parse("alerting.yml", text, SecretSource.ofEnv(Map.of(
                "PD_KEY", "test-routing-key", "SLACK_URL", "http://127.0.0.1:" + port + "/slack",
                "JIRA_TOKEN", "jira-token")), null);
        assertTrue(load.ok(), load.diagnostics().toString());
        return load;
    }

    /** The file's receivers, each send remembered so a step can wait for what it started. */
    private List<Receiver> receivers(AlertingLoad load) {
        Wiring wiring = new Wiring(vertx, client, "http://demo", new PrintStream(console, true, StandardCharsets.UTF_8));
        return load.create(wiring).stream().<Receiver>map(r -> new Receiver() {
            @Override
            public String name() {
                return r.name();
            }

            @Override
            public Future<Void> send(List<Notification> batch) {
                Future<Void> f = r.send(batch);
                inFlight.add(f);
                return f;
            }
        }).toList();
    }

    private void awaitDeliveries() throws Exception {
        List<Future<Void>> pending;
        synchronized (inFlight) {
            pending = new ArrayList<>(inFlight);
            inFlight.clear();
        }
        if (!pending.isEmpty()) {
            Future.join(pending).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void theDemoPagesOncePerIncidentAndTicketsOncePerTicketIncident() throws Exception {
        String tree = Files.readString(Path.of("../examples/alerting/routes.yml"));
        // the demo's ticket incident is over within the shipped 2 minute wait, and a group whose alerts all
        // resolved before it was first sent is rightly dropped, so tickets wait as long as pages here
        String ticketWait = "receiver: ticketing\n      group_by: [alertname, node, task]\n      group_wait: 2m";
        assertTrue(tree.contains(ticketWait), tree);
        tree = tree.replace(ticketWait, "receiver: ticketing\n      group_by: [alertname, node, task]\n"
                + "      group_wait: 10s");
        AlertingLoad load = alerting(tree.substring(tree.indexOf("route:")));
        long[] now = {T0};
        InstantSource clock = () -> Instant.ofEpochMilli(now[0]);
        Dispatcher dispatcher = new Dispatcher(load.routing(), receivers(load), clock);

        RuleLoad rules = RuleSet.load(List.of(Path.of("../examples/rules")));
        assertTrue(rules.ok(), rules.diagnostics().toString());
        Scenario demo = ((ScenarioLoad.Loaded) ScenarioLoader.load(Path.of("../examples/scenarios/demo.yaml")))
                .scenario();
        Scenario endless = demo.with(null, demo.seed());
        SimFleet sim = new SimFleet(endless, T0);
        FleetState fleet = new FleetState();
        MemoryLedger ledger = new MemoryLedger(1000, "http://demo");
        Map<String, String> severityOf = new LinkedHashMap<>();
        Map<String, String> nameOf = new LinkedHashMap<>();
        Evaluator evaluator = new Evaluator(fleet, rules.ruleSet(), t -> ledger.apply(t, n -> {
            severityOf.put(n.fingerprint(), n.labels().getOrDefault("severity", ""));
            nameOf.put(n.fingerprint(), n.labels().get("alertname"));
            dispatcher.dispatch(n);
        }));
        for (String node : sim.nodes()) {
            fleet.hello(sim.hello(node), T0);
        }
        // past the half hour an application XID's ticket stays open and the longest group interval after it,
        // so every resolution has gone out
        long endSec = demo.duration().toSeconds() + DemoCommand.DEFAULT_LINGER.toSeconds() + 2400;
        for (long s = 0; s <= endSec; s++) {
            now[0] = T0 + s * 1000;
            long at = now[0];
            for (String node : sim.nodes()) {
                if (sim.silent(node, at)) {
                    continue;
                }
                for (Event e : sim.eventsDue(node, at)) {
                    var card = fleet.event(node, e, at);
                    if (card != null) {
                        evaluator.card(card, at);
                    }
                    evaluator.node(fleet.node(node), at);
                }
                fleet.sample(node, sim.sample(node, at), at, card -> evaluator.card(card, at));
            }
            evaluator.tick(at, 1000);
            dispatcher.tick();
            awaitDeliveries();
        }

        Set<String> pages = new TreeSet<>();
        Set<String> tickets = new TreeSet<>();
        severityOf.forEach((fp, sev) -> {
            if (sev.equals("page")) {
                pages.add(fp);
            } else if (sev.equals("ticket")) {
                tickets.add(fp);
            }
        });
        assertFalse(pages.isEmpty(), "the demo has paging incidents: " + severityOf);
        assertFalse(tickets.isEmpty(), "the demo has ticket incidents: " + severityOf);
        assertEquals(0, dispatcher.failed(), "no delivery failed");

        Map<String, List<String>> actions = new TreeMap<>();
        for (JsonObject e : pagerDuty) {
            actions.computeIfAbsent(e.getString("dedup_key"), k -> new ArrayList<>()).add(e.getString("event_action"));
        }
        Map<String, List<String>> expected = new TreeMap<>();
        // the card that fell off the bus never reports again in the demo, so its page stays open
        pages.forEach(fp -> expected.put(fp, "xid-fallen-off-bus".equals(nameOf.get(fp))
                ? List.of("trigger") : List.of("trigger", "resolve")));
        assertEquals(expected, actions, "one trigger and one resolve per paging incident (the lost card's page stays "
                + "open), nothing else paged");

        String chat = String.join("\n", slack);
        for (String fp : pages) {
            assertTrue(slack.size() >= 1 && chat.contains(nameOf.get(fp)), "chat saw the page " + fp);
        }
        assertEquals(tickets.size(), jiraIssues.size(), "one ticket per ticket incident: " + jiraIssues.keySet());
        assertEquals(jiraIssues.keySet(), jiraDone, "every ticket closed once its alert resolved");
    }

    @Test
    void aSlackOutageIsRiddenOutAndTheMessageDeliveredOnce() throws Exception {
        AlertingLoad load = alerting("""
                route:
                  receiver: chat
                  group_by: [alertname]
                  group_wait: 0s
                """);
        Dispatcher dispatcher = new Dispatcher(load.routing(), receivers(load),
                InstantSource.fixed(Instant.ofEpochMilli(T0)));
        slackFailuresLeft.set(1);
        dispatcher.dispatch(new Notification("fp-1", Notification.Status.FIRING,
                Map.of("alertname", "xid-fallen-off-bus", "node", "gpu-7", "severity", "page"),
                Map.of("summary", "GPU-3 on gpu-7 fell off the bus"), Instant.ofEpochMilli(T0), null, ""));
        awaitDeliveries();
        assertEquals(2, slackRequests.get(), "one refused request and one retry");
        assertEquals(1, slack.size(), "delivered exactly once after the outage");
        assertTrue(slack.get(0).contains("gpu-7"), slack.get(0));
        assertEquals(1, dispatcher.sent());
        assertEquals(0, dispatcher.failed());
    }
}
