package io.gpuwatch.rules;

import io.gpuwatch.protocol.Metric;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** docs/rules.md documents every metric a rule may name, with the unit and kind the protocol gives it. */
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
}
