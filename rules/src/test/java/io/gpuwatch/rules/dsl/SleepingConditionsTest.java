package io.gpuwatch.rules.dsl;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.scope.Reads;
import io.gpuwatch.rules.scope.ScopeKind;
import io.gpuwatch.rules.scope.Series;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which conditions may sleep while false (time alone cannot make them true) and what they read; the engine's
 * equivalence with evaluating every time is tested in the gateway's {@code SleepingRulesTest}.
 */
class SleepingConditionsTest {
    private final SeriesCatalog catalog = new SeriesCatalog();

    private Reads reads(ScopeKind scope, String condition) {
        try {
            return new DslCompiler(scope, catalog).condition(condition, new ArrayList<>()).sleepsOn();
        } catch (DslException e) {
            throw new AssertionError(condition + ": " + e.getMessage(), e);
        }
    }

    private void sleeps(ScopeKind scope, String... conditions) {
        for (String c : conditions) {
            assertNotNull(reads(scope, c), c);
        }
    }

    private void awake(ScopeKind scope, String... conditions) {
        for (String c : conditions) {
            assertNull(reads(scope, c), c);
        }
    }

    @Test
    void countersFlagsEventsAndExtremesThatCanOnlyFallSleep() {
        sleeps(ScopeKind.CARD,
                "count(events('xid', 109), 1h) > 0",
                "count(events('oom'), 30m) >= 3",
                "remappedRowsFailed == 1",
                "remappedRowsPending == 1 || retiredPagesPending == 1 || count(events('xid', 63), 10m) > 0",
                "increase(eccCorrectedVolatile, 1h) >= 100 || count(events('xid', 92), 1h) > 0",
                "rate(pcieReplays, 5m) * 60 > 10",
                "increase(nvlinkErrors, 10m) / 2 >= 3",
                "pcieLinkWidth < max(pcieLinkWidth, 1h)",
                "min(pcieLinkWidth, 5m) < pcieLinkWidth",
                "max(tempC, 2m) - 5 > tempC",
                "pcieLinkWidth * -1 > -16",
                "0 < count(events('xid'), 1m)",
                "false",
                "remappedRowsFailed == 1 && count(events('xid', 64), 10m) > 0");
        sleeps(ScopeKind.NODE,
                "count(events('xid', 79), 10m) > 0",
                "count(cards where nvlinkLinksDown > 0 || count(events('xid', 74), 10m) > 0) > 0",
                "count(cards where increase(eccUncorrectedVolatile, 10m) > 0) > 0",
                "lostCards > 0 || count(events('xid', 79), 10m) > 0");
    }

    @Test
    void conditionsTimeCanMakeTrueStayAwake() {
        awake(ScopeKind.CARD,
                // a count that falls reaches zero, a latest value that goes stale is not 1
                "count(events('xid'), 2m) == 0",
                "remappedRowsFailed != 1",
                "!(remappedRowsFailed == 1)",
                "count(events('xid'), 1m) < 3",
                "increase(eccCorrectedVolatile, 1h) < 5",
                "min(tempC, 1m) > 80",
                "max(tempC, 1m) < 80",
                // averages and trends move towards the latest value as the window slides
                "avg(gpuUtil, 1m) > 80",
                "slope(memUsedBytes, 5m) > 0",
                "delta(memUsedBytes, 5m) > 512MiB",
                "count(gpuUtil, 1m) > 10",
                "fraction(throttled('HW_SLOWDOWN'), 1m) > 0.5",
                // what the card's attribution, its business or its peers say is not in its change mark
                "allocated",
                "allocated && remappedRowsFailed == 1",
                "powerW > baseline(powerW).upper(4)",
                "peers(gpuUtil, 2m).ratio < 0.75",
                "silentFor > 30s",
                "consecutive(remappedRowsFailed == 1, 3)",
                "remappedRowsFailed * tempC > 1");
        awake(ScopeKind.NODE,
                // a node's own series pool its cards'
                "max(gpuUtil, 1h) > 5",
                "count(cards where avg(gpuUtil, 1m) >= 10) > 0",
                "count(cards where count(events('xid'), 2m) > 0) < 2");
    }

    @Test
    void aSleepingConditionNamesTheSeriesAndEventsItReads() {
        Reads r = reads(ScopeKind.CARD, "remappedRowsPending == 1 || count(events('xid', 63), 10m) > 0");
        assertArrayEquals(new int[]{catalog.raw(Metric.REMAPPED_ROWS_PENDING, 0)}, r.series());
        assertTrue(r.events());
        Reads node = reads(ScopeKind.NODE, "count(cards where increase(eccUncorrectedVolatile, 10m) > 0) > 0");
        assertArrayEquals(new int[]{catalog.raw(Metric.ECC_UNCORRECTED_VOLATILE, 600_000)}, node.series());
        assertFalse(node.events());
        Reads both = reads(ScopeKind.CARD, "pcieLinkWidth < max(pcieLinkWidth, 1h) || remappedRowsFailed == 1");
        assertArrayEquals(List.of(catalog.raw(Metric.PCIE_LINK_WIDTH, 0), catalog.raw(Metric.REMAPPED_ROWS_FAILED, 0))
                .stream().sorted().mapToInt(Integer::intValue).toArray(), both.series());
    }

    @Test
    void aSleepingConditionNamesTheShortestWindowItReadsASeriesOver() {
        // a latest reading goes stale after the lookback; a maximum forgets a sample after its window
        assertEquals(Series.LOOKBACK_MS, reads(ScopeKind.CARD, "remappedRowsFailed == 1").freshMs());
        assertEquals(60_000, reads(ScopeKind.CARD, "pcieLinkWidth < max(pcieLinkWidth, 1m)").freshMs());
        assertEquals(30_000, reads(ScopeKind.NODE,
                "count(cards where max(tempC, 30s) > 85) > 0 && count(events('xid'), 10s) > 0").freshMs());
        assertEquals(Long.MAX_VALUE, reads(ScopeKind.CARD, "count(events('xid', 79), 10m) > 0").freshMs());
    }
}
