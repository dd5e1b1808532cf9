package io.gpuwatch.gateway.state;

import io.gpuwatch.gateway.window.EventLog;
import io.gpuwatch.gateway.window.MetricWindow;

import java.util.List;

/**
 * A card as a checkpoint keeps it: its latest sample's time, the task, owner and business its first process was
 * attributed to (null while it runs none), its events and a copy of each window the loaded rules read.
 */
public record CardImage(String uuid, long lastSampleAt, String task, String owner, String business,
                        List<EventLog.Entry> events, List<Window> windows) {
    public CardImage {
        events = List.copyOf(events);
        windows = List.copyOf(windows);
    }

    /** One window, under the series name and length it was built for, so a changed rule set drops it. */
    public record Window(String series, long windowMs, boolean transitions, MetricWindow.Image image) {
    }
}
