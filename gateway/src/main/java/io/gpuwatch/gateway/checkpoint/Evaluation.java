package io.gpuwatch.gateway.checkpoint;

import io.gpuwatch.gateway.state.CardImage;
import io.gpuwatch.gateway.state.CardState;
import io.gpuwatch.gateway.state.NodeImage;
import io.gpuwatch.gateway.state.NodeState;
import io.gpuwatch.gateway.state.ScopeImage;
import io.gpuwatch.rules.eval.AlertImage;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a gateway's evaluation holds at one instant {@code at}: its nodes (cards, windows, events, when each was
 * last heard), every pending and firing alert of the rule engine, and, with the windows, its tasks', replicas'
 * and queues' own windows ({@code scopes}).
 */
public record Evaluation(long at, List<NodeImage> nodes, List<AlertImage> alerts, List<ScopeImage> scopes) {
    /** Nothing held: a first start, or a file that could not be read. */
    public static final Evaluation EMPTY = new Evaluation(0, List.of(), List.of());

    public Evaluation {
        nodes = List.copyOf(nodes);
        alerts = List.copyOf(alerts);
        scopes = List.copyOf(scopes);
    }

    /** Nodes and alerts without any task, replica or queue. */
    public Evaluation(long at, List<NodeImage> nodes, List<AlertImage> alerts) {
        this(at, nodes, alerts, List.of());
    }

    /**
     * The part about {@code node}: the node, and the alerts of it and its cards; what a cluster hands over (a task
     * spans nodes, so its windows are not handed over: they fill again from the probes' frames).
     */
    public Evaluation part(NodeImage node) {
        String nodeKey = NodeState.key(node.name());
        String cardPrefix = CardState.key(node.name(), "");
        return new Evaluation(at, List.of(node), alerts.stream()
                .filter(a -> a.instance().equals(nodeKey) || a.instance().startsWith(cardPrefix)).toList());
    }

    /**
     * This evaluation without {@code gone}'s nodes; the alerts of them and their cards stay, as the best this
     * evaluation knows of them until a newer one arrives with their nodes.
     */
    public Evaluation withoutNodes(Set<String> gone) {
        if (gone.isEmpty()) {
            return this;
        }
        return new Evaluation(at, nodes.stream().filter(n -> !gone.contains(n.name())).toList(), alerts, scopes);
    }

    /**
     * This evaluation with the windows {@code older} held of the same cards, and how far into each node's samples
     * they go: the nodes, events and alerts are this one's, which is the newer; a card {@code older} lacks has no
     * windows, and a node it lacks no samples up to any seq. The tasks', replicas' and queues' windows are
     * {@code older}'s, the only file that holds them.
     */
    public Evaluation withWindowsOf(Evaluation older) {
        Map<String, List<CardImage.Window>> windows = new HashMap<>();
        Map<String, Long> heldSeqs = new HashMap<>();
        for (NodeImage n : older.nodes()) {
            heldSeqs.put(n.name(), n.heldSeq());
            for (CardImage c : n.cards()) {
                windows.put(n.name() + "\n" + c.uuid(), c.windows());
            }
        }
        List<NodeImage> merged = new ArrayList<>(nodes.size());
        for (NodeImage n : nodes) {
            List<CardImage> cards = new ArrayList<>(n.cards().size());
            for (CardImage c : n.cards()) {
                cards.add(new CardImage(c.uuid(), c.lastSampleAt(), c.task(), c.owner(), c.business(), c.events(),
                        windows.getOrDefault(n.name() + "\n" + c.uuid(), c.windows())));
            }
            merged.add(n.withCards(cards, heldSeqs.getOrDefault(n.name(), 0L)));
        }
        return new Evaluation(at, merged, alerts, older.scopes());
    }
}
