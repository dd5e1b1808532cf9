package io.gpuwatch.gateway.http.alertmanager;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.ApiTokens;
import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.delivery.RecordingReceiver;
import io.gpuwatch.gateway.http.ApiAccess;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.reload.RuleFiles;
import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.gateway.route.RoutingLoad;
import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.eval.AlertState;
import io.gpuwatch.rules.eval.Transition;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;

import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A gateway for the Alertmanager API tests: API tokens for each role, a store (so changes are audited), pages
 * routed to a pager and a chat with everything else to the chat, and two firing alerts: a hot card (gpu-7's
 * GPU-1, a page) and a slow card (gpu-8's GPU-2, a ticket). {@link #silenceNode} makes gpu-7 go silent, which
 * inhibits the hot card's alert through the built-in {@code node-silent} rule.
 */
final class PagingGateway {
    static final String VIEWER = "viewer-token";
    static final String OPERATOR = "operator-token";
    static final String ADMIN = "admin-token";
    static final ApiTokens TOKENS = ApiTokens.of(List.of(ApiTokens.entry(VIEWER, Role.VIEWER, "dash"),
            ApiTokens.entry(OPERATOR, Role.OPERATOR, "ana"), ApiTokens.entry(ADMIN, Role.ADMIN, "root")));

    final Gateway gateway;
    private final RuleSet rules;
    private final WebClient web;

    private PagingGateway(Gateway gateway, RuleSet rules, WebClient web) {
        this.gateway = gateway;
        this.rules = rules;
        this.web = web;
    }

    /** Deploys the gateway on loopback with its data in {@code dir}, its time from {@code clock}. */
    static PagingGateway start(Vertx vertx, Path dir, InstantSource clock) throws Exception {
        RuleLoad load = RuleSet.parse("cards.yml", """
                group: cards
                layer: device
                scope: card
                rules:
                  - name: too-hot
                    severity: page
                    when: tempC > 85
                    summary: "hot"
                  - name: too-slow
                    severity: ticket
                    when: smActive < 0.1
                    summary: "slow"
                  - name: node-silent
                    severity: page
                    when: tempC < 0
                    summary: "silent"
                """);
        assertTrue(load.ok(), load.diagnostics().toString());
        RoutingLoad routing = RoutingConfig.parse("routes.yml", """
                route:
                  receiver: chat
                  group_by: [alertname]
                  group_wait: 1h
                  routes:
                    - matchers: ['severity="page"']
                      receiver: pager
                      continue: true
                    - matchers: ['severity="page"']
                      receiver: chat
                """, null);
        assertTrue(routing.ok(), routing.diagnostics().toString());
        Gateway g = new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 3_600_000,
                "http://gpuwatch.example:9464").withDataDir(dir.resolve("data")), load.ruleSet(), RuleFiles.none(),
                () -> null, List.of(new RecordingReceiver("pager"), new RecordingReceiver("chat")), routing.config(),
                clock).access(new ApiAccess(() -> TOKENS, Set.of(), true, 1000, 1000));
        await(vertx.deployVerticle(g));
        PagingGateway out = new PagingGateway(g, load.ruleSet(), WebClient.create(vertx));
        long now = clock.millis();
        out.fire("too-hot", Map.of("alertname", "too-hot", "severity", "page", "node", "gpu-7", "uuid", "GPU-1"),
                now);
        out.fire("too-slow", Map.of("alertname", "too-slow", "severity", "ticket", "node", "gpu-8", "uuid",
                "GPU-2"), now);
        return out;
    }

    /** Makes the node-silent alert of gpu-7 fire, which inhibits the hot card's alert. */
    void silenceNode(long at) throws Exception {
        fire("node-silent", Map.of("alertname", "node-silent", "severity", "page", "node", "gpu-7"), at);
    }

    /**
     * Fires an alert and waits until delivery has it, in a group: the ledger hands it on only once the store has
     * kept it.
     */
    private void fire(String rule, Map<String, String> labels, long at) throws Exception {
        Rule r = rules.rules().stream().filter(x -> x.name().equals(rule)).findFirst().orElseThrow();
        Transition t = new Transition(r, labels, AlertState.PENDING, AlertState.FIRING, at, at, rule, "");
        gateway.ledger().apply(t, gateway.dispatcher()::dispatch);
        String fingerprint = fingerprint(rule);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!await(web.get(gateway.port(), "127.0.0.1", "/api/v1/groups").bearerTokenAuthentication(VIEWER)
                .send()).bodyAsString().contains(fingerprint)) {
            assertTrue(System.nanoTime() < deadline, "alert " + rule + " never reached delivery");
            Thread.sleep(20);
        }
    }

    /** The fingerprint of the live alert of {@code rule}. */
    String fingerprint(String rule) {
        return gateway.ledger().live().stream().filter(a -> a.rule().equals(rule)).findFirst().orElseThrow()
                .fingerprint();
    }

    static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
