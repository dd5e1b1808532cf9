package io.gpuwatch.offline.score;

import io.gpuwatch.protocol.trace.TraceNames;

import java.util.List;

/**
 * A labels file: the trace it describes (its file name as recorded), the scenario it was recorded from, the
 * epoch ms the simulation started, and its items with times already made absolute.
 */
public record Labels(String file, String trace, String scenario, long start, List<Label> items) {
    public Labels {
        items = List.copyOf(items);
    }

    /** Where a trace's labels are looked for: {@code <name>.labels.yaml} beside it, trace suffixes dropped. */
    public static String besideTrace(String traceFileName) {
        return TraceNames.base(traceFileName) + ".labels.yaml";
    }
}
