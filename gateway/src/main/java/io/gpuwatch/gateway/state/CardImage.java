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

    /**
     * One window (of a card, task, replica or queue), under the series name and length it was built for, so a
     * changed rule set drops it.
     */
    public record Window(String series, long windowMs, boolean transitions, MetricWindow.Image image) {
        /** A copy of {@code w}, the window of series {@code series}. */
        static Window of(String series, MetricWindow w) {
            return new Window(series, w.shape().horizonMs(), w.keepsTransitions(), w.image());
        }

        /** Puts this copy back into {@code mine}, the window of {@code series}, if it was built the same way. */
        boolean restoreInto(String series, MetricWindow mine) {
            return series.equals(this.series) && mine.shape().horizonMs() == windowMs
                    && mine.keepsTransitions() == transitions && mine.restore(image);
        }
    }
}
