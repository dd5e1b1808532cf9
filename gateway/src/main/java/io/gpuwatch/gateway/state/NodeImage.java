package io.gpuwatch.gateway.state;

import io.gpuwatch.gateway.window.EventLog;
import io.gpuwatch.protocol.Hello;

import java.util.List;

/**
 * A node as a checkpoint keeps it: its latest hello (null when none came), when it was last heard, the cards of
 * this boot it lost, its node-wide events and its cards, and how far into the boot's stream of frames it is: it
 * holds what every frame up to {@code heldSeq} brought, and its event logs every event up to {@code eventSeq} (0:
 * not known, as in a file written before they were kept).
 */
public record NodeImage(String name, Hello hello, long lastFrameAt, List<String> lost, List<EventLog.Entry> events,
                        List<CardImage> cards, long heldSeq, long eventSeq) {
    public NodeImage {
        lost = List.copyOf(lost);
        events = List.copyOf(events);
        cards = List.copyOf(cards);
    }

    /** This node with other cards (their windows from another checkpoint) and that checkpoint's held seq. */
    public NodeImage withCards(List<CardImage> cards, long heldSeq) {
        return new NodeImage(name, hello, lastFrameAt, lost, events, cards, heldSeq, eventSeq);
    }
}
