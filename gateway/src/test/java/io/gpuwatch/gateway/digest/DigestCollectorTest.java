package io.gpuwatch.gateway.digest;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.notify.render.Report;
import io.gpuwatch.rules.eval.AlertState;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** A digest of 08:00–09:00 UTC over a ledger whose history is known alert by alert. */
class DigestCollectorTest {
    private static final long H8 = Instant.parse("2026-12-03T08:00:00Z").toEpochMilli();
    private static final long MIN = 60_000;
    private static final Instant FROM = Instant.ofEpochMilli(H8);
    private static final Instant TO = Instant.ofEpochMilli(H8 + 60 * MIN);

    private static Alert alert(String rule, String severity, String node, long fired, long resolved) {
        return new Alert(rule + "/" + node + "/" + fired, rule, severity,
                Map.of("alertname", rule, "severity", severity, "node", node), Map.of("summary", rule + " on " + node),
                fired, fired, resolved, resolved == 0 ? AlertState.FIRING : AlertState.RESOLVED);
    }

    // firing at 09:00: a page since 08:10, a ticket since yesterday, an inspection since 08:20
    // active from 08:08, firing once its `for` held at 08:10: the digest says since when it was active
    private static final Alert XID = new Alert("xid/n1", "xid-fallen-off-bus", "page",
            Map.of("alertname", "xid-fallen-off-bus", "severity", "page", "node", "n1"),
            Map.of("summary", "xid-fallen-off-bus on n1"), H8 + 8 * MIN, H8 + 10 * MIN, 0, AlertState.FIRING);
    private static final Alert HOT = alert("thermal-throttling", "ticket", "n2", H8 - 20 * 60 * MIN, 0);
    private static final Alert IDLE = alert("idle-but-allocated", "inspect", "n3", H8 + 20 * MIN, 0);
    // ended: a flapping rule three times in the period, one that ended before it, one that ended in it
    private static final List<Alert> ENDED = List.of(
            alert("node-xid-burst", "page", "n4", H8 + 40 * MIN, H8 + 50 * MIN),
            alert("node-xid-burst", "page", "n4", H8 + 20 * MIN, H8 + 30 * MIN),
            alert("node-xid-burst", "page", "n4", H8 + 1 * MIN, H8 + 5 * MIN),
            alert("memory-climb", "page", "n5", H8 - 30 * MIN, H8 + 15 * MIN),
            alert("node-silent", "page", "n6", H8 - 90 * MIN, H8 - 70 * MIN));

    private static DigestContent content() {
        return DigestCollector.collect(List.of(HOT, XID, IDLE), ENDED, FROM, TO, ZoneOffset.UTC, 4, List.of(), false);
    }

    @Test
    void firingIsBySeverityPageFirstAndInspectionsApart() {
        DigestContent c = content();
        assertEquals(List.of("page", "ticket"), List.copyOf(c.firingBySeverity().keySet()));
        assertEquals(List.of(XID), c.firingBySeverity().get("page"));
        assertEquals(List.of(HOT), c.firingBySeverity().get("ticket"));
        assertEquals(List.of(IDLE), c.inspections());
        assertEquals(2, c.firing());
    }

    @Test
    void resolvedAreThoseThatEndedInThePeriodInOrder() {
        assertEquals(List.of(ENDED.get(2), ENDED.get(3), ENDED.get(1), ENDED.get(0)), content().resolved());
    }

    @Test
    void noisiestRulesCountStartsAndEndsInThePeriod() {
        assertEquals(List.of(new DigestContent.RuleCount("node-xid-burst", 6),
                new DigestContent.RuleCount("idle-but-allocated", 1),
                new DigestContent.RuleCount("memory-climb", 1),
                new DigestContent.RuleCount("xid-fallen-off-bus", 1)), content().noisy());
    }

    @Test
    void firingSeriesCountsAlertsFiringInEachQuarterHour() {
        // 08:00-15 HOT, memory, burst#3, XID; 15-30 HOT, XID, IDLE, burst#2 (memory ended at 08:15 exactly);
        // 30-45 HOT, XID, IDLE, burst#1; 45-60 HOT, XID, IDLE, burst#1
        assertArrayEquals(new double[] {4, 4, 4, 4}, content().firingSeries());
        // 06:00-07 node-silent; 07-08 memory-climb; 08-09 memory-climb and burst#3
        assertArrayEquals(new double[] {1, 1, 2}, DigestCollector.series(List.of(ENDED.get(4), ENDED.get(3),
                ENDED.get(2)), H8 - 120 * MIN, H8 + 60 * MIN, 3));
    }

    @Test
    void textNamesEachAlertWithItsScopeAndTimesInTheChannelsZone() {
        DigestContent c = DigestCollector.collect(List.of(HOT, XID, IDLE), ENDED, FROM, TO,
                ZoneId.of("Asia/Shanghai"), 4, List.of(new BusinessMeter.Figures("search", 3.24, 10, 20, 1e6)),
                true);
        Report r = DigestText.render(c, null, "USD");
        assertEquals("gpuwatch digest: 2 firing, 4 resolved, 1 to inspect", r.title());
        assertEquals("2026-12-03 16:00 – 17:00 Asia/Shanghai", r.period());
        assertEquals("firing alerts ████ (max 4)", r.trend());
        assertNull(r.chartUrl());
        List<Report.Section> s = r.sections();
        assertEquals("Firing (page 1, ticket 1)", s.get(0).heading());
        assertEquals(List.of("[page] xid-fallen-off-bus node=n1 since 16:08 — xid-fallen-off-bus on n1",
                "[ticket] thermal-throttling node=n2 since 12-02 20:00 — thermal-throttling on n2"), s.get(0).lines());
        assertEquals("Resolved in the period (4)", s.get(1).heading());
        assertEquals("[page] memory-climb node=n5 resolved 16:15 after 45m — memory-climb on n5",
                s.get(1).lines().get(1));
        assertEquals("node-xid-burst: 6 changes", s.get(2).lines().get(0));
        assertEquals(List.of("[inspect] idle-but-allocated node=n3 since 16:20 — idle-but-allocated on n3"),
                s.get(3).lines());
        assertEquals(List.of("search: 3.24 idle of 10.0 card-hours, 20.0000 USD per 1M tokens"), s.get(4).lines());
    }

    @Test
    void aQuietPeriodSaysNoneAndHasNoBusinessSection() {
        DigestContent c = DigestCollector.collect(List.of(), List.of(), FROM, TO, ZoneOffset.UTC, 4, List.of(), false);
        Report r = DigestText.render(c, null, "");
        assertEquals("firing alerts ▁▁▁▁ (max 0)", r.trend());
        assertEquals(4, r.sections().size());
        assertEquals(List.of("none"), r.sections().get(0).shown());
    }
}
