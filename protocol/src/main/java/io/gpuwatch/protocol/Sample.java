package io.gpuwatch.protocol;

import java.util.List;

/** The readings of all cards of one node at one instant. */
public record Sample(long seq, long ts, List<CardReading> cards) implements Frame {
    public Sample {
        cards = List.copyOf(cards);
    }

    @Override
    public String type() {
        return "sample";
    }
}
