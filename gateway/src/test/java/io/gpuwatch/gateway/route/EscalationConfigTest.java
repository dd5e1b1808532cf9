package io.gpuwatch.gateway.route;

import io.gpuwatch.rules.source.Diagnostic;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** `escalation_policies:` and a route's `escalation:` as read from an alerting file, and their mistakes. */
class EscalationConfigTest {
    private static final Set<String> RECEIVERS = Set.of("chat", "gpu-feishu", "gpu-dingtalk");

    private static final String GOOD = """
            escalation_policies:
              - name: gpu-page
                repeat: 2
                steps:
                  - schedules: [gpu-platform/primary]
                    via: [gpu-feishu]
                    timeout: 5m
                  - schedules: [gpu-platform]
                    people: [lead]
                    via: [gpu-feishu, gpu-dingtalk]
                    timeout: 10m
            route:
              receiver: chat
              routes:
                - matchers: ['severity="page"']
                  escalation: gpu-page
                - matchers: ['severity="critical"']
                  receiver: gpu-dingtalk
                  escalation: gpu-page
            """;

    private static List<String> problems(String yaml) {
        RoutingLoad load = RoutingConfig.parse("alerting.yml", yaml, RECEIVERS);
        assertFalse(load.ok(), "expected errors");
        return load.diagnostics().stream().map(Diagnostic::toString).toList();
    }

    @Test
    void aPolicyIsReadWithItsStepsAndARouteNamesIt() {
        RoutingLoad load = RoutingConfig.parse("alerting.yml", GOOD, RECEIVERS);
        assertEquals(List.of(), load.diagnostics());
        EscalationPolicy p = load.config().escalationPolicies().get("gpu-page");
        assertEquals(3, p.rounds());
        assertEquals(2, p.steps().size());
        assertEquals(Duration.ofMinutes(5), p.steps().get(0).timeout());
        assertEquals(List.of("gpu-platform/primary"), p.steps().get(0).targets().stream().map(Object::toString).toList());
        EscalationTarget layer = p.steps().get(0).targets().get(0);
        assertEquals("alerting.yml:5:21", layer.place());
        assertEquals(List.of("gpu-platform", "lead"), p.steps().get(1).targets().stream().map(Object::toString).toList());
        assertEquals("lead", p.steps().get(1).targets().get(1).person());
        assertEquals(List.of("gpu-feishu", "gpu-dingtalk"), p.steps().get(1).via());
    }

    @Test
    void aRouteWithAPolicyAndNoReceiverPagesThroughThePolicyOnly() {
        RoutingConfig config = RoutingConfig.parse("alerting.yml", GOOD, RECEIVERS).config();
        List<Route> page = config.routes(Map.of("severity", "page"));
        assertEquals(1, page.size());
        assertEquals(Route.NONE, page.get(0).receiver());
        assertEquals("gpu-page", config.escalation(Map.of("severity", "page")).orElseThrow());
        Route critical = config.routes(Map.of("severity", "critical")).get(0);
        assertEquals("gpu-dingtalk", critical.receiver(), "besides its receiver");
        assertEquals("gpu-page", critical.escalation().orElseThrow());
        assertTrue(config.escalation(Map.of("severity", "info")).isEmpty());
        assertFalse(config.receivers().contains(Route.NONE));
        assertTrue(config.receivers().containsAll(List.of("chat", "gpu-feishu", "gpu-dingtalk")));
    }

    @Test
    void mistakesAreReportedAtTheirPlaceWithTheNearestName() {
        assertEquals(List.of(
                "alerting.yml:4:9: error: unknown escalation step key `timout` (did you mean `timeout`?)",
                "alerting.yml:4:9: error: a step needs `timeout:`, how long it waits for an acknowledgement "
                        + "before the next step",
                "alerting.yml:5:15: error: unknown receiver `gpu-feishoo` (did you mean `gpu-feishu`?) "
                        + "(receivers: chat, gpu-dingtalk, gpu-feishu)",
                "alerting.yml:7:5: error: unknown escalation policy key `repaet` (did you mean `repeat`?)",
                "alerting.yml:8:13: error: `repeat` is a whole number of times, 0 or more, not `twice`",
                "alerting.yml:11:18: error: `timeout` must be longer than 0",
                "alerting.yml:16:19: error: unknown escalation policy `gpu-pge` (did you mean `gpu-page`?) "
                        + "(policies: gpu-page, other)"), problems("""
                escalation_policies:
                  - name: gpu-page
                    steps:
                      - timout: 5m
                        via: [gpu-feishoo]
                  - name: other
                    repaet: 1
                    repeat: twice
                    steps:
                      - via: [chat]
                        timeout: 0s
                route:
                  receiver: chat
                  routes:
                    - matchers: ['severity="page"']
                      escalation: gpu-pge
                    - escalation: gpu-page
                """));
    }
}
