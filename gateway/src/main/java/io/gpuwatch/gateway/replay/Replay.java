package io.gpuwatch.gateway.replay;

import io.gpuwatch.gateway.eval.Evaluator;
import io.gpuwatch.gateway.ledger.MemoryLedger;
import io.gpuwatch.gateway.state.CardState;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.gateway.state.NodeState;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.eval.EvalBudget;
import io.gpuwatch.rules.eval.RuleEngine;
import io.gpuwatch.rules.eval.Transition;
import io.gpuwatch.rules.source.Diagnostic;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A fleet on a virtual clock: fleet state, rule engine and in-memory ledger on the gateway's schedule (card
 * rules when a card's sample or event lands, node rules on every event of the node and on a tick every
 * {@code tickMs} of virtual time, the tick also running the rules of cards that stopped sending), fed with
 * frames in time order as fast as the CPU allows. Every notification the ledger would have sent is kept with
 * its virtual time. Single-threaded, like the gateway's event loop.
 *
 * <p>The schedule is the gateway's own {@link Evaluator}, run here over an engine whose evaluation-budget
 * clock stands still: the budget guards a live gateway's event loop in wall-clock time, and a replay running a
 * day in seconds (or a JIT warming up on a busy CI machine) must not disable rules and change what would have
 * fired.
 */
public final class Replay {
    /** The gateway's default tick. */
    public static final long DEFAULT_TICK_MS = 1_000;

    private static final long NONE = Long.MIN_VALUE;
    private static final String[] ATTRIBUTION = {"task", "owner", "business"};
    private static final String[] WIDER_SCOPES = {"task", "business", "queue"};

    /**
     * One notification the gateway would have sent at virtual time {@code at}. {@code scope} holds the labels of
     * the alert's scope as they stood when it fired: {@code node}, {@code uuid} for cards, and the card's
     * {@code task}, {@code owner} and {@code business} when a process was attributed; a resolution repeats them.
     */
    public record Sent(long at, Notification notification, Map<String, String> scope) {
        public Sent {
            scope = Collections.unmodifiableMap(new LinkedHashMap<>(scope));
        }

        /** The rule that raised it: its {@code alertname} label. */
        public String rule() {
            return notification.labels().get("alertname");
        }

        public boolean firing() {
            return notification.status() == Notification.Status.FIRING;
        }
    }

    /**
     * Counts of what a replay processed; {@code clamped} counts frames stamped before the clock had reached,
     * {@code evaluations} those of scope instances, {@code ruleEvaluations} those of single rules on them that ran
     * and {@code slept} those left out because nothing the rule read had changed.
     */
    public record Stats(long frames, long samples, long cardReadings, long events, long ticks, long evaluations,
                        long ruleEvaluations, long slept, long notifications, long clamped, long firstAt, long lastAt) {
        /** Virtual time covered, in milliseconds. */
        public long spanMs() {
            return firstAt == NONE ? 0 : lastAt - firstAt;
        }
    }

    private final FleetState fleet = new FleetState();
    private final MemoryLedger ledger = new MemoryLedger(1, "");
    private final RuleEngine engine;
    private final Evaluator evaluator;
    private final long tickMs;
    private final Consumer<Sent> listener;
    private final List<Sent> sent = new ArrayList<>();
    private final Map<String, Sent> firing = new LinkedHashMap<>();
    // Fields rather than capturing lambdas, so that feeding a frame allocates nothing of its own.
    private final Consumer<CardState> evaluateCard;
    private final Consumer<Notification> collect = this::collect;
    private long now = NONE;
    private long firstAt = NONE;
    private long nextTick = NONE;
    private long frames;
    private long samples;
    private long cardReadings;
    private long events;
    private long ticks;
    private long clamped;

    /** A replay with the gateway's default tick that only collects. */
    public Replay(RuleSet rules) {
        this(rules, DEFAULT_TICK_MS, s -> { });
    }

    /**
     * A replay ticking every {@code tickMs} of virtual time; {@code listener} sees each notification as it is
     * sent, in addition to {@link #sent()} keeping it.
     */
    public Replay(RuleSet rules, long tickMs, Consumer<Sent> listener) {
        if (tickMs <= 0) {
            throw new IllegalArgumentException("tickMs must be positive, got " + tickMs);
        }
        this.tickMs = tickMs;
        this.listener = Objects.requireNonNull(listener, "listener");
        this.engine = new RuleEngine(rules, EvalBudget.DEFAULT, () -> 0L);
        this.evaluator = new Evaluator(fleet, rules, engine, this::transition);
        this.evaluateCard = card -> evaluator.card(card, now);
    }

    /**
     * Delivers one frame of {@code node} at virtual time {@code at}, after every tick due before it. A frame
     * stamped before the clock is delivered now, as the gateway would on receiving it late. A hello names its
     * node itself; app and sched frames feed tasks and queues; any other frame only shows that the node is alive.
     */
    public void feed(String node, Frame frame, long at) {
        long t = start(at);
        runTicks(t, false);
        now = t;
        frames++;
        if (frame instanceof Hello h) {
            fleet.hello(h, t);
        } else if (frame instanceof Sample s) {
            samples++;
            cardReadings += s.cards().size();
            fleet.sample(node, s, t, evaluateCard);
        } else if (frame instanceof Event e) {
            events++;
            CardState card = fleet.event(node, e, t);
            if (card != null) {
                evaluator.card(card, t);
            }
            NodeState n = fleet.node(node);
            if (n != null) {
                evaluator.node(n, t);
            }
        } else if (frame instanceof App a) {
            evaluator.app(node, a, t);
        } else if (frame instanceof Sched s) {
            evaluator.sched(node, s, t);
        } else {
            fleet.heard(node, t);
        }
    }

    /** Moves the clock to {@code at}, running every tick due up to and including it. */
    public void advanceTo(long at) {
        long t = start(at);
        runTicks(t, true);
        now = t;
    }

    private long start(long at) {
        if (now == NONE) {
            now = at;
            firstAt = at;
            nextTick = at;
        }
        if (at < now) {
            clamped++;
            return now;
        }
        return at;
    }

    private void runTicks(long until, boolean inclusive) {
        while (inclusive ? nextTick <= until : nextTick < until) {
            now = nextTick;
            evaluator.tick(nextTick, tickMs);
            ticks++;
            nextTick += tickMs;
        }
    }

    private void transition(Transition t) {
        ledger.apply(t, collect);
    }

    private void collect(Notification n) {
        Sent s;
        if (n.status() == Notification.Status.FIRING) {
            s = new Sent(now, n, scope(n.labels()));
            firing.put(n.fingerprint(), s);
        } else {
            Sent fired = firing.remove(n.fingerprint());
            s = new Sent(now, n, fired == null ? scope(n.labels()) : fired.scope());
        }
        sent.add(s);
        listener.accept(s);
    }

    /** The scope labels of an alert, with the attribution of its card at this moment. */
    private Map<String, String> scope(Map<String, String> labels) {
        Map<String, String> scope = new LinkedHashMap<>();
        String node = labels.get("node");
        String uuid = labels.get("uuid");
        if (node != null) {
            scope.put("node", node);
        }
        if (uuid != null) {
            scope.put("uuid", uuid);
            NodeState n = fleet.node(node);
            CardState card = n == null ? null : n.card(uuid);
            if (card != null) {
                for (String key : ATTRIBUTION) {
                    String v = card.label(key);
                    if (v != null) {
                        scope.put(key, v);
                    }
                }
            }
        }
        // task, business and queue alerts carry their scope in their identity labels
        for (String key : WIDER_SCOPES) {
            String v = labels.get(key);
            if (v != null) {
                scope.putIfAbsent(key, v);
            }
        }
        return scope;
    }

    /** Every notification sent so far, in the order sent. */
    public List<Sent> sent() {
        return Collections.unmodifiableList(sent);
    }

    /** The firing notification of every alert that fires now, oldest first. */
    public List<Sent> firing() {
        return List.copyOf(firing.values());
    }

    /** The virtual time; {@link Long#MIN_VALUE} before the first frame. */
    public long now() {
        return now;
    }

    /** The latest evaluation failure of each rule that has failed, at its {@code when}. */
    public List<Diagnostic> runtimeErrors() {
        return engine.runtimeErrors();
    }

    /** The fleet as the replay has built it, for inspection. */
    public FleetState fleet() {
        return fleet;
    }

    public Stats stats() {
        return new Stats(frames, samples, cardReadings, events, ticks, evaluator.evaluations(), engine.ran(),
                engine.slept(), sent.size(), clamped, firstAt, now);
    }
}
