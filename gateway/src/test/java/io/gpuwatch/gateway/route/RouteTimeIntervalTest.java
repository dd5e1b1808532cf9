package io.gpuwatch.gateway.route;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RouteTimeIntervalTest {
    private static final RoutingConfig CONFIG = load("""
            time_intervals:
              - name: weekends
                time_intervals:
                  - weekdays: [saturday, sunday]
              - name: office-hours
                time_intervals:
                  - weekdays: ['monday:friday']
                    times: [{start_time: "09:00", end_time: "17:00"}]
                    location: Europe/Berlin
              - name: month-end
                time_intervals:
                  - days_of_month: ['-2:-1']
                    months: ['1:3']
                    years: ['2025']
              - name: night
                time_intervals:
                  - times: [{start_time: "22:00", end_time: "24:00"}, {start_time: "00:00", end_time: "06:00"}]
                    location: America/New_York
            route:
              receiver: chat
              routes:
                - matchers: ['severity="ticket"']
                  receiver: ticketing
                  mute_time_intervals: [weekends]
                  routes:
                    - matchers: ['layer="business"']
                      receiver: digest
                - matchers: ['severity="page"']
                  receiver: paging
                  active_time_intervals: [office-hours]
                  routes:
                    - matchers: ['layer="device"']
                      active_time_intervals: []
            """);

    private static RoutingConfig load(String yaml) {
        RoutingLoad load = RoutingConfig.parse("t.yml", yaml, Set.of("chat", "ticketing", "digest", "paging"));
        assertTrue(load.ok(), load.diagnostics().toString());
        return load.config();
    }

    private static TimeInterval interval(String name) {
        return CONFIG.timeIntervals().get(name);
    }

    @Test
    void weekendsAreSaturdayAndSundayInUtcByDefault() {
        TimeInterval w = interval("weekends");
        assertFalse(w.contains(Instant.parse("2025-03-07T23:59:59Z")), "Friday");
        assertTrue(w.contains(Instant.parse("2025-03-08T00:00:00Z")), "Saturday");
        assertTrue(w.contains(Instant.parse("2025-03-09T23:59:59Z")), "Sunday");
        assertFalse(w.contains(Instant.parse("2025-03-10T00:00:00Z")), "Monday");
    }

    @Test
    void officeHoursFollowBerlinWallClockAcrossDaylightSaving() {
        TimeInterval o = interval("office-hours");
        // winter, UTC+1: 09:00 Berlin is 08:00 UTC
        assertFalse(o.contains(Instant.parse("2025-03-28T07:59:00Z")));
        assertTrue(o.contains(Instant.parse("2025-03-28T08:00:00Z")));
        assertTrue(o.contains(Instant.parse("2025-03-28T15:59:00Z")));
        assertFalse(o.contains(Instant.parse("2025-03-28T16:00:00Z")), "the end is exclusive");
        // summer (from 30 March 2025), UTC+2: 09:00 Berlin is 07:00 UTC
        assertTrue(o.contains(Instant.parse("2025-03-31T07:00:00Z")));
        assertFalse(o.contains(Instant.parse("2025-03-31T15:00:00Z")), "17:00 in Berlin");
        // back to winter on 26 October
        assertFalse(o.contains(Instant.parse("2025-10-27T07:30:00Z")), "08:30 in Berlin");
        assertTrue(o.contains(Instant.parse("2025-10-27T08:30:00Z")));
        // the weekday is Berlin's too: Friday 23:30 UTC is already Saturday in Berlin
        assertFalse(o.contains(Instant.parse("2025-03-29T08:30:00Z")), "Saturday");
    }

    @Test
    void periodsAcrossMidnightAreTwoRangesInTheirZone() {
        TimeInterval n = interval("night");
        assertTrue(n.contains(Instant.parse("2025-07-01T03:00:00Z")), "23:00 in New York (EDT)");
        assertTrue(n.contains(Instant.parse("2025-07-01T09:59:00Z")), "05:59");
        assertFalse(n.contains(Instant.parse("2025-07-01T10:00:00Z")), "06:00");
        assertFalse(n.contains(Instant.parse("2025-01-15T02:30:00Z")), "21:30 in New York (EST)");
        assertTrue(n.contains(Instant.parse("2025-01-15T03:00:00Z")), "22:00 EST");
    }

    @Test
    void negativeDaysCountFromTheEndOfEachMonth() {
        TimeInterval m = interval("month-end");
        assertTrue(m.contains(Instant.parse("2025-02-27T12:00:00Z")), "February has 28 days in 2025");
        assertFalse(m.contains(Instant.parse("2025-02-26T12:00:00Z")));
        assertTrue(m.contains(Instant.parse("2025-03-30T12:00:00Z")));
        assertFalse(m.contains(Instant.parse("2025-04-30T12:00:00Z")), "April is not in months");
        assertFalse(m.contains(Instant.parse("2024-03-31T12:00:00Z")), "2024 is not in years");
    }

    @Test
    void routesAreMutedByMuteIntervalsAndOutsideActiveOnesAndChildrenInherit() {
        Route ticket = CONFIG.routes(Map.of("severity", "ticket")).get(0);
        Route business = CONFIG.routes(Map.of("severity", "ticket", "layer", "business")).get(0);
        Instant saturday = Instant.parse("2025-03-08T12:00:00Z");
        Instant monday = Instant.parse("2025-03-10T12:00:00Z");
        assertTrue(ticket.mutedAt(saturday));
        assertFalse(ticket.mutedAt(monday));
        assertTrue(business.mutedAt(saturday), "inherited from the parent");

        Route page = CONFIG.routes(Map.of("severity", "page")).get(0);
        assertFalse(page.mutedAt(monday), "13:00 in Berlin");
        assertTrue(page.mutedAt(Instant.parse("2025-03-10T20:00:00Z")), "21:00 in Berlin");
        Route device = CONFIG.routes(Map.of("severity", "page", "layer", "device")).get(0);
        assertFalse(device.mutedAt(Instant.parse("2025-03-10T20:00:00Z")), "`[]` clears the inherited list");
        assertFalse(CONFIG.routes(Map.of()).get(0).mutedAt(saturday));
    }
}
