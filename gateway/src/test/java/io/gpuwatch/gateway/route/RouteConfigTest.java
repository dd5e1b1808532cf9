package io.gpuwatch.gateway.route;

import io.gpuwatch.gateway.inhibit.InhibitRule;
import io.gpuwatch.rules.source.Diagnostic;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RouteConfigTest {
    private static final Set<String> RECEIVERS = Set.of("paging", "chat", "ticketing", "digest");

    private static List<String> problems(String yaml) {
        RoutingLoad load = RoutingConfig.parse("routes.yml", yaml, RECEIVERS);
        assertFalse(load.ok(), "expected errors");
        return load.diagnostics().stream().map(Diagnostic::toString).toList();
    }

    @Test
    void theExampleFileIsTheBuiltInTree() {
        RoutingLoad load = RoutingConfig.load(Path.of("../examples/alerting/routes.yml"), RECEIVERS);
        assertEquals(List.of(), load.diagnostics());
        assertEquals(RoutingConfig.defaults(), load.config());
        assertEquals(InhibitRule.BUILT_IN, load.config().inhibitRules());
    }

    @Test
    void theOfficeHoursExampleLoads() {
        RoutingLoad load = RoutingConfig.load(Path.of("../examples/alerting/office-hours.yml"),
                Set.of("paging", "chat", "ticketing", "digest", "ml-chat", "db-chat"));
        assertEquals(List.of(), load.diagnostics());
        assertTrue(load.config().timeIntervals().containsKey("office-hours"));
    }

    @Test
    void unknownKeysSuggestTheNearestOne() {
        assertEquals(List.of(
                "routes.yml:2:3: error: the root route needs `receiver:`, where alerts no other route takes go",
                "routes.yml:3:3: error: unknown route key `recevier` (did you mean `receiver`?)"), problems("""
                route:
                  group_by: [alertname]
                  recevier: chat
                """));
        assertEquals(List.of("routes.yml:3:1: error: unknown top-level key `colour` "
                + "(route, owners, time_intervals, inhibit_rules, builtin_inhibit_rules, receivers, "
                + "escalation_policies)"), problems("""
                route:
                  receiver: chat
                colour: red
                """));
    }

    @Test
    void badDurationsPointInsideTheValue() {
        assertEquals(List.of("routes.yml:3:15: error: `group_wait`: a duration needs a unit (ms s m h d), e.g. 30s",
                "routes.yml:4:19: error: `group_interval` must be longer than 0",
                "routes.yml:5:21: error: `repeat_interval`: unknown unit `hours` (durations: ms s m h d; sizes: "
                        + "B kB KB MB GB TB KiB MiB GiB TiB)"), problems("""
                route:
                  receiver: chat
                  group_wait: 30
                  group_interval: 0s
                  repeat_interval: 4hours
                """));
    }

    @Test
    void unknownReceiversAreNamedWithTheKnownOnes() {
        assertEquals(List.of("routes.yml:4:17: error: unknown receiver `pagng` (did you mean `paging`?) "
                + "(receivers: chat, digest, paging, ticketing)", "routes.yml:6:7: error: unknown receiver `teams` "
                + "(receivers: chat, digest, paging, ticketing)"), problems("""
                route:
                  receiver: chat
                  routes:
                    - receiver: pagng
                owners:
                  ml: teams
                """));
        RoutingLoad unchecked = RoutingConfig.parse("routes.yml", "route: {receiver: anything}\n", null);
        assertTrue(unchecked.ok(), "without a receiver list the names are not checked");
    }

    @Test
    void badMatchersPointAtTheCharacter() {
        assertEquals(List.of("routes.yml:4:29: error: bad regular expression for `node`: Unclosed group",
                "routes.yml:6:27: error: expected an operator (=, !=, =~, !~) after `severity`"), problems("""
                route:
                  receiver: chat
                  routes:
                    - matchers: ['node=~"n(1"']
                      receiver: paging
                    - matchers: [severity page]
                      receiver: paging
                """));
        assertEquals(List.of("routes.yml:2:3: error: the root route matches every alert and cannot have `matchers`"),
                problems("""
                        route:
                          matchers: ['a="b"']
                          receiver: chat
                        """));
    }

    @Test
    void timeIntervalReferencesAndZonesAreChecked() {
        List<String> p = problems("""
                time_intervals:
                  - name: weekends
                    time_intervals:
                      - weekdays: [saturday, sundy]
                        location: Europe/Berln
                  - name: office-hours
                    time_intervals:
                      - times: [{start_time: "17:00", end_time: "09:00"}]
                        days_of_month: ['0:5']
                        months: ['december:march']
                route:
                  receiver: chat
                  routes:
                    - receiver: ticketing
                      mute_time_intervals: [weekend]
                """);
        assertEquals(List.of(
                "routes.yml:4:30: error: unknown weekday `sundy` (did you mean `sunday`?) "
                        + "(monday … sunday, or a range such as monday:friday)",
                "routes.yml:5:19: error: unknown time zone `Europe/Berln` (did you mean `Europe/Berlin`?) "
                        + "(an IANA name such as Europe/Berlin, or UTC)",
                "routes.yml:8:49: error: `end_time` must be after `start_time` (the end is exclusive; a period "
                        + "across midnight is two entries, e.g. 22:00–24:00 and 00:00–06:00)",
                "routes.yml:9:25: error: `0:5` is out of range for `days_of_month` (1 to 31, or -1 to -31 "
                        + "counting from the month's end)",
                "routes.yml:10:18: error: `december:march` starts after it ends; ranges do not wrap around "
                        + "(write two entries)",
                "routes.yml:15:29: error: unknown time interval `weekend` (did you mean `weekends`?) "
                        + "(defined: weekends, office-hours)"), p);
    }

    @Test
    void everyProblemIsReportedNotJustTheFirst() {
        List<String> p = problems("""
                route:
                  receiver: chat
                  group_by: ['...', node]
                  routes:
                    - matchers: ['severity="page"']
                      receiver: paging
                      continue: maybe
                    - receiver: nope
                inhibit_rules:
                  - source_matchers: ['alertname="x"']
                """);
        assertEquals(4, p.size(), p.toString());
        assertTrue(p.get(0).startsWith("routes.yml:3:13: error: `...` already groups by every label"), p.get(0));
        assertTrue(p.get(1).startsWith("routes.yml:7:17: error: `continue` is true or false"), p.get(1));
        assertTrue(p.get(2).startsWith("routes.yml:8:17: error: unknown receiver `nope`"), p.get(2));
        assertTrue(p.get(3).startsWith("routes.yml:10:5: error: an inhibit rule needs `target_matchers`"), p.get(3));
    }

    @Test
    void brokenYamlAndMissingRootAreErrorsNotCrashes() {
        assertEquals(List.of("routes.yml:2:17: error: not valid YAML: mapping values are not allowed here"),
                problems("route:\n  receiver: chat: x\n").stream().map(s -> s.replaceAll(" \\(.*", "")).toList());
        assertEquals(List.of("routes.yml:1:1: error: missing `route:`, the root of the routing tree"),
                problems("owners: {}\n"));
        assertEquals(List.of("routes.yml: error: empty config: it needs at least `route:` with a receiver"),
                problems(""));
    }

    @Test
    void aRouteAfterACatchAllIsAWarning() {
        RoutingLoad load = RoutingConfig.parse("routes.yml", """
                route:
                  receiver: chat
                  routes:
                    - receiver: ticketing
                    - matchers: ['severity="page"']
                      receiver: paging
                """, RECEIVERS);
        assertTrue(load.ok());
        assertEquals(List.of("routes.yml:5:7: warning: this route is never reached: route.routes[0] above it "
                + "matches every alert and has no `continue: true`"),
                load.diagnostics().stream().map(Diagnostic::toString).toList());
    }

    @Test
    void inhibitRulesAddToTheBuiltInsUnlessTheyAreTurnedOff() {
        RoutingLoad load = RoutingConfig.parse("routes.yml", """
                route: {receiver: chat}
                builtin_inhibit_rules: false
                inhibit_rules:
                  - name: page-hides-ticket
                    source_matchers: ['severity="page"']
                    target_matchers: ['severity="ticket"']
                    equal: [node]
                """, RECEIVERS);
        assertTrue(load.ok(), load.diagnostics().toString());
        assertEquals(List.of("page-hides-ticket"),
                load.config().inhibitRules().stream().map(InhibitRule::name).toList());
        assertEquals(List.of("node"), load.config().inhibitRules().get(0).equal());
    }
}
