package io.gpuwatch.gateway.state;

import io.gpuwatch.gateway.window.EventLog;
import io.gpuwatch.gateway.window.WindowShape;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.rules.SeriesSpec;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Everything the gateway knows about the fleet now: nodes, their cards and the windows the loaded rules read.
 * Owned by one event loop; frames arrive already validated and de-duplicated.
 */
public final class FleetState {
    /** Events older than this are forgotten; the longest event window a rule may ask for. */
    static final long EVENT_HORIZON_MS = 24 * 3600_000L;
    static final int EVENT_CAPACITY = 256;

    private final Map<String, NodeState> nodes = new LinkedHashMap<>();
    private List<SeriesSpec> series = List.of();

    /** Switches to the series of a new rule set; windows of series that stay keep their data. */
    public void useSeries(List<SeriesSpec> next) {
        this.series = List.copyOf(next);
        for (NodeState node : nodes.values()) {
            node.useSeries(series);
        }
    }

    List<SeriesSpec> series() {
        return series;
    }

    static WindowShape shapeFor(SeriesSpec spec) {
        return WindowShape.forWindow(spec.windowMs());
    }

    EventLog newEventLog() {
        return new EventLog(EVENT_CAPACITY, EVENT_HORIZON_MS);
    }

    public Collection<NodeState> nodes() {
        return Collections.unmodifiableCollection(nodes.values());
    }

    public NodeState node(String name) {
        return nodes.get(name);
    }

    public int cardCount() {
        int n = 0;
        for (NodeState node : nodes.values()) {
            n += node.cards().size();
        }
        return n;
    }

    /** A node said hello: it is a member now, with the cards it listed. */
    public NodeState hello(Hello hello, long at) {
        NodeState node = nodes.get(hello.node());
        if (node == null) {
            node = new NodeState(this, hello.node(), newEventLog());
            node.useSeries(series);
            nodes.put(hello.node(), node);
        }
        node.hello(hello, at);
        return node;
    }

    /** The node's connection closed; it stays a member, and silence counts from its last frame. */
    public void disconnected(String node) {
        NodeState n = nodes.get(node);
        if (n != null) {
            n.disconnected();
        }
    }

    /**
     * Appends a sample's readings; {@code at} is the gateway's time of arrival. A producer clock ahead of the
     * gateway is clamped to it, so windows never hold samples from the future.
     */
    public void sample(String node, Sample sample, long at, Consumer<CardState> touched) {
        NodeState n = nodes.get(node);
        if (n == null) {
            return;
        }
        n.heard(at);
        long ts = Math.min(sample.ts(), at);
        for (CardReading reading : sample.cards()) {
            CardState card = n.cardFor(reading.uuid(), null);
            card.append(ts, reading);
            touched.accept(card);
        }
    }

    /** Records an event on its card (when it names one) and on its node; returns the card or null. */
    public CardState event(String node, Event event, long at) {
        NodeState n = nodes.get(node);
        if (n == null) {
            return null;
        }
        n.heard(at);
        long ts = Math.min(event.ts(), at);
        int code = event.xid() == null ? -1 : event.xid();
        n.event(ts, event.kind(), code);
        if (event.uuid() == null) {
            return null;
        }
        CardState card = n.cardFor(event.uuid(), null);
        card.event(ts, event.kind(), code);
        return card;
    }

    /** Any other frame of the node: it is alive. */
    public void heard(String node, long at) {
        NodeState n = nodes.get(node);
        if (n != null) {
            n.heard(at);
        }
    }

    /** Bytes held by all windows and event logs. */
    public long retainedBytes() {
        long total = 0;
        for (NodeState node : nodes.values()) {
            total += node.retainedBytes();
        }
        return total;
    }
}
