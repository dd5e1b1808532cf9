package io.gpuwatch.gateway.state;

import io.gpuwatch.gateway.window.EventLog;
import io.gpuwatch.protocol.Hello;

import java.util.List;

/**
 * A node as a checkpoint keeps it: its latest hello (null when none came), when it was last heard, the cards of
 * this boot it lost, its node-wide events and its cards.
 */
public record NodeImage(String name, Hello hello, long lastFrameAt, List<String> lost, List<EventLog.Entry> events,
                        List<CardImage> cards) {
    public NodeImage {
        lost = List.copyOf(lost);
        events = List.copyOf(events);
        cards = List.copyOf(cards);
    }
}
