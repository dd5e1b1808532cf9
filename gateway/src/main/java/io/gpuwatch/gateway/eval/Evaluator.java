package io.gpuwatch.gateway.eval;

import io.gpuwatch.gateway.state.CardState;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.gateway.state.NodeState;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.ScopeKind;
import io.gpuwatch.rules.eval.DisabledRule;
import io.gpuwatch.rules.eval.RuleEngine;
import io.gpuwatch.rules.eval.Transition;

import java.util.HashMap;
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
    private final Map<String, Long> lastCardEval = new HashMap<>();
    private long evaluations;
    private int disabledLogged;

    public Evaluator(FleetState fleet, RuleSet rules, Consumer<Transition> sink) {
        this.fleet = fleet;
        this.engine = new RuleEngine(rules);
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
        card.at(now);
        engine.evaluate(ScopeKind.CARD, card.instanceKey(), card, sink);
        lastCardEval.put(card.instanceKey(), now);
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
                Long last = lastCardEval.get(card.instanceKey());
                if (last == null || now - last >= periodMs) {
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
