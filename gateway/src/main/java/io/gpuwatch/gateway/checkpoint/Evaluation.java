package io.gpuwatch.gateway.checkpoint;

import io.gpuwatch.gateway.state.CardState;
import io.gpuwatch.gateway.state.NodeImage;
import io.gpuwatch.gateway.state.NodeState;
import io.gpuwatch.rules.eval.AlertImage;

import java.util.List;

/**
 * What a gateway's evaluation holds at one instant {@code at}: its nodes (cards, windows, events, when each was
 * last heard) and every pending and firing alert of the rule engine.
 */
public record Evaluation(long at, List<NodeImage> nodes, List<AlertImage> alerts) {
    /** Nothing held: a first start, or a file that could not be read. */
    public static final Evaluation EMPTY = new Evaluation(0, List.of(), List.of());

    public Evaluation {
        nodes = List.copyOf(nodes);
        alerts = List.copyOf(alerts);
    }

    /** The part about {@code node}: the node, and the alerts of it and its cards; what a cluster hands over. */
    public Evaluation part(NodeImage node) {
        String nodeKey = NodeState.key(node.name());
        String cardPrefix = CardState.key(node.name(), "");
        return new Evaluation(at, List.of(node), alerts.stream()
                .filter(a -> a.instance().equals(nodeKey) || a.instance().startsWith(cardPrefix)).toList());
    }
}
