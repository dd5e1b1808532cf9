package io.gpuwatch.rules.eval;

import io.gpuwatch.rules.Diagnostic;
import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleEvaluationException;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.ScopeKind;
import io.gpuwatch.rules.scope.ScopeView;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Runs rules against scope instances and keeps each (rule, instance)'s state:
 * inactive → pending when {@code when} holds (firing at once when {@code for} is 0), pending → firing once it
 * has held for {@code for}, pending → inactive when it stops holding, firing → resolved once it has been false
 * for {@code keep_firing_for}, resolved → pending or firing on a new episode. Only changes are reported.
 * Single-threaded: call every method from one thread (the gateway's event loop).
 */
public final class RuleEngine {
    private RuleSet set;
    private final Map<String, Map<String, Slot>> instances = new HashMap<>();
    private final Map<String, Diagnostic> errors = new LinkedHashMap<>();

    /** The state of one rule for one instance. */
    private static final class Slot {
        AlertState state = AlertState.INACTIVE;
        long activeSince;
        long falseSince = -1;

        /** Advances the state machine by one evaluation; returns the new state. */
        AlertState step(boolean holds, long now, long forMs, long keepMs) {
            switch (state) {
                case INACTIVE:
                case RESOLVED:
                    if (holds) {
                        activeSince = now;
                        falseSince = -1;
                        state = forMs == 0 ? AlertState.FIRING : AlertState.PENDING;
                    }
                    break;
                case PENDING:
                    if (!holds) {
                        state = AlertState.INACTIVE;
                    } else if (now - activeSince >= forMs) {
                        state = AlertState.FIRING;
                    }
                    break;
                default:
                    if (holds) {
                        falseSince = -1;
                    } else {
                        if (falseSince < 0) {
                            falseSince = now;
                        }
                        if (now - falseSince >= keepMs) {
                            state = AlertState.RESOLVED;
                        }
                    }
                    break;
            }
            return state;
        }
    }

    public RuleEngine(RuleSet set) {
        this.set = set;
    }

    /**
     * Evaluates every rule of {@code kind} for one instance at {@code view.now()} and hands each state change to
     * {@code sink}. A rule that throws counts as false; its error is kept for {@link #runtimeErrors()}.
     */
    public void evaluate(ScopeKind kind, String instanceKey, ScopeView view, Consumer<Transition> sink) {
        List<Rule> rules = set.rules(kind);
        if (rules.isEmpty()) {
            return;
        }
        Map<String, Slot> slots = instances.computeIfAbsent(instanceKey, k -> new HashMap<>());
        long now = view.now();
        for (Rule rule : rules) {
            boolean holds;
            try {
                holds = rule.test(view);
            } catch (RuleEvaluationException e) {
                errors.put(rule.name(), rule.runtimeError("rule `" + rule.name() + "` on " + instanceKey + ": " + e.reason()));
                holds = false;
            }
            Slot slot = slots.get(rule.name());
            if (slot == null) {
                if (!holds) {
                    continue;
                }
                slot = new Slot();
                slots.put(rule.name(), slot);
            }
            AlertState from = slot.state;
            AlertState to = slot.step(holds, now, rule.forMs(), rule.keepFiringForMs());
            if (to != from) {
                sink.accept(transition(rule, instanceKey, view, slot, from, to, now));
            }
        }
    }

    private Transition transition(Rule rule, String instanceKey, ScopeView view, Slot slot, AlertState from,
                                  AlertState to, long now) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("alertname", rule.name());
        labels.put("severity", rule.severity().key());
        labels.put("layer", rule.layer().key());
        labels.putAll(new TreeMap<>(view.identity()));
        labels.putAll(rule.labels());
        String summary;
        String description;
        try {
            summary = rule.renderSummary(view);
            description = rule.renderDescription(view);
        } catch (RuleEvaluationException e) {
            // the state change is real even when its text cannot be rendered
            errors.put(rule.name(), rule.runtimeError("rule `" + rule.name() + "` on " + instanceKey + ": " + e.reason()));
            summary = rule.name();
            description = "";
        }
        return new Transition(rule, labels, from, to, now, slot.activeSince, summary, description);
    }

    /**
     * Swaps in a new rule set. Rules that keep their name keep their state per instance; the state of rules
     * that are gone is dropped without a transition, and earlier runtime errors are cleared.
     */
    public void replace(RuleSet next) {
        Set<String> names = new HashSet<>();
        for (Rule r : next.rules()) {
            names.add(r.name());
        }
        for (Map<String, Slot> slots : instances.values()) {
            slots.keySet().retainAll(names);
        }
        errors.clear();
        this.set = next;
    }

    /** Drops every state of an instance that no longer exists (a card removed, a node gone). */
    public void forget(String instanceKey) {
        instances.remove(instanceKey);
    }

    /** The latest evaluation failure of each rule that has failed, at its {@code when}. */
    public List<Diagnostic> runtimeErrors() {
        return new ArrayList<>(errors.values());
    }

    /** The current state of a rule for an instance. */
    public AlertState state(String ruleName, String instanceKey) {
        Map<String, Slot> slots = instances.get(instanceKey);
        Slot slot = slots == null ? null : slots.get(ruleName);
        return slot == null ? AlertState.INACTIVE : slot.state;
    }
}
