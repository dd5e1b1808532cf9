package io.gpuwatch.offline.ruletest;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SeriesNotationTest {
    private static final double NA = Double.NaN;

    private static double[] values(String text) throws SeriesNotation.NotationException {
        return SeriesNotation.parse(text, false).values();
    }

    private static SeriesNotation.NotationException error(String text, boolean reasons) {
        return assertThrows(SeriesNotation.NotationException.class, () -> SeriesNotation.parse(text, reasons));
    }

    @Test
    void startStepCountGivesCountPlusOneValues() throws Exception {
        assertArrayEquals(new double[]{0, 10, 20, 30}, values("0+10x3"));
        assertEquals(101, values("0+10x100").length);
        assertEquals(1000, values("0+10x100")[100]);
    }

    @Test
    void negativeStepsAndNegativeStartsCountDown() throws Exception {
        assertArrayEquals(new double[]{100, 95, 90, 85}, values("100-5x3"));
        assertArrayEquals(new double[]{-5, -4, -3}, values("-5+1x2"));
    }

    @Test
    void aValueWithACountRepeats() throws Exception {
        assertArrayEquals(new double[]{1, 1, 1, 1, 1, 1}, values("1x5"));
        assertArrayEquals(new double[]{0, 0}, values("0x1"), "0x1 is zero repeated, not hexadecimal");
    }

    @Test
    void plainValuesAndGapsReadOnePerInterval() throws Exception {
        assertArrayEquals(new double[]{80, 80, 95, NA, 97}, values("80 80 95 _ 97"));
        assertArrayEquals(new double[]{1, NA, NA, NA, 2}, values("1 _x3 2"), "_x3 is three gaps, not four");
        assertArrayEquals(new double[]{0.5, 1e3, -2.25}, values("0.5 1e3 -2.25"));
    }

    @Test
    void blanksAndLineBreaksSeparateTokens() throws Exception {
        assertArrayEquals(new double[]{1, 2, 3, 3}, values("  1\t2\n3x1 "));
    }

    @Test
    void sizeUnitsScaleValuesAndSteps() throws Exception {
        assertArrayEquals(new double[]{8L << 30, (8L << 30) + (2 << 20), (8L << 30) + (4 << 20)},
                values("8GiB+2MiBx2"));
        assertArrayEquals(new double[]{1.5e9, 1000}, values("1.5GB 1kB"));
    }

    @Test
    void staleMarksAStepWithoutReadings() throws Exception {
        SeriesNotation.Expanded e = SeriesNotation.parse("1 stale 2", false);
        assertEquals(3, e.length());
        assertTrue(e.isStale(1));
        assertFalse(e.isStale(0));
        assertTrue(Double.isNaN(e.at(1)));
        assertTrue(Double.isNaN(e.at(3)), "past the end there is no sample");
    }

    @Test
    void clockEventReasonsTakeReasonNamesAsMasks() throws Exception {
        SeriesNotation.Expanded e = SeriesNotation.parse("0 HW_SLOWDOWN|HW_THERMAL_SLOWDOWNx2 GPU_IDLE", true);
        assertArrayEquals(new double[]{0, 0x48, 0x48, 0x48, 0x1}, e.values());
    }

    @Test
    void errorsNameTheOffendingCharacter() {
        var e = error("1 2 abc", false);
        assertEquals(4, e.offset());
        assertEquals("expected a value (a number, `_` or `stale`), found `abc`", e.getMessage());

        e = error("0+10x", false);
        assertEquals(5, e.offset());
        assertEquals("`x` needs a whole count after it, e.g. `1x5`", e.getMessage());

        e = error("5 0+10", false);
        assertEquals(4, e.offset());
        assertEquals("a step needs a count: write e.g. `0+10x10`", e.getMessage());

        e = error("1 2MiX", false);
        assertEquals(3, e.offset());
        assertEquals("unknown unit `MiX` (B, kB, KB, MB, GB, TB, KiB, MiB, GiB, TiB)", e.getMessage());

        e = error("1 1x5y", false);
        assertEquals(5, e.offset());
        assertEquals("unexpected `y`; separate values with blanks", e.getMessage());

        e = error("   ", false);
        assertEquals(0, e.offset());
    }

    @Test
    void reasonNamesAreCheckedAndOnlyAllowedForClockEventReasons() {
        var e = error("0 HW_SLOWDOWN|HOT", true);
        assertEquals(14, e.offset());
        assertTrue(e.getMessage().startsWith("unknown clock-event reason `HOT` (GPU_IDLE, "), e.getMessage());

        e = error("HW_SLOWDOWN", false);
        assertEquals(0, e.offset());
        assertEquals("reason names such as `HW_SLOWDOWN` are values of clockEventReasons only; this series takes "
                + "numbers", e.getMessage());
    }

    @Test
    void absurdlyLongSeriesAreRefused() {
        var e = error("1 0x2000000", false);
        assertEquals(2, e.offset());
        assertTrue(e.getMessage().contains("longer than 1000000 values"), e.getMessage());
    }
}
