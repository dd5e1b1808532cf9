package io.gpuwatch.gateway.capacity;

import java.util.List;

/**
 * One part of the capacity report as people read it: a heading, a sentence that says what it shows, a table,
 * and the bars of its chart (none for a section without one). The Markdown and HTML forms render the same
 * sections, so they cannot say different things.
 */
record Section(String title, String text, List<String> headers, List<List<String>> rows, String chartUnit,
               List<Bar> chart) {
    Section {
        headers = List.copyOf(headers);
        rows = rows.stream().map(List::copyOf).toList();
        chart = List.copyOf(chart);
    }

    /** One bar: its label and value. */
    record Bar(String label, double value) {
    }
}
