package io.gpuwatch.rules.scope;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each member against the others: the median without itself, the count of others, the ratio and the spread. */
class PeerGroupTest {
    private static final String A = "a";
    private static final String B = "b";
    private static final String C = "c";
    private static final String D = "d";
    private static final String E = "e";

    @Test
    void eachMemberIsComparedWithTheOthersOnly() {
        PeerGroup<String> g = PeerGroup.of(List.of(A, B, C, D, E), new double[] {94, 95, 45, 93, 96});
        // the straggler against 93, 94, 95, 96
        assertEquals(94.5, g.stat(C, PeerStat.MEDIAN));
        assertEquals(45 / 94.5, g.stat(C, PeerStat.RATIO), 1e-12);
        assertEquals(4, g.stat(C, PeerStat.COUNT));
        // a healthy card against 45, 93, 95, 96: the straggler barely moves it
        assertEquals(94, g.stat(A, PeerStat.MEDIAN));
        assertEquals(1, g.stat(A, PeerStat.RATIO));
        // deviations from 94: 0 1 49 1 2, sorted 0 1 1 2 49
        assertEquals(1, g.stat(A, PeerStat.SPREAD));
    }

    @Test
    void twoMembersAreEachComparedWithTheOther() {
        PeerGroup<String> g = PeerGroup.of(List.of(A, B), new double[] {56, 94});
        assertEquals(94, g.stat(A, PeerStat.MEDIAN));
        assertEquals(56.0 / 94, g.stat(A, PeerStat.RATIO), 1e-12);
        assertEquals(94.0 / 56, g.stat(B, PeerStat.RATIO), 1e-12);
        assertEquals(1, g.stat(B, PeerStat.COUNT));
    }

    @Test
    void equalValuesAndAnEvenCountOfOthers() {
        PeerGroup<String> g = PeerGroup.of(List.of(A, B, C), new double[] {50, 50, 70});
        assertEquals(60, g.stat(A, PeerStat.MEDIAN));
        assertEquals(50, g.stat(C, PeerStat.MEDIAN));
        assertEquals(1.4, g.stat(C, PeerStat.RATIO), 1e-12);
    }

    @Test
    void aMemberWithoutValueOrPeersHasNoFigures() {
        PeerGroup<String> g = PeerGroup.of(List.of(A, B, C), new double[] {Double.NaN, 80, 90});
        assertTrue(Double.isNaN(g.stat(A, PeerStat.RATIO)), "no value of its own");
        assertEquals(0, g.stat(A, PeerStat.COUNT));
        assertEquals(1, g.stat(B, PeerStat.COUNT), "a member without a value is no peer");
        assertEquals(90, g.stat(B, PeerStat.MEDIAN));
        assertTrue(Double.isNaN(g.stat(D, PeerStat.MEDIAN)), "not a member");

        PeerGroup<String> alone = PeerGroup.of(List.of(A), new double[] {80});
        assertEquals(0, alone.stat(A, PeerStat.COUNT));
        assertTrue(Double.isNaN(alone.stat(A, PeerStat.MEDIAN)));
        assertTrue(Double.isNaN(alone.stat(A, PeerStat.RATIO)));
    }

    @Test
    void aRatioAgainstPeersAtZeroIsUnknown() {
        PeerGroup<String> g = PeerGroup.of(List.of(A, B, C), new double[] {40, 0, 0});
        assertTrue(Double.isNaN(g.stat(A, PeerStat.RATIO)));
    }
}
