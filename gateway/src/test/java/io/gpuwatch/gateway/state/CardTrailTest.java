package io.gpuwatch.gateway.state;

import io.gpuwatch.protocol.Metric;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A card's hour for the charts: one value a slot, gaps where no reading came, nothing older than the hour. */
class CardTrailTest {
    private static final long T0 = 1_764_700_000_000L;

    private static double[] reading(double util) {
        double[] v = new double[Metric.count()];
        Arrays.fill(v, Double.NaN);
        v[Metric.GPU_UTIL.ordinal()] = util;
        return v;
    }

    @Test
    void theLatestReadingOfASlotStaysAndALateOneIsDropped() {
        CardTrail trail = new CardTrail();
        trail.add(T0, reading(10));
        trail.add(T0 + 5_000, reading(20));
        trail.add(T0 + 20_000, reading(30));
        trail.add(T0 + 1_000, reading(99));
        double[] s = trail.series(0, T0 + 20_000);
        assertEquals(30, s[CardTrail.SLOTS - 1]);
        assertEquals(20, s[CardTrail.SLOTS - 2], "the later of two readings in one slot");
        assertTrue(Double.isNaN(s[CardTrail.SLOTS - 3]));
        assertEquals(T0 + 20_000 - (CardTrail.SLOTS - 1) * CardTrail.SLOT_MS, CardTrail.from(T0 + 20_000));
    }

    @Test
    void anHourLaterTheOldReadingsAreGoneEvenWhereTheRingWrapped() {
        CardTrail trail = new CardTrail();
        trail.add(T0, reading(10));
        long later = T0 + CardTrail.SLOTS * CardTrail.SLOT_MS;
        // nothing in between: the ring slot of T0 is written again, and every other one must read as empty
        trail.add(later, reading(50));
        double[] s = trail.series(0, later);
        assertEquals(50, s[CardTrail.SLOTS - 1]);
        assertEquals(CardTrail.SLOTS - 1, Arrays.stream(s).filter(Double::isNaN).count());
        // and read two hours on, nothing is left
        assertTrue(Arrays.stream(trail.series(0, later + 2 * 3600_000L)).allMatch(Double::isNaN));
    }

    @Test
    void eachMetricReadsBackItsOwnValuesSlotBySlot() {
        CardTrail trail = new CardTrail();
        for (int k = 0; k < 5; k++) {
            double[] v = new double[Metric.count()];
            Arrays.fill(v, Double.NaN);
            for (int m = 0; m < CardTrail.METRICS.size(); m++) {
                v[CardTrail.METRICS.get(m).ordinal()] = 100 * m + k;
            }
            trail.add(T0 + k * CardTrail.SLOT_MS, v);
        }
        long now = T0 + 4 * CardTrail.SLOT_MS;
        for (int m = 0; m < CardTrail.METRICS.size(); m++) {
            double[] s = trail.series(m, now);
            for (int k = 0; k < 5; k++) {
                assertEquals(100 * m + k, s[CardTrail.SLOTS - 5 + k], CardTrail.METRICS.get(m) + " slot " + k);
            }
            assertTrue(Double.isNaN(s[CardTrail.SLOTS - 6]), "nothing before the first reading");
        }
    }
}
