package io.gpuwatch.protocol;

import java.util.List;

/** One card's readings in a sample; a card listed with its uuid alone has no data this time. */
public record CardReading(String uuid, MetricValues values, List<ProcessInfo> processes) {
    public CardReading {
        processes = List.copyOf(processes);
    }
}
