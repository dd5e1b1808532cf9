package io.gpuwatch.probe.app;

import io.gpuwatch.protocol.Metric;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WindowTest {
    private static double[] noTotals() {
        double[] t = new double[Metric.count()];
        Arrays.fill(t, Double.NaN);
        return t;
    }

    private static Window window(String prev, String cur) {
        return new Window(prev == null ? null : ExpositionParser.parse(prev), ExpositionParser.parse(cur), 10,
                labels -> true, Set.of(), noTotals());
    }

    @Test
    void theFirstScrapeHasGaugesAndTotalsButNoRatesOrQuantiles() {
        Window w = window(null, "g 3\nc_total 100\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 1\n");
        assertEquals(3, w.gauge("g"));
        assertTrue(Double.isNaN(w.rate("c_total")));
        assertTrue(Double.isNaN(w.quantile(0.5, "h")));
        assertEquals(100, w.cumulative(Metric.FAILED_TOTAL, "c_total"));
    }

    @Test
    void aCounterThatFellWasResetAndCountsFromZero() {
        assertEquals(4, window("c_total 100\n", "c_total 40\n").rate("c_total"));
    }

    @Test
    void aChangedCreatedTimeIsAResetEvenWhenTheValueRose() {
        Window w = window("c_total 100\nc_created 1.7e+09\n", "c_total 130\nc_created 1.70000001e+09\n");
        assertEquals(130, w.increase("c_total"));
        assertEquals(30, window("c_total 100\nc_created 1.7e+09\n", "c_total 130\nc_created 1.7e+09\n")
                .increase("c_total"));
    }

    @Test
    void aSeriesThatAppearedCountsWhole() {
        Window w = window("f{err=\"a\"} 5\n", "f{err=\"a\"} 6\nf{err=\"b\"} 2\n");
        assertEquals(3, w.increase("f"));
    }

    @Test
    void cumulativeFieldsAddIncreasesAcrossResets() {
        double[] totals = noTotals();
        totals[Metric.FAILED_TOTAL.ordinal()] = 12;
        Window w = new Window(ExpositionParser.parse("f 12\n"), ExpositionParser.parse("f 3\n"), 10, l -> true,
                Set.of(), totals);
        assertEquals(15, w.cumulative(Metric.FAILED_TOTAL, "f"));
        assertEquals(15, w.totals()[Metric.FAILED_TOTAL.ordinal()]);
    }

    @Test
    void aMissingCounterLeavesItsTotalForLater() {
        double[] totals = noTotals();
        totals[Metric.FAILED_TOTAL.ordinal()] = 12;
        Window w = new Window(ExpositionParser.parse("f 12\n"), ExpositionParser.parse("g 1\n"), 10, l -> true,
                Set.of(), totals);
        assertTrue(Double.isNaN(w.cumulative(Metric.FAILED_TOTAL, "f")));
        assertEquals(12, w.totals()[Metric.FAILED_TOTAL.ordinal()]);
    }

    @Test
    void histogramQuantilesUseTheWindowsBucketIncreasesSummedOverSeries() {
        String prev = "# TYPE h histogram\n"
                + "h_bucket{m=\"a\",le=\"1\"} 100\nh_bucket{m=\"a\",le=\"2\"} 200\nh_bucket{m=\"a\",le=\"+Inf\"} 200\n"
                + "h_bucket{m=\"b\",le=\"1\"} 7\nh_bucket{m=\"b\",le=\"2\"} 7\nh_bucket{m=\"b\",le=\"+Inf\"} 7\n";
        String cur = "# TYPE h histogram\n"
                + "h_bucket{m=\"a\",le=\"1\"} 110\nh_bucket{m=\"a\",le=\"2\"} 240\nh_bucket{m=\"a\",le=\"+Inf\"} 240\n"
                + "h_bucket{m=\"b\",le=\"1\"} 17\nh_bucket{m=\"b\",le=\"2\"} 17\nh_bucket{m=\"b\",le=\"+Inf\"} 17\n";
        // increases: le=1 → 10 + 10, le=2 → 40 + 10; the median (rank 25) lies in (1, 2]
        assertEquals(1 + 5.0 / 30, window(prev, cur).quantile(0.5, "h"), 1e-12);
        Window onlyA = new Window(ExpositionParser.parse(prev), ExpositionParser.parse(cur), 10,
                l -> !"b".equals(l.get("m")), Set.of(), noTotals());
        assertEquals(1 + 10.0 / 30, onlyA.quantile(0.5, "h"), 1e-12);
    }

    @Test
    void aHistogramWhoseCountFellWasReset() {
        String prev = "# TYPE h histogram\nh_bucket{le=\"1\"} 50\nh_bucket{le=\"+Inf\"} 100\nh_count 100\n";
        String cur = "# TYPE h histogram\nh_bucket{le=\"1\"} 30\nh_bucket{le=\"+Inf\"} 60\nh_count 60\n";
        // read as increases the buckets would have fallen; read as a restart they are this window's observations
        assertEquals(0.5, window(prev, cur).quantile(0.25, "h"), 1e-12);
        assertEquals(1, window(prev, cur).quantile(0.99, "h"));
    }

    @Test
    void aWindowWithoutObservationsHasNoQuantile() {
        String h = "# TYPE h histogram\nh_bucket{le=\"1\"} 5\nh_bucket{le=\"+Inf\"} 5\n";
        assertTrue(Double.isNaN(window(h, h).quantile(0.5, "h")));
    }

    @Test
    void replicaRanksCountOnceAndOtherSeriesAdd() {
        String prev = "c_total{dp=\"0\",tp=\"0\"} 100\nc_total{dp=\"0\",tp=\"1\"} 100\nc_total{dp=\"1\",tp=\"2\"} 50\n";
        String cur = "c_total{dp=\"0\",tp=\"0\"} 130\nc_total{dp=\"0\",tp=\"1\"} 129\nc_total{dp=\"1\",tp=\"2\"} 60\n"
                + "g{dp=\"0\",tp=\"0\"} 4\ng{dp=\"0\",tp=\"1\"} 4\ng{dp=\"1\",tp=\"2\"} 3\n";
        Window w = new Window(ExpositionParser.parse(prev), ExpositionParser.parse(cur), 10, l -> true,
                Set.of("tp"), noTotals());
        // dp 0: ranks tp 0 and 1 report the same requests, the larger increase (30) once; dp 1 adds 10
        assertEquals(40, w.increase("c_total"));
        assertEquals(7, w.gauge("g"));
        assertEquals(69, window(prev, cur).increase("c_total"));   // without replica labels every rank adds
    }

    @Test
    void gaugesSumOrTakeTheMaxOverFilteredSeriesIgnoringNaN() {
        Window w = new Window(null, ExpositionParser.parse("g{m=\"a\"} 2\ng{m=\"b\"} 5\ng{m=\"c\"} NaN\ng 1\n"), 10,
                l -> !"b".equals(l.get("m")), Set.of(), noTotals());
        assertEquals(3, w.gauge("g"));
        assertEquals(2, w.gaugeMax("g"));
        assertTrue(Double.isNaN(w.gauge("absent")));
    }

    @Test
    void summaryQuantilesAreTakenAsTheServerGivesThem() {
        Window w = window(null, "s{m=\"a\",quantile=\"0.99\"} 7\ns{m=\"b\",quantile=\"0.99\"} 9\n"
                + "s{m=\"b\",quantile=\"0.5\"} 99\n");
        assertEquals(9, w.summaryMax("s", 0.99));
        assertTrue(Double.isNaN(w.summaryMax("s", 0.9)));
    }

    @Test
    void mentionsLooksAtFilteredSeriesByPrefix() {
        Window w = window(null, "vllm:x{model_name=\"a\"} 1\nother 1\n");
        assertFalse(w.mentions("vllm:", l -> "b".equals(l.get("model_name"))));
        assertTrue(w.mentions("vllm:", l -> "a".equals(l.get("model_name"))));
        assertTrue(w.mentions("oth", l -> true));
        assertFalse(w.mentions("sglang:", l -> true));
    }
}
