package io.gpuwatch.gateway.eval;

import io.gpuwatch.gateway.state.BusinessState;
import io.gpuwatch.gateway.state.CardState;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.gateway.state.NodeState;
import io.gpuwatch.gateway.state.QueueState;
import io.gpuwatch.gateway.state.ReplicaState;
import io.gpuwatch.gateway.state.TaskState;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.eval.AlertState;
import io.gpuwatch.rules.eval.DisabledRule;
import io.gpuwatch.rules.eval.RuleEngine;
import io.gpuwatch.rules.eval.Transition;
import io.gpuwatch.rules.scope.ScopeKind;
import io.gpuwatch.rules.scope.Series;

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
 *
 * <p>A sample or event that arrives more than {@link #CATCH_UP_MS} after it was read is a backlog its probe
 * re-sends (after a gateway restart, a failover or a reconnect): its card's and node's rules run at the time it
 * was read, as they would have when it was fresh, so an incident inside the gap pages (late) and a {@code for}
 * counted before the gap is not reset by windows the backlog has not filled yet. Meanwhile the tick leaves that
 * node alone; once its frames are fresh again its rules run at arrival time as before. No instance's rules ever
 * run at an earlier time than they last did.
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
    private final Map<NodeState, NodeSlot> nodes = new IdentityHashMap<>();
    private long evaluations;
    /** Rule name to when it was disabled (engine nanos), as last logged: a rule can leave and come back. */
    private Map<String, Long> disabledLogged = Map.of();

    /**
     * How late a frame may arrive after it was read and still be evaluated at its arrival; later than this it is a
     * re-sent backlog, evaluated at the time it was read. Well above a live frame's transit and a busy gateway's
     * queueing, well below the shortest {@code for} of the shipped rules.
     */
    public static final long CATCH_UP_MS = Series.ON_TIME_MS;

    /**
     * How long after the latest frame of a re-sent backlog arrived its node is still left to its frames. Well above
     * {@link #CATCH_UP_MS}: a gateway stalled for seconds in the middle of a backlog (a collection, a busy host)
     * would otherwise tick the node at arrival time on windows holding only part of it, and the node's rules could
     * not go back to the read times of the rest, losing an incident inside the outage. A node whose probe dies in
     * the middle of its backlog counts as silent this much later.
     */
    public static final long BACKLOG_QUIET_MS = 10_000;

    /** A card's engine key, built once; when (arrival time) its rules last ran, and at what time they ran. */
    private static final class CardSlot {
        final String key;
        long lastRun;
        long lastAt = Long.MIN_VALUE;

        CardSlot(String key) {
            this.key = key;
        }
    }

    /** The time a node's rules last ran at, and when a re-sent frame of it last arrived. */
    private static final class NodeSlot {
        long lastAt = Long.MIN_VALUE;
        long backlogHeardAt = Long.MIN_VALUE;
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
     * {@code node} said hello (after a restart or a reconnect): the alerts of it and its cards taken back from a
     * checkpoint stop waiting out their grace, since what its probe buffered arrives now; and the backlog it
     * re-sends may run its rules at times before the ticks that ran them while it was away (the engine keeps each
     * alert's own changes in order).
     */
    public void heardAgain(String node) {
        engine.endGrace(NodeState.key(node), CardState.key(node, ""));
        NodeState n = fleet.node(node);
        if (n != null) {
            slot(n).lastAt = Long.MIN_VALUE;
            for (CardState card : n.cards()) {
                CardSlot slot = cards.get(card);
                if (slot != null) {
                    slot.lastAt = Long.MIN_VALUE;
                }
            }
        }
    }

    /**
     * Lets go of {@code node}, which another gateway of the cluster evaluates from now on: it, its cards and the
     * pending and firing alerts of both leave without a transition (the new owner takes the firing ones over and
     * resolves them), so this gateway neither counts a silence that is only the node's move nor keeps an alert of
     * it to bring back later. Nothing happens for a node the fleet does not know.
     */
    public void forget(String node) {
        NodeState n = fleet.forget(node);
        if (n == null) {
            return;
        }
        engine.forget(n.instanceKey());
        nodes.remove(n);
        for (CardState card : n.cards()) {
            engine.forget(card.instanceKey());
            cards.remove(card);
        }
    }

    public RuleEngine engine() {
        return engine;
    }

    public long evaluations() {
        return evaluations;
    }

    /**
     * A sample of {@code node} arriving at {@code now}: windows it and runs its cards' rules, at arrival or, for a
     * re-sent backlog, at the time it was read; then, for a backlog, the node's rules once a tick period of read
     * time has passed since they last ran, as the tick would have.
     */
    public void sample(String node, Sample sample, long now, long periodMs) {
        NodeState n = fleet.node(node);
        long at = n == null ? now : readTime(n, sample.ts(), now);
        fleet.sample(node, sample, now, card -> card(card, at, now));
        if (n != null && at < now && (slot(n).lastAt == Long.MIN_VALUE || at - slot(n).lastAt >= periodMs)) {
            node(n, at);
        }
    }

    /** An event of {@code node} arriving at {@code now}: logs it and runs its card's and its node's rules. */
    public void event(String node, Event event, long now) {
        NodeState n = fleet.node(node);
        long at = n == null ? now : readTime(n, event.ts(), now);
        CardState card = fleet.event(node, event, now);
        if (card != null) {
            card(card, at, now);
        }
        if (n != null) {
            node(n, at);
        }
    }

    /** The time a frame of {@code node} read at {@code readAt} and arriving at {@code now} is evaluated at. */
    private long readTime(NodeState node, long readAt, long now) {
        NodeSlot slot = slot(node);
        if (now - readAt > CATCH_UP_MS) {
            slot.backlogHeardAt = now;
            return readAt;
        }
        slot.backlogHeardAt = Long.MIN_VALUE;
        return now;
    }

    /** Whether {@code node} is re-sending a backlog: its last frame was an old one, and it arrived just now. */
    private boolean catchingUp(NodeState node, long now) {
        NodeSlot slot = nodes.get(node);
        return slot != null && slot.backlogHeardAt != Long.MIN_VALUE && now - slot.backlogHeardAt < BACKLOG_QUIET_MS;
    }

    private NodeSlot slot(NodeState node) {
        return nodes.computeIfAbsent(node, k -> new NodeSlot());
    }

    /** Runs the card's rules at {@code now}. */
    public void card(CardState card, long now) {
        card(card, now, now);
    }

    /** Runs the card's rules at {@code at} (or the time they last ran at, if later); {@code now} is the arrival. */
    private void card(CardState card, long at, long now) {
        CardSlot slot = cards.get(card);
        if (slot == null) {
            slot = new CardSlot(card.instanceKey());
            cards.put(card, slot);
        }
        slot.lastAt = Math.max(slot.lastAt, at);
        card.at(slot.lastAt);
        evaluating(slot.key, card.baselineKey());
        engine.evaluate(ScopeKind.CARD, slot.key, card, sink);
        slot.lastRun = now;
        evaluations++;
    }

    /** Runs the node's rules at {@code now} (or the time they last ran at, if later). */
    public void node(NodeState node, long now) {
        NodeSlot slot = slot(node);
        slot.lastAt = Math.max(slot.lastAt, now);
        node.at(slot.lastAt);
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
     * business and queue, after retiring those gone for longer than the grace period. A node re-sending a backlog
     * is left to its frames, which run its rules at the times they were read.
     */
    public void tick(long now, long periodMs) {
        for (NodeState node : fleet.nodes()) {
            if (catchingUp(node, now)) {
                continue;
            }
            node(node, now);
            for (CardState card : node.cards()) {
                CardSlot slot = cards.get(card);
                if (slot == null || now - slot.lastRun >= periodMs) {
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
