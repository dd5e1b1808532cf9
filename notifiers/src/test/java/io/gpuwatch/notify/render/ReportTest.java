package io.gpuwatch.notify.render;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReportTest {
    private static Report report(int firing, int resolved) {
        return new Report("digest", "09:00–10:00", List.of(
                new Report.Section("Firing", IntStream.range(0, firing).mapToObj(i -> "alert " + i).toList(), "none"),
                new Report.Section("Resolved", IntStream.range(0, resolved).mapToObj(i -> "ended " + i).toList(),
                        "none")),
                "firing ▁▂█", null);
    }

    private static String text(Report r) {
        return String.join("\n", r.plainLines());
    }

    @Test
    void wholeReportWhenItFits() {
        Optional<String> fitted = report(2, 1).fit(ReportTest::text, t -> t.length() <= 1000);
        assertEquals("""
                digest
                09:00–10:00
                firing ▁▂█
                Firing
                  alert 0
                  alert 1
                Resolved
                  ended 0""", fitted.orElseThrow());
    }

    @Test
    void theLongestSectionIsCutFirstAndSaysHowManyAreLeftOut() {
        String fitted = report(40, 3).fit(ReportTest::text, t -> t.length() <= 150).orElseThrow();
        assertTrue(fitted.length() <= 150, fitted);
        assertTrue(fitted.contains("more"), fitted);
        // the short section survives whole while the long one still has lines to give
        assertTrue(fitted.contains("ended 2"), fitted);
        int kept = (int) fitted.lines().filter(l -> l.startsWith("  alert ")).count();
        assertTrue(fitted.contains("+" + (40 - kept) + " more"), fitted);
    }

    @Test
    void emptySectionShowsItsEmptyLine() {
        assertTrue(text(report(0, 0)).contains("Firing\n  none"));
    }

    @Test
    void nothingWhenTheFramingAloneIsTooLong() {
        assertEquals(Optional.empty(), report(5, 5).fit(ReportTest::text, t -> t.length() <= 10));
    }
}
