package io.gpuwatch.gateway.route;

/** The built-in routing tree, the same as examples/alerting/routes.yml (a test keeps the two equal). */
final class DefaultRoutes {
    static final String YAML = """
            route:
              receiver: chat
              group_by: [alertname, node]
              group_wait: 30s
              group_interval: 5m
              repeat_interval: 4h
              routes:
                - matchers: ['severity="page"']
                  receiver: paging
                  group_wait: 10s
                  group_interval: 1m
                  continue: true
                - matchers: ['severity="page"']
                  receiver: chat
                  group_wait: 10s
                  group_interval: 1m
                - matchers: ['severity="ticket"']
                  receiver: ticketing
                  group_by: [alertname, node, task]
                  group_wait: 2m
                  repeat_interval: 24h
                - matchers: ['severity=~"notice|inspect"']
                  receiver: digest
                  group_by: []
                  group_wait: 15m
                  group_interval: 24h
                  repeat_interval: 24h
            """;

    private DefaultRoutes() {
    }
}
