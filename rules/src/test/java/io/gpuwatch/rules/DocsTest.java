package io.gpuwatch.rules;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.dsl.DslCompiler;
import io.gpuwatch.rules.metric.DerivedMetric;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** docs/rules.md documents every metric and function a rule may name, metrics with the protocol's unit and kind. */
class DocsTest {
    @Test
    void theMetricTableListsEveryMetric() throws IOException {
        String docs = Files.readString(Path.of("../docs/rules.md"));
        for (Metric m : Metric.values()) {
            String kind = m.kind().name().toLowerCase(java.util.Locale.ROOT);
            String row = "| `" + m.field() + "` | " + m.unit() + " | " + kind;
            assertTrue(docs.contains(row), "docs/rules.md lacks the row " + row);
        }
    }

    @Test
    void theDerivedMetricTableListsEveryDerivedMetric() throws IOException {
        String docs = Files.readString(Path.of("../docs/rules.md"));
        String table = docs.substring(docs.indexOf("### Derived metrics"), docs.indexOf("## When a rule fires"));
        for (DerivedMetric d : DerivedMetric.values()) {
            String row = "| `" + d.field() + "` | " + d.unit();
            assertTrue(table.contains(row), "the derived-metrics table of docs/rules.md lacks the row " + row);
        }
    }

    @Test
    void theFunctionTableHasARowPerFunction() throws IOException {
        String docs = Files.readString(Path.of("../docs/rules.md"));
        for (String f : DslCompiler.functions()) {
            assertTrue(docs.contains("\n| `" + f + "(") || f.equals("events") && docs.contains("| `count(events("),
                    "docs/rules.md lacks a row for " + f);
        }
    }
}
