package io.gpuwatch.notify.render;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SparklineTest {
    @Test
    void barsScaleFromZeroToTheLargestValue() {
        assertEquals("▁▂▃▅█", Sparkline.of(new double[] {0, 1, 2, 4, 8}));
    }

    @Test
    void aQuietPeriodIsFlatAndOneAlertStillShows() {
        assertEquals("▁▁▁▁", Sparkline.of(new double[] {0, 0, 0, 0}));
        assertEquals("▁▁█▁", Sparkline.of(new double[] {0, 0, 1, 0}));
        assertEquals("▂▂▂█", Sparkline.of(new double[] {1, 1, 1, 100}));
    }

    @Test
    void missingOrNegativeValuesCountAsZero() {
        assertEquals("▁█▁", Sparkline.of(new double[] {Double.NaN, 3, -2}));
        assertEquals("", Sparkline.of(new double[0]));
    }
}
