package io.gpuwatch.probe.app;

import org.junit.jupiter.api.Test;

import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QuantilesTest {
    private static final double INF = Double.POSITIVE_INFINITY;

    private static TreeMap<Double, Double> buckets(double... boundAndCount) {
        TreeMap<Double, Double> m = new TreeMap<>();
        for (int i = 0; i < boundAndCount.length; i += 2) {
            m.put(boundAndCount[i], boundAndCount[i + 1]);
        }
        return m;
    }

    @Test
    void interpolatesLinearlyInsideTheBucketHoldingTheRank() {
        TreeMap<Double, Double> b = buckets(0.1, 10, 0.5, 60, 2, 98, 5, 100, INF, 100);
        assertEquals(0.42, Quantiles.of(0.5, b), 1e-12);   // 0.1 + 0.4 * (50 - 10) / 50
        assertEquals(3.5, Quantiles.of(0.99, b), 1e-12);   // 2 + 3 * (99 - 98) / 2
    }

    @Test
    void theFirstBucketStartsAtZero() {
        assertEquals(0.05, Quantiles.of(0.5, buckets(0.1, 10, INF, 10)), 1e-12);
    }

    @Test
    void aRankInTheInfBucketGivesTheHighestFiniteBound() {
        assertEquals(5, Quantiles.of(0.99, buckets(1, 10, 5, 50, INF, 100)));
    }

    @Test
    void aFirstBoundAtOrBelowZeroIsReturnedAsIs() {
        assertEquals(-1, Quantiles.of(0.1, buckets(-1, 5, 1, 10, INF, 10)));
    }

    @Test
    void countsThatDipAreMadeMonotonic() {
        // le=0.5 reads 40, below the 50 of le=0.1: taken as 50, so rank 60 lies 10/50 into (0.5, 1]
        assertEquals(0.6, Quantiles.of(0.6, buckets(0.1, 50, 0.5, 40, 1, 100, INF, 100)), 1e-12);
    }

    @Test
    void noInfBucketNoObservationsOrASingleBucketGiveNothing() {
        assertTrue(Double.isNaN(Quantiles.of(0.5, buckets(0.1, 1, 0.5, 2))));
        assertTrue(Double.isNaN(Quantiles.of(0.5, buckets(0.1, 0, INF, 0))));
        assertTrue(Double.isNaN(Quantiles.of(0.5, buckets(INF, 5))));
    }

    @Test
    void boundsParseLikeLeLabels() {
        assertEquals(INF, Quantiles.bound("+Inf"));
        assertEquals(0.005, Quantiles.bound("0.005"));
        assertEquals(2560, Quantiles.bound("2560.0"));
        assertTrue(Double.isNaN(Quantiles.bound("fast")));
        assertTrue(Double.isNaN(Quantiles.bound(null)));
    }
}
