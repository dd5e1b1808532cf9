package io.gpuwatch.gateway.eval;

import io.gpuwatch.gateway.state.BusinessState;
import io.gpuwatch.gateway.state.CardState;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.gateway.state.NodeState;
import io.gpuwatch.gateway.state.QueueState;
import io.gpuwatch.gateway.state.ReplicaState;
import io.gpuwatch.gateway.state.TaskState;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.ScopeKind;
import io.gpuwatch.rules.eval.AlertState;
import io.gpuwatch.rules.eval.DisabledRule;
import io.gpuwatch.rules.eval.RuleEngine;
import io.gpuwatch.rules.eval.Transition;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Decides when rules run. Card rules run the moment a card's sample or event lands; node rules on every
 * event of the node and on the tick; the tick also runs card rules of cards that stopped sending, so their
 * alerts can resolve. Task, business and queue rules run on the tick for every known instance, and when an
 * {@code app} frame (its task and business) or a {@code sched} frame (its queue and the tasks it lists) arrives;
 * the tick first retires instances without members for longer than {@link FleetState#MEMBERSHIP_GRACE_MS},
 * resolving their firing alerts. No decision is more than one sample or one tick late. Rules the engine disables
 * for overrunning their time budget are logged on the next tick.
 */
public final class Evaluator {
    private static final Logger LOG = Logger.getLogger(Evaluator.class.getName());

    private final FleetState fleet;
    private final RuleEngine engine;
    /** The caller's sink, behind {@link #observe}: what rules hold of the baselines is settled before it hears. */
    private final Consumer<Transition> downstream;
    private final Consumer<Transition> sink = this::observe;
    /** The instance being evaluated now and the business its baselines are learned under. */
    private String evaluating;
    private String evaluatingBaseline;
    private RuleSet rules;
    private final Map<CardState, CardSlot> cards = new IdentityHashMap<>();
    private long evaluations;
    /** Rule name to when it was disabled (engine nanos), as last logged: a rule can leave and come back. */
    private Map<String, Long> disabledLogged = Map.of();

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
        this.downstream = sink;
        this.rules = rules;
        fleet.useSeries(rules.series());
        fleet.useBaselines(rules.baselined());
    }

    /**
     * Swaps in a new rule set at {@code now}: alerts of rules that stay keep their state, firing alerts of rules
     * that are gone resolve through the sink, and windows of series that stay keep their data.
     */
    public void replace(RuleSet next, long now) {
        evaluating = null;
        engine.replace(next, now, sink);
        // the rules that held baselines may be gone or changed; those still pending hold again on their next episode
        fleet.baselines().releaseAll();
        rules = next;
        fleet.useSeries(next.series());
        fleet.useBaselines(next.baselined());
        disabledLogged = Map.of();
    }

    /**
     * Takes back an alert a restarted gateway found firing in its store, so the engine resolves it when its
     * condition is over and does not fire it again meanwhile. The instance is rebuilt from the alert's labels
     * ({@code node}, {@code uuid}, {@code task}, {@code business}, {@code queue}, as the scope's identity gives
     * them); false when the rule is gone or the labels do not name an instance.
     */
    public boolean restore(String ruleName, Map<String, String> labels, long activeSince) {
        String key = instanceKey(ruleName, labels);
        return key != null && engine.restore(ruleName, key, activeSince);
    }

    /**
     * The engine key of the instance an alert of {@code ruleName} with {@code labels} is about, rebuilt from the
     * labels its scope's identity gives; null when the rule is not loaded or the labels name no instance.
     */
    public String instanceKey(String ruleName, Map<String, String> labels) {
        ScopeKind kind = rules.rules().stream().filter(r -> r.name().equals(ruleName)).map(r -> r.scope())
                .findFirst().orElse(null);
        return kind == null ? null : switch (kind) {
            case CARD -> labels.containsKey("node") && labels.containsKey("uuid")
                    ? CardState.key(labels.get("node"), labels.get("uuid")) : null;
            case NODE -> labels.containsKey("node") ? NodeState.key(labels.get("node")) : null;
            case TASK -> labels.containsKey("task") ? TaskState.key(labels.get("task")) : null;
            case REPLICA -> labels.containsKey("task") && labels.containsKey("node")
                    ? ReplicaState.key(labels.get("task"), labels.get("node")) : null;
            case BUSINESS -> labels.containsKey("business") ? BusinessState.key(labels.get("business")) : null;
            case QUEUE -> labels.containsKey("queue") ? QueueState.key(labels.get("queue")) : null;
        };
    }

    /**
     * {@code node} said hello after a restart: the alerts of it and its cards taken back from a checkpoint stop
     * waiting out their grace, since what its probe buffered arrives now.
     */
    public void heardAgain(String node) {
        engine.endGrace(NodeState.key(node), CardState.key(node, ""));
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
        evaluating(slot.key, card.baselineKey());
        engine.evaluate(ScopeKind.CARD, slot.key, card, sink);
        slot.lastEval = now;
        evaluations++;
    }

    /** Runs the node's rules at {@code now}. */
    public void node(NodeState node, long now) {
        node.at(now);
        evaluating(node.instanceKey(), node.baselineKey());
        engine.evaluate(ScopeKind.NODE, node.instanceKey(), node, sink);
        evaluations++;
    }

    /**
     * An {@code app} frame relayed by {@code node}: runs its task's rules at once. The business's rules wait for
     * the tick, since rebuilding every business's membership on each of thousands of app frames a second was
     * what limited a 10,000-card gateway (bench fleet); business rules are digests, not pages.
     */
    public void app(String node, App app, long now) {
        TaskState task = fleet.app(node, app, now);
        task(task, now);
        ReplicaState replica = task.replicaOn(node);
        if (replica != null) {
            replica(replica, now);
        }
    }

    /** A {@code sched} frame relayed by {@code node}: runs its queue's rules and those of every task it lists. */
    public void sched(String node, Sched sched, long now) {
        List<TaskState> listed = new ArrayList<>();
        QueueState q = fleet.sched(node, sched, now, listed::add);
        queue(q, now);
        for (TaskState t : listed) {
            task(t, now);
        }
    }

    /** Runs the task's rules at {@code now}. */
    public void task(TaskState task, long now) {
        task.at(now);
        evaluating(task.instanceKey(), task.baselineKey());
        engine.evaluate(ScopeKind.TASK, task.instanceKey(), task, sink);
        evaluations++;
    }

    /** Runs the replica's rules at {@code now}; its task must have been set to {@code now}. */
    private void replica(ReplicaState replica, long now) {
        replica.at(now);
        evaluating(replica.instanceKey(), replica.baselineKey());
        engine.evaluate(ScopeKind.REPLICA, replica.instanceKey(), replica, sink);
        evaluations++;
    }

    /** Runs the business's rules at {@code now}; its members must have been refreshed for {@code now}. */
    private void business(BusinessState business, long now) {
        evaluating(business.instanceKey(), business.baselineKey());
        engine.evaluate(ScopeKind.BUSINESS, business.instanceKey(), business, sink);
        evaluations++;
    }

    /** Runs the queue's rules at {@code now}. */
    public void queue(QueueState queue, long now) {
        queue.at(now);
        evaluating(queue.instanceKey(), queue.baselineKey());
        engine.evaluate(ScopeKind.QUEUE, queue.instanceKey(), queue, sink);
        evaluations++;
    }

    /**
     * The periodic pass: every node, every card not evaluated within the last {@code periodMs}, then every task,
     * business and queue, after retiring those gone for longer than the grace period.
     */
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
        fleet.expire(now, key -> {
            evaluating(key, null);
            engine.retire(key, now, sink);
        });
        for (TaskState t : fleet.tasks()) {
            task(t, now);
            for (ReplicaState r : t.replicas()) {
                replica(r, now);
            }
        }
        // expire() has just rebuilt the businesses' memberships at this instant
        for (BusinessState b : fleet.businesses()) {
            business(b, now);
        }
        for (QueueState q : fleet.queues()) {
            queue(q, now);
        }
        logDisabled();
    }

    private void evaluating(String instanceKey, String baselineKey) {
        evaluating = instanceKey;
        evaluatingBaseline = baselineKey;
    }

    /**
     * A rule that compares with learned baselines holds them while it is pending or firing on an instance, and
     * releases them when that episode ends: the baseline of a regression it watches must not learn the regression.
     */
    private void observe(Transition t) {
        if (evaluating != null && !t.rule().baselined().isEmpty()) {
            String holder = t.rule().name() + "\u0000" + evaluating;
            boolean active = t.to() == AlertState.PENDING || t.to() == AlertState.FIRING;
            boolean was = t.from() == AlertState.PENDING || t.from() == AlertState.FIRING;
            if (active && !was) {
                for (String metric : t.rule().baselined()) {
                    fleet.baselines().hold(evaluatingBaseline, metric, holder);
                }
            } else if (!active) {
                fleet.baselines().release(holder);
            }
        }
        downstream.accept(t);
    }

    private void logDisabled() {
        Map<String, Long> now = new HashMap<>();
        for (DisabledRule d : engine.disabled()) {
            now.put(d.rule(), d.disabledAtNanos());
            if (!Long.valueOf(d.disabledAtNanos()).equals(disabledLogged.get(d.rule()))) {
                LOG.severe(d.diagnostic().toString());
            }
        }
        for (String rule : disabledLogged.keySet()) {
            if (!now.containsKey(rule) && rules.rules().stream().anyMatch(r -> r.name().equals(rule))) {
                LOG.warning("rule `" + rule + "` runs again after its back-off");
            }
        }
        disabledLogged = now;
    }
}
