package io.gpuwatch.gateway.route;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RouteMatchTest {
    private static final Set<String> RECEIVERS = Set.of("paging", "chat", "ticketing", "digest", "db", "ml-chat",
            "fallback", "gpu-ops");

    private static RoutingConfig config(String yaml) {
        RoutingLoad load = RoutingConfig.parse("routes.yml", yaml, RECEIVERS);
        assertTrue(load.ok(), load.diagnostics().toString());
        return load.config();
    }

    private static List<String> receivers(RoutingConfig c, Map<String, String> labels) {
        return c.routes(labels).stream().map(Route::receiver).toList();
    }

    @Test
    void defaultTreeFollowsTheSeverityConventions() {
        RoutingConfig c = RoutingConfig.defaults();
        assertEquals(List.of("paging", "chat"), receivers(c, Map.of("alertname", "xid-fallen-off-bus",
                "severity", "page")));
        assertEquals(List.of("ticketing"), receivers(c, Map.of("severity", "ticket")));
        assertEquals(List.of("digest"), receivers(c, Map.of("severity", "notice")));
        assertEquals(List.of("digest"), receivers(c, Map.of("severity", "inspect")));
        assertEquals(List.of("chat"), receivers(c, Map.of("alertname", "x")), "the root takes the rest");
    }

    @Test
    void firstMatchingChildWinsUnlessItContinues() {
        RoutingConfig c = config("""
                route:
                  receiver: fallback
                  routes:
                    - matchers: ['layer="device"']
                      receiver: gpu-ops
                      continue: true
                    - matchers: ['severity="page"']
                      receiver: paging
                    - matchers: ['severity=~"page|ticket"']
                      receiver: ticketing
                """);
        assertEquals(List.of("gpu-ops", "paging"), receivers(c, Map.of("layer", "device", "severity", "page")));
        assertEquals(List.of("ticketing"), receivers(c, Map.of("severity", "ticket")));
        assertEquals(List.of("gpu-ops"), receivers(c, Map.of("layer", "device")),
                "a continuing match is still a match, so the root is not added");
        assertEquals(List.of("fallback"), receivers(c, Map.of("layer", "business")));
    }

    @Test
    void nestedRoutesInheritWhatTheyDoNotSetAndTheDeepestMatchIsTheEnd() {
        RoutingConfig c = config("""
                route:
                  receiver: fallback
                  group_by: [alertname]
                  group_wait: 1m
                  routes:
                    - matchers: ['layer="device"']
                      receiver: gpu-ops
                      group_interval: 10m
                      routes:
                        - matchers: ['severity="page"']
                          receiver: paging
                          group_by: ['...']
                        - matchers: ['severity="ticket"']
                          repeat_interval: 1d
                """);
        Route page = c.routes(Map.of("layer", "device", "severity", "page")).get(0);
        assertEquals("route.routes[0].routes[0]", page.id());
        assertEquals("paging", page.receiver());
        assertEquals(GroupBy.ALL, page.groupBy());
        assertEquals(Duration.ofMinutes(1), page.groupWait(), "from the root");
        assertEquals(Duration.ofMinutes(10), page.groupInterval(), "from the parent");
        assertEquals(Duration.ofHours(4), page.repeatInterval(), "Alertmanager's default");

        Route ticket = c.routes(Map.of("layer", "device", "severity", "ticket")).get(0);
        assertEquals("gpu-ops", ticket.receiver(), "receiver inherited");
        assertEquals(GroupBy.of(List.of("alertname")), ticket.groupBy());
        assertEquals(Duration.ofDays(1), ticket.repeatInterval());

        Route device = c.routes(Map.of("layer", "device", "severity", "notice")).get(0);
        assertEquals("route.routes[0]", device.id(), "no child matches, so the parent itself is the end");

        Route root = c.routes(Map.of()).get(0);
        assertEquals(Duration.ofMinutes(1), root.groupWait());
        assertEquals(Duration.ofMinutes(5), root.groupInterval());
    }

    @Test
    void groupKeysFollowAlertmanagersFormat() {
        Route page = RoutingConfig.defaults().routes(Map.of("severity", "page")).get(0);
        assertEquals("{}/{severity=\"page\"}", page.key());
        Map<String, String> labels = page.groupBy().groupLabels(Map.of("alertname", "GpuHot", "node", "n1",
                "severity", "page", "uuid", "GPU-1"));
        assertEquals("{}/{severity=\"page\"}:{alertname=\"GpuHot\", node=\"n1\"}", page.groupKey(labels));
        assertEquals(Map.of("alertname", "GpuHot"), page.groupBy().groupLabels(Map.of("alertname", "GpuHot",
                "node", "")), "an empty label is no group label");
    }

    @Test
    void ownersGetTheirAlertsFirstAndTheTreeStillApplies() {
        RoutingConfig c = config("""
                route:
                  receiver: chat
                  group_by: [alertname]
                  routes:
                    - matchers: ['severity="page"']
                      receiver: paging
                owners:
                  ml-team: ml-chat
                  db-team: db
                """);
        assertEquals(List.of("ml-chat", "paging"), receivers(c, Map.of("severity", "page", "owner", "ml-team")));
        assertEquals(List.of("db", "chat"), receivers(c, Map.of("owner", "db-team")));
        assertEquals(List.of("chat"), receivers(c, Map.of("owner", "nobody")), "an owner without an entry");
        Route owner = c.routes(Map.of("owner", "ml-team")).get(0);
        assertEquals("owners.ml-team", owner.id());
        assertEquals("{}/{owner=\"ml-team\"}", owner.key());
        assertEquals(GroupBy.of(List.of("alertname")), owner.groupBy(), "timed and grouped as the root");
        assertEquals(List.of("chat", "db", "ml-chat", "paging"), c.receivers());
    }

    @Test
    void matcherMapsAreEqualityShorthand() {
        RoutingConfig c = config("""
                route:
                  receiver: chat
                  routes:
                    - matchers: {severity: page, layer: device}
                      receiver: paging
                """);
        assertEquals(List.of("paging"), receivers(c, Map.of("severity", "page", "layer", "device")));
        assertEquals(List.of("chat"), receivers(c, Map.of("severity", "page")));
    }
}
