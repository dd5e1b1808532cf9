package io.gpuwatch.rules.dsl;

import io.gpuwatch.rules.scope.ScopeKind;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Which conditions can tell, once false, until when they stay false whatever samples arrive: a window's max
 * below a literal, its min above one, a fraction above one, a mean against one on the side its metric's unit
 * bounds (a percentage or ratio either way, a count or size from below), and a count of cards above one, alone, in a
 * conjunction (one such part is enough) or in a disjunction (every part must tell). The windows' answers are tested
 * in the gateway's {@code QuietWindowTest}, the engine's equivalence with evaluating every time in its
 * {@code SleepingRulesTest}.
 */
class QuietConditionsTest {
    private final SeriesCatalog catalog = new SeriesCatalog();

    private boolean quiets(ScopeKind scope, String condition) {
        try {
            return new DslCompiler(scope, catalog).condition(condition, new ArrayList<>()).quiets();
        } catch (DslException e) {
            throw new AssertionError(condition + ": " + e.getMessage(), e);
        }
    }

    private void check(ScopeKind scope, boolean expected, String... conditions) {
        for (String c : conditions) {
            assertEquals(expected, quiets(scope, c), c);
        }
    }

    @Test
    void extremesAgainstALiteralOnTheSideTheyCanOnlyLeave() {
        check(ScopeKind.CARD, true,
                "max(gpuUtil, 10m) < 10",
                "max(memUsedBytes, 30m) <= 10GiB",
                "10 > max(gpuUtil, 10m)",
                "min(pcieLinkWidth, 5m) >= 16",
                "min(tempC, 1m) > 40",
                "allocated && avg(gpuUtil, 30m) < 5 && max(gpuUtil, 10m) < 10",
                "max(gpuUtil, 90s) <= 70 || min(gpuUtil, 1m) > 60");
        // a new sample can lift a max or lower a min at once
        check(ScopeKind.CARD, false,
                "max(gpuUtil, 10m) > 10",
                "min(tempC, 1m) < 40",
                "max(gpuUtil, 10m) < tempC",
                "!(max(gpuUtil, 10m) < 10)",
                "max(gpuUtil, 1m) < 10 || avg(gpuUtil, 10m) == 5");
    }

    @Test
    void meansAgainstALiteralOnASideTheUnitBounds() {
        check(ScopeKind.CARD, true,
                "avg(gpuUtil, 30m) < 5",
                "avg(gpuUtil, 10m) > 80",
                "avg(smActiveOfBusy, 10m) <= 0.3",
                "allocated && avg(tensorActive, 10m) < 0.05 && avg(smActive, 10m) > 0.5",
                "avg(memUsedBytes, 5m) < 1GiB",
                "max(gpuUtil, 1m) < 10 || avg(gpuUtil, 30m) < 5");
        // nothing bounds a temperature, nor a size from above; an equality or a mean against another reading
        check(ScopeKind.CARD, false,
                "avg(tempC, 10m) < 40",
                "avg(memUsedBytes, 5m) > 70GiB",
                "avg(gpuUtil, 10m) == 50",
                "avg(gpuUtil, 10m) < tempC",
                "avg(gpuUtil, 10m) * 2 < 50");
        check(ScopeKind.NODE, true, "count(cards where avg(idle, 30m) >= 0.95) >= 2");
    }

    @Test
    void fractionsAndCountsOfCardsThatCanOnlyRiseOneSampleASlot() {
        check(ScopeKind.CARD, true,
                "fraction(gpuUtil > 90, 1m) > 0.75",
                "fraction(tempC > 80, 2m) >= 0.5 && gpuUtil > 30");
        check(ScopeKind.CARD, false, "fraction(gpuUtil > 90, 1m) < 0.25");
        check(ScopeKind.NODE, true,
                "count(cards where fraction(throttled('HW_SLOWDOWN'), 1m) > 0.75 && avg(gpuUtil, 1m) >= 10) > 0",
                "count(cards where max(gpuUtil, 10m) < 5) >= 2");
        check(ScopeKind.NODE, false,
                "count(cards where avg(tempC, 1m) >= 10) > 0",
                "count(cards where max(gpuUtil, 10m) < 5) < 2");
    }
}
