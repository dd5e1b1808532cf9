package io.gpuwatch.gateway.ingest;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The decision-time histogram: a time on a bucket's bound counts in that bucket, beyond the last in the overflow. */
class DecisionLatencyTest {
    @Test
    void bucketsAreCumulativeAndBoundsInclusive() {
        DecisionLatency h = new DecisionLatency();
        h.record(1_000_000);        // exactly 1 ms
        h.record(1_000_001);        // just over
        h.record(60_000_000_000L);  // a minute: beyond the last bound

        assertEquals(1, h.atMost(0), "1 ms is within the 1 ms bucket");
        assertEquals(2, h.atMost(1), "1 ms and a nanosecond is within 2.5 ms");
        assertEquals(2, h.atMost(DecisionLatency.BOUNDS.length - 1), "the minute is in no bounded bucket");
        assertEquals(3, h.count());
        assertEquals(60.002000001, h.sumSeconds(), 1e-9);
    }
}
