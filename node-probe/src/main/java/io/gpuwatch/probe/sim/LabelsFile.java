package io.gpuwatch.probe.sim;

import io.gpuwatch.probe.scenario.Expectation;
import io.gpuwatch.protocol.trace.TraceNames;
import org.snakeyaml.engine.v2.api.Dump;
import org.snakeyaml.engine.v2.api.DumpSettings;
import org.snakeyaml.engine.v2.common.FlowStyle;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The labels file written beside a recorded trace ({@code T.labels.yaml}, see LABELS in
 * examples/scenarios/README.md): what a good rule pack does about each labelled incident of the scenario, with
 * times in ms from the start.
 */
public final class LabelsFile {
    private LabelsFile() {
    }

    /** Where the labels of a trace go: its name less its trace suffixes (protocol §8), plus {@code .labels.yaml}. */
    public static Path beside(Path trace) {
        return trace.resolveSibling(TraceNames.base(trace.getFileName().toString()) + ".labels.yaml");
    }

    /** The labels file's text. */
    public static String text(String traceName, String scenario, long startMs, List<SimRecorder.Label> labels) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("trace", traceName);
        doc.put("scenario", scenario);
        doc.put("start", startMs);
        List<Object> items = new ArrayList<>();
        for (SimRecorder.Label l : labels) {
            Expectation e = l.expectation();
            Map<String, Object> item = new LinkedHashMap<>();
            item.put("id", e.id());
            item.put("class", e.cls());
            item.put("kind", e.kind());
            item.put("layer", e.layer());
            item.put("scope", e.scope());
            put(item, "node", e.node());
            put(item, "card", l.uuid());
            put(item, "task", l.task());
            put(item, "business", l.business());
            put(item, "queue", e.queue());
            item.put("at", e.at().toMillis());
            item.put("until", e.at().plus(e.span()).toMillis());
            put(item, "within", e.within() == null ? null : e.within().toMillis());
            put(item, "severity", e.severity());
            if (!e.tolerate().isEmpty()) {
                item.put("tolerate", e.tolerate());
            }
            put(item, "must", e.must());
            items.add(item);
        }
        doc.put("items", items);
        return new Dump(DumpSettings.builder().setDefaultFlowStyle(FlowStyle.BLOCK).build()).dumpToString(doc);
    }

    /** Writes the labels beside {@code trace}; returns the file written. */
    public static Path write(Path trace, String scenario, long startMs, List<SimRecorder.Label> labels)
            throws IOException {
        Path file = beside(trace);
        Files.writeString(file, text(trace.getFileName().toString(), scenario, startMs, labels), StandardCharsets.UTF_8);
        return file;
    }

    private static void put(Map<String, Object> item, String key, Object value) {
        if (value != null) {
            item.put(key, value);
        }
    }
}
