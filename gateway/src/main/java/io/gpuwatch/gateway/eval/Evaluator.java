package io.gpuwatch.gateway.eval;

import io.gpuwatch.gateway.state.CardState;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.gateway.state.NodeState;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.ScopeKind;
import io.gpuwatch.rules.eval.DisabledRule;
import io.gpuwatch.rules.eval.RuleEngine;
import io.gpuwatch.rules.eval.Transition;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Decides when rules run. Card rules run the moment a card's sample or event lands; node rules on every
 * event of the node and on the tick; the tick also runs card rules of cards that stopped sending, so their
 * alerts can resolve. No decision is more than one sample or one tick late. Rules the engine disables for
 * overrunning their time budget are logged on the next tick.
 */
public final class Evaluator {
    private static final Logger LOG = Logger.getLogger(Evaluator.class.getName());

    private final FleetState fleet;
    private final RuleEngine engine;
    private final Consumer<Transition> sink;
    private final Map<CardState, CardSlot> cards = new IdentityHashMap<>();
    private long evaluations;
    private int disabledLogged;

    /** A card's engine key, built once, and when its rules last ran. */
    private static final class CardSlot {
        final String key;
        long lastEval;

        CardSlot(String key) {
            this.key = key;
        }
    }

    /** Runs {@code rules} on an engine with the default time budget on the wall clock. */
    public Evaluator(FleetState fleet, RuleSet rules, Consumer<Transition> sink) {
        this(fleet, rules, new RuleEngine(rules), sink);
    }

    /** Runs {@code rules} on {@code engine}, which must have been built for them. */
    public Evaluator(FleetState fleet, RuleSet rules, RuleEngine engine, Consumer<Transition> sink) {
        this.fleet = fleet;
        this.engine = engine;
        this.sink = sink;
        fleet.useSeries(rules.series());
    }

    /**
     * Swaps in a new rule set at {@code now}: alerts of rules that stay keep their state, firing alerts of rules
     * that are gone resolve through the sink, and windows of series that stay keep their data.
     */
    public void replace(RuleSet next, long now) {
        engine.replace(next, now, sink);
        fleet.useSeries(next.series());
        disabledLogged = 0;
    }

    public RuleEngine engine() {
        return engine;
    }

    public long evaluations() {
        return evaluations;
    }

    /** Runs the card's rules at {@code now}. */
    public void card(CardState card, long now) {
        CardSlot slot = cards.get(card);
        if (slot == null) {
            slot = new CardSlot(card.instanceKey());
            cards.put(card, slot);
        }
        card.at(now);
        engine.evaluate(ScopeKind.CARD, slot.key, card, sink);
        slot.lastEval = now;
        evaluations++;
    }

    /** Runs the node's rules at {@code now}. */
    public void node(NodeState node, long now) {
        node.at(now);
        engine.evaluate(ScopeKind.NODE, node.instanceKey(), node, sink);
        evaluations++;
    }

    /** The periodic pass: every node, and every card not evaluated within the last {@code periodMs}. */
    public void tick(long now, long periodMs) {
        for (NodeState node : fleet.nodes()) {
            node(node, now);
            for (CardState card : node.cards()) {
                CardSlot slot = cards.get(card);
                if (slot == null || now - slot.lastEval >= periodMs) {
                    card(card, now);
                }
            }
        }
        logDisabled();
    }

    private void logDisabled() {
        List<DisabledRule> disabled = engine.disabled();
        for (int i = disabledLogged; i < disabled.size(); i++) {
            LOG.severe(disabled.get(i).diagnostic().toString());
        }
        disabledLogged = disabled.size();
    }
}
