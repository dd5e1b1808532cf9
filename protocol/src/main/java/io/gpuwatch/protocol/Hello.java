package io.gpuwatch.protocol;

import java.util.List;
import java.util.Map;

/** First producer frame of a connection: who the node is and which cards it has. */
public record Hello(int v, String node, String bootId, String probe, String driver, String nvml,
                    Map<String, String> labels, List<CardInfo> cards) implements Frame {
    public Hello {
        labels = Map.copyOf(labels);
        cards = List.copyOf(cards);
    }

    @Override
    public String type() {
        return "hello";
    }

    @Override
    public long seq() {
        return 0;
    }
}
