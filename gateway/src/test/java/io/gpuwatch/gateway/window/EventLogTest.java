package io.gpuwatch.gateway.window;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class EventLogTest {
    private static final long HOUR = 3_600_000;

    @Test
    void countsByKindCodeAndWindow() {
        EventLog log = new EventLog(HOUR);
        log.add(1_000, "xid", 79);
        log.add(2_000, "xid", 13);
        log.add(3_000, "xid", 79);
        log.add(4_000, "throttle", 2);
        log.at(4_000);
        assertEquals(2, log.count("xid", 79, HOUR));
        assertEquals(3, log.count("xid", -1, HOUR));
        assertEquals(4, log.count(null, -1, HOUR));
        assertEquals(1, log.count(null, 2, HOUR));
        assertEquals(0, log.count("ecc", -1, HOUR));
        // The window is (now - w, now]: the event at 1 s lies on the open edge of a 3 s window.
        assertEquals(1, log.count("xid", 79, 3_000));
        assertEquals(0, log.count("xid", 79, 1_000));
        assertEquals(0, log.count("xid", 79, 0));
        // Evaluating in the past leaves out later events.
        log.at(2_500);
        assertEquals(2, log.count("xid", -1, HOUR));
    }

    @Test
    void withoutAnEvaluationTimeTheWindowEndsAtTheNewestEvent() {
        EventLog log = new EventLog(HOUR);
        assertEquals(0, log.count(null, -1, HOUR));
        assertEquals(List.of(), log.distinct(null, -1, HOUR));
        log.add(10_000, "xid", 79);
        log.add(60_000, "xid", 48);
        assertEquals(1, log.count("xid", -1, 30_000));
        assertEquals(List.of("48", "79"), log.distinct("xid", -1, 60_000));
    }

    @Test
    void distinctCodesAscendNumericallyAndDistinctKindsAlphabetically() {
        EventLog log = new EventLog(HOUR);
        log.add(1_000, "xid", 79);
        log.add(2_000, "xid", 13);
        log.add(3_000, "xid", 100);
        log.add(4_000, "xid", 13);
        log.add(5_000, "throttle", 13);
        log.add(6_000, "ecc", 1);
        log.at(6_000);
        assertEquals(List.of("13", "79", "100"), log.distinct("xid", -1, HOUR));
        assertEquals(List.of("13", "100"), log.distinct("xid", -1, 5_000));
        assertEquals(List.of("13"), log.distinct("xid", 13, HOUR));
        assertEquals(List.of("ecc", "throttle", "xid"), log.distinct(null, -1, HOUR));
        assertEquals(List.of("throttle", "xid"), log.distinct(null, 13, HOUR));
        assertEquals(List.of(), log.distinct("nvlink", -1, HOUR));
    }

    @Test
    void fullLogDropsOldestFirstAndCountsIt() {
        EventLog log = new EventLog(4, HOUR);
        for (int i = 0; i < 6; i++) {
            log.add(1_000 * i, "xid", 10 + i);
        }
        assertEquals(4, log.size());
        assertEquals(2, log.dropped());
        assertEquals(List.of("12", "13", "14", "15"), log.at(5_000).distinct("xid", -1, HOUR));
    }

    @Test
    void eventsExpireBehindTheHorizon() {
        EventLog log = new EventLog(HOUR);
        log.add(0, "xid", 79);
        log.add(HOUR / 2, "xid", 48);
        log.add(HOUR + 1, "xid", 13);
        assertEquals(2, log.size());
        log.at(HOUR + 1);
        assertEquals(List.of("13", "48"), log.distinct("xid", -1, 2 * HOUR));
        assertEquals(0, log.dropped(), "expiry is not a drop");
        // An event arriving already older than the horizon is not kept.
        log.add(0, "xid", 31);
        assertEquals(0, log.count("xid", 31, 2 * HOUR));
    }

    @Test
    void manyDistinctKindsDoNotGrowMemoryPastTheCapacity() {
        EventLog log = new EventLog(16, HOUR);
        for (int i = 0; i < 16; i++) {
            log.add(i, String.format("kind-%05d", i), i);
        }
        long full = log.retainedBytes();
        for (int i = 16; i < 10_000; i++) {
            log.add(i, String.format("kind-%05d", i), i);
        }
        assertEquals(full, log.retainedBytes());
        List<String> kinds = log.at(9_999).distinct(null, -1, HOUR);
        assertEquals(16, kinds.size());
        assertEquals("kind-09984", kinds.get(0));
        assertEquals("kind-09999", kinds.get(15));
        assertEquals(1, log.count("kind-09990", -1, HOUR));
        assertEquals(0, log.count("kind-00001", -1, HOUR));
    }

    @Test
    void invalidSizesAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> new EventLog(0, HOUR));
        assertThrows(IllegalArgumentException.class, () -> new EventLog(16, 0));
    }
}
