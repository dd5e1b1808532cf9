package io.gpuwatch.gateway.digest;

import io.gpuwatch.gateway.coverage.CoverageBook;
import io.gpuwatch.notify.render.Report;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The digest's "Coverage dropped" section: nodes that still send but no longer send signals they sent at the
 * previous digest (a driver update that lost profiling, an application that stopped being scraped). A node that
 * went silent altogether is left to the node-lost rules.
 */
final class CoverageDrops {
    private CoverageDrops() {
    }

    /** One line per node whose signals in {@code before} are not all in {@code after}, by node name. */
    static List<String> lines(Map<String, BitSet> before, Map<String, BitSet> after) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, BitSet> e : new TreeMap<>(after).entrySet()) {
            BitSet was = before.get(e.getKey());
            if (was == null) {
                continue;
            }
            BitSet lost = (BitSet) was.clone();
            lost.andNot(e.getValue());
            if (!lost.isEmpty()) {
                out.add(e.getKey() + " no longer sends " + String.join(", ", CoverageBook.names(lost)));
            }
        }
        return out;
    }

    /** {@code report} with the section added when some node's coverage dropped, else unchanged. */
    static Report appendTo(Report report, List<String> dropped) {
        if (dropped.isEmpty()) {
            return report;
        }
        List<Report.Section> sections = new ArrayList<>(report.sections());
        sections.add(new Report.Section("Coverage dropped (" + dropped.size() + ")", dropped, "none"));
        return new Report(report.title(), report.period(), sections, report.trend(), report.chartUrl());
    }
}
