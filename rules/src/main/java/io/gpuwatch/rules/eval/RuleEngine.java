package io.gpuwatch.rules.eval;

import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleEvaluationException;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.scope.Reads;
import io.gpuwatch.rules.scope.ScopeKind;
import io.gpuwatch.rules.scope.ScopeView;
import io.gpuwatch.rules.source.Diagnostic;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Runs rules against scope instances and keeps each (rule, instance)'s state:
 * inactive → pending when {@code when} holds (firing at once when {@code for} is 0), pending → firing once it
 * has held for {@code for}, pending → inactive when it stops holding, firing → resolved once it has been false
 * for {@code keep_firing_for}, resolved → pending or firing on a new episode. Only changes are reported.
 * Each evaluation of a rule is timed against an {@link EvalBudget}; a rule that overruns it is disabled for a
 * back-off (see {@link #disabled()}) while the others keep running, then runs again with the state it had. The
 * budget's grace, strike window and back-off are all measured on the engine's nano clock. Single-threaded: call
 * every method from one thread (the gateway's event loop).
 */
public final class RuleEngine {
    private RuleSet set;
    private final EvalBudget budget;
    private final long budgetNanos;
    private final LongSupplier nanoClock;
    private final Map<String, Instance> instances = new HashMap<>();
    private final Map<String, Diagnostic> errors = new LinkedHashMap<>();
    /** Instances with an alert in its grace after a restore, sorted so a node's are found by their key prefix. */
    private final NavigableSet<String> graced = new TreeSet<>();
    private final Map<String, DisabledRule> disabled = new LinkedHashMap<>();
    private final Map<String, Deque<Long>> overruns = new HashMap<>();
    private final Map<String, Penalty> penalties = new HashMap<>();
    /** Until when (nano clock) overruns never strike: the JIT compiles the rules just loaded. */
    private long graceUntil;
    private final Pauses pauses;
    /** Overruns excused because the process was paused (a collection) for most of them. */
    private long pausedOverruns;
    private long overrunCount;
    private long disablements;
    /** Whether the latest {@link #step} found the condition false on an alert that stays inactive or resolved. */
    private boolean settled;
    /** Evaluations of a rule on an instance since the engine started: those run, and those left out asleep. */
    private long ran;
    private long slept;
    private boolean sleeps = true;

    private static final int[] NO_STREAKS = new int[0];
    /**
     * What each rule's evaluations cost, parallel to {@code set.rules(kind)}: per rule, evaluations, total and
     * last nanoseconds. Arrays by position, so the hot loop adds no lookup per rule.
     */
    private Map<ScopeKind, long[][]> costs;

    /** The state of one rule for one instance. */
    private static final class Slot {
        AlertState state = AlertState.INACTIVE;
        /** The runs of the rule's consecutive() conditions, and the rule they were counted for. */
        int[] streaks = NO_STREAKS;
        Rule streaksOf;
        /** The scope's period the streaks were last counted in. */
        long streakPeriod = Long.MIN_VALUE;
        /**
         * For an alert restored after a restart: how long it stays firing from its first evaluation whatever its
         * condition says, since the windows the restart emptied cannot show yet that it is over; -1 once spent.
         */
        long restoredHoldMs = -1;
        long heldUntil = Long.MIN_VALUE;
        /**
         * For an alert taken back from a checkpoint: until when a false condition leaves it as it is, pending or
         * firing, since its windows lack what the probes have not re-sent yet since the restart.
         */
        long graceUntil = Long.MIN_VALUE;
        long activeSince;
        long falseSince = -1;
        /** When (nano clock) the alert last became pending, to tell whether its rule was disabled since. */
        long pendingSinceNanos;
        /** What the latest transition said, so an alert can still be resolved once its rule is gone. */
        Transition last;

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

    /**
     * The rules' states on one instance, by rule name, and which rules of its scope sleep: by position in the
     * scope's rules, the change mark (see {@link ScopeView#changeMark}) at which the rule's condition was last
     * false on an alert that was not pending or firing, or {@link #AWAKE}.
     */
    private static final class Instance {
        final Map<String, Slot> slots = new HashMap<>();
        long[] asleep = NO_MARKS;
        /**
         * By rule, for a false condition that can tell how long it stays so ({@link Rule#quietUntil}): until when
         * it sleeps, from when, and the view's {@link ScopeView#quietMark} then; or, after a try that could not
         * tell, when to try again, as a negative instant.
         */
        long[] quietUntil = NO_MARKS;
        long[] quietFrom = NO_MARKS;
        long[] quietMark = NO_MARKS;

        /** Wakes every rule: the instance's alerts were changed from outside an evaluation, or the rules were. */
        void wake() {
            asleep = NO_MARKS;
            quietUntil = NO_MARKS;
        }
    }

    /** After a false condition could not tell until when it stays false, how long before it is asked again. */
    private static final long QUIET_RETRY_MS = 10_000;

    private static final long AWAKE = Long.MIN_VALUE;
    private static final long[] NO_MARKS = new long[0];

    /** How often in a row a rule has been disabled, and when it last came back. */
    private static final class Penalty {
        int inARow;
        long cameBack;
    }

    /**
     * An engine with the {@link EvalBudget#DEFAULT} budget, timed by {@link System#nanoTime()}, that does not
     * charge a rule for the JVM's stops (collection pauses and other safepoints).
     */
    public RuleEngine(RuleSet set) {
        this(set, EvalBudget.DEFAULT, System::nanoTime, Pauses.jvm());
    }

    /** An engine timing each rule evaluation with {@code nanoClock} against {@code budget}; nothing pauses. */
    public RuleEngine(RuleSet set, EvalBudget budget, LongSupplier nanoClock) {
        this(set, budget, nanoClock, Pauses.NONE);
    }

    /**
     * An engine timing each rule evaluation with {@code nanoClock} against {@code budget}, less the time
     * {@code pauses} says the process stood still during it.
     */
    public RuleEngine(RuleSet set, EvalBudget budget, LongSupplier nanoClock, Pauses pauses) {
        this.set = set;
        this.costs = costsOf(set);
        this.pauses = pauses;
        this.budget = budget;
        this.budgetNanos = budget.perEvaluation().toNanos();
        this.nanoClock = nanoClock;
        this.graceUntil = nanoClock.getAsLong() + budget.grace().toNanos();
    }

    /**
     * Evaluates every rule of {@code kind} for one instance at {@code view.now()} and hands each state change to
     * {@code sink}. A rule that throws counts as false; its error is kept for {@link #runtimeErrors()}. Disabled
     * rules are skipped, so their state stays as it was; one whose back-off is over runs again.
     *
     * <p>A rule whose condition time alone cannot make true ({@link Rule#sleepsOn()}), found false on an alert that
     * is neither pending nor firing, sleeps: it is not evaluated again on the instance until the view's
     * {@link ScopeView#changeMark change mark} of what it reads moves, since until then it would be false again
     * and change nothing. Most device rules watch counters, flags and events that sit still nearly all day.
     */
    public void evaluate(ScopeKind kind, String instanceKey, ScopeView view, Consumer<Transition> sink) {
        List<Rule> rules = set.rules(kind);
        if (rules.isEmpty()) {
            return;
        }
        Instance instance = instances.computeIfAbsent(instanceKey, k -> new Instance());
        if (instance.asleep.length != rules.size()) {
            instance.asleep = new long[rules.size()];
            Arrays.fill(instance.asleep, AWAKE);
        }
        if (instance.quietUntil.length != rules.size()) {
            instance.quietUntil = new long[rules.size()];
            instance.quietFrom = new long[rules.size()];
            instance.quietMark = new long[rules.size()];
        }
        long[] asleep = instance.asleep;
        long[] quietUntil = instance.quietUntil;
        Map<String, Slot> slots = instance.slots;
        long now = view.now();
        if (!disabled.isEmpty()) {
            bringBack(nanoClock.getAsLong());
        }
        long[][] cost = costs.get(kind);
        pauses.enter();
        try {
            for (int i = 0; i < rules.size(); i++) {
                Rule rule = rules.get(i);
                if (!disabled.isEmpty() && disabled.containsKey(rule.name())) {
                    // it sees nothing while disabled
                    asleep[i] = AWAKE;
                    continue;
                }
                Reads reads = sleeps ? rule.sleepsOn() : null;
                long mark = reads == null ? AWAKE : view.changeMark(reads);
                if (mark != AWAKE && asleep[i] == mark) {
                    slept++;
                    continue;
                }
                if (quietUntil[i] > now && now >= instance.quietFrom[i]
                        && instance.quietMark[i] == view.quietMark()) {
                    slept++;
                    continue;
                }
                long started = nanoClock.getAsLong();
                Transition change = step(rule, instanceKey, view, slots, now, started);
                asleep[i] = settled ? mark : AWAKE;
                quiet(rule, view, now, settled && sleeps, instance, i);
                long took = nanoClock.getAsLong() - started;
                ran++;
                cost[i][0]++;
                cost[i][1] += took;
                cost[i][2] = took;
                if (took > budgetNanos) {
                    overran(rule, instanceKey, started, took);
                }
                // what the sink does with a change (ledger, routing, delivery) is not the rule's time
                if (change != null) {
                    sink.accept(change);
                }
            }
        } finally {
            pauses.exit();
        }
    }

    /**
     * After an evaluation: a settled false condition that can tell until when it stays false sleeps until then
     * (while the view's quiet mark stays); one that could not tell is asked again {@link #QUIET_RETRY_MS} later,
     * since asking costs about another evaluation.
     */
    private static void quiet(Rule rule, ScopeView view, long now, boolean settled, Instance instance, int i) {
        long[] until = instance.quietUntil;
        if (!settled || !rule.quiets()) {
            until[i] = 0;
            return;
        }
        if (until[i] < 0 && now < -until[i] && now >= instance.quietFrom[i]) {
            return;
        }
        long mark = view.quietMark();
        long q = mark == Long.MIN_VALUE ? Long.MIN_VALUE : rule.quietUntil(view);
        instance.quietFrom[i] = now;
        if (q > now) {
            until[i] = q;
            instance.quietMark[i] = mark;
        } else {
            until[i] = -(now + QUIET_RETRY_MS);
        }
    }

    /** Advances the rule's state on one instance; returns the change it made, or null. */
    private Transition step(Rule rule, String instanceKey, ScopeView view, Map<String, Slot> slots, long now,
                            long startedNanos) {
        settled = false;
        Slot slot = slots.get(rule.name());
        if (slot != null && slot.last != null && now < slot.last.at()) {
            // a re-sent backlog is evaluated at the times it was read; what it shows from before the alert's last
            // change (made by a tick while its node was away, or resolved before a restart) is decided already
            return null;
        }
        // a rule with consecutive() counts every evaluation, so its instances keep a slot while not holding
        if (slot == null && rule.streaks() > 0) {
            slot = new Slot();
            slots.put(rule.name(), slot);
        }
        boolean holds;
        boolean failed = false;
        try {
            if (slot == null) {
                holds = rule.test(view);
            } else {
                int[] runs = streaks(slot, rule);
                long period = view.period();
                boolean newPeriod = period < 0 || period != slot.streakPeriod;
                slot.streakPeriod = period;
                holds = rule.test(view, runs, newPeriod);
            }
        } catch (RuleEvaluationException e) {
            errors.put(rule.name(), rule.runtimeError("rule `" + rule.name() + "` on " + instanceKey + ": " + e.reason()));
            holds = false;
            failed = true;
        }
        if (slot == null) {
            if (!holds) {
                settled = !failed;
                return null;
            }
            slot = new Slot();
            slots.put(rule.name(), slot);
        }
        if (!holds && now < slot.graceUntil
                && (slot.state == AlertState.PENDING || slot.state == AlertState.FIRING)) {
            return null;
        }
        if (holds && now < slot.graceUntil && slot.state == AlertState.RESOLVED) {
            return null;
        }
        if (slot.restoredHoldMs >= 0) {
            slot.heldUntil = now + slot.restoredHoldMs;
            slot.restoredHoldMs = -1;
        }
        if (!holds && now < slot.heldUntil && slot.state == AlertState.FIRING) {
            holds = true;
        }
        // a fault stays open until the card shows it recovered, not when its event ages out of the window
        if (!holds && slot.state == AlertState.FIRING) {
            try {
                holds = rule.keepsFiring(view);
            } catch (RuleEvaluationException e) {
                errors.put(rule.name(), rule.runtimeError("rule `" + rule.name() + "` on " + instanceKey + ": "
                        + e.reason()));
            }
        }
        if (slot.state == AlertState.PENDING && !penalties.isEmpty()) {
            Penalty p = penalties.get(rule.name());
            // the rule saw nothing while it was disabled: its `for` counts again from now, or a pending alert
            // would fire on its first evaluation back, as if its condition had held all along
            if (p != null && slot.pendingSinceNanos - p.cameBack < 0) {
                slot.activeSince = now;
                slot.pendingSinceNanos = startedNanos;
            }
        }
        AlertState from = slot.state;
        AlertState to = slot.step(holds, now, rule.forMs(), rule.keepFiringForMs());
        settled = !holds && !failed && (to == AlertState.INACTIVE || to == AlertState.RESOLVED);
        if (to == AlertState.PENDING && from != AlertState.PENDING) {
            slot.pendingSinceNanos = startedNanos;
        }
        if (to == from) {
            return null;
        }
        slot.last = transition(rule, instanceKey, view, slot, from, to, now);
        return slot.last;
    }

    /** The slot's streaks for {@code rule}; a reloaded rule with another {@code when} starts its runs over. */
    private static int[] streaks(Slot slot, Rule rule) {
        if (slot.streaksOf != rule) {
            if (slot.streaksOf == null || !slot.streaksOf.when().equals(rule.when())
                    || slot.streaks.length != rule.streaks()) {
                slot.streaks = rule.streaks() == 0 ? NO_STREAKS : new int[rule.streaks()];
                slot.streakPeriod = Long.MIN_VALUE;
            }
            slot.streaksOf = rule;
        }
        return slot.streaks;
    }

    /**
     * Counts an overrun; past the grace, the one that completes {@code strikes} within the window disables the rule
     * for its back-off.
     */
    private void overran(Rule rule, String instanceKey, long at, long took) {
        overrunCount++;
        if (at - graceUntil < 0) {
            return;
        }
        if (took - pauses.pausedNanos(at, at + took) <= budgetNanos) {
            pausedOverruns++;
            return;
        }
        Deque<Long> times = overruns.computeIfAbsent(rule.name(), k -> new ArrayDeque<>());
        times.addLast(at);
        long windowNanos = budget.within().toNanos();
        while (times.size() > 1 && at - times.peekFirst() > windowNanos) {
            times.removeFirst();
        }
        if (times.size() < budget.strikes()) {
            return;
        }
        long end = at + took;
        Penalty p = penalties.computeIfAbsent(rule.name(), k -> new Penalty());
        // a long clean run since it came back means this is a new problem, not the old one again
        if (p.inARow > 0 && end - p.cameBack >= budget.maxBackoff().toNanos()) {
            p.inARow = 0;
        }
        p.inARow++;
        long backoff = budget.backoffNanos(p.inARow);
        String repeated = budget.strikes() == 1 ? ""
                : " (" + budget.strikes() + " overruns within " + duration(windowNanos) + ")";
        String again = p.inARow == 1 ? "" : ", the " + ordinal(p.inARow) + " time in a row";
        Diagnostic d = rule.runtimeError("rule `" + rule.name() + "` disabled for " + duration(backoff) + again
                + ": evaluating it on " + instanceKey + " took " + duration(took) + ", over the budget of "
                + duration(budgetNanos) + " per evaluation" + repeated
                + "; its alerts keep their state until it runs again");
        disabled.put(rule.name(), new DisabledRule(rule.name(), instanceKey, took, budgetNanos, end, end + backoff,
                p.inARow, d));
        overruns.remove(rule.name());
        disablements++;
    }

    /** Lets every disabled rule whose back-off is over at {@code nowNanos} run again. */
    private void bringBack(long nowNanos) {
        Iterator<DisabledRule> it = disabled.values().iterator();
        while (it.hasNext()) {
            DisabledRule d = it.next();
            if (nowNanos - d.retryAtNanos() >= 0) {
                it.remove();
                penalties.get(d.rule()).cameBack = d.retryAtNanos();
            }
        }
    }

    private static String ordinal(int n) {
        int tens = n % 100;
        String suffix = tens >= 11 && tens <= 13 ? "th" : switch (n % 10) {
            case 1 -> "st";
            case 2 -> "nd";
            case 3 -> "rd";
            default -> "th";
        };
        return n + suffix;
    }

    /** {@code 12.5 ms}, {@code 10 ms}, {@code 1.5 s}, {@code 5 min}: at most three decimals, no trailing zeros. */
    private static String duration(long nanos) {
        long minute = 60_000_000_000L;
        if (nanos >= minute && nanos % minute == 0) {
            return nanos / minute + " min";
        }
        boolean seconds = nanos >= 1_000_000_000L;
        BigDecimal v = BigDecimal.valueOf(nanos).movePointLeft(seconds ? 9 : 6).setScale(3, RoundingMode.HALF_UP);
        return v.stripTrailingZeros().toPlainString() + (seconds ? " s" : " ms");
    }

    private Transition transition(Rule rule, String instanceKey, ScopeView view, Slot slot, AlertState from,
                                  AlertState to, long now) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("alertname", rule.name());
        labels.put("severity", rule.severity().key());
        labels.put("layer", rule.layer().key());
        labels.putAll(new TreeMap<>(view.identity()));
        labels.putAll(rule.labels());
        // what identifies the alert, and what its rule says, win over what merely describes it
        view.context().forEach(labels::putIfAbsent);
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
     * Swaps in a new rule set at {@code now}. Rules that keep their name (and scope) keep their state per
     * instance; every firing alert of a rule that is gone gets a RESOLVED transition on {@code sink}, and the rest
     * of its state is dropped. Runtime errors, disabled rules and back-offs are cleared and the budget's grace
     * starts over: a reload gives every rule a new start, and its new code warms up again.
     */
    public void replace(RuleSet next, long now, Consumer<Transition> sink) {
        Map<String, Rule> kept = new HashMap<>();
        for (Rule r : next.rules()) {
            kept.put(r.name(), r);
        }
        for (Map.Entry<String, Instance> instance : new TreeMap<>(instances).entrySet()) {
            instance.getValue().wake();
            Map<String, Slot> slots = instance.getValue().slots;
            for (Map.Entry<String, Slot> e : new TreeMap<>(slots).entrySet()) {
                Transition last = e.getValue().last;
                Rule successor = kept.get(e.getKey());
                Rule previous = last != null ? last.rule() : e.getValue().streaksOf;
                // a rule that changed scope no longer evaluates this instance, so it counts as gone here; an alert
                // taken back after a restart and not evaluated since has no rule of its own yet and stays
                if (successor != null && (previous == null || successor.scope() == previous.scope())) {
                    continue;
                }
                slots.remove(e.getKey());
                // an alert taken back without its labels has nothing to resolve with; its store resolves it
                if (e.getValue().state == AlertState.FIRING && last != null) {
                    sink.accept(new Transition(last.rule(), last.labels(), AlertState.FIRING, AlertState.RESOLVED,
                            now, last.activeSince(), last.summary(), last.description()));
                }
            }
        }
        errors.clear();
        disabled.clear();
        overruns.clear();
        penalties.clear();
        graceUntil = nanoClock.getAsLong() + budget.grace().toNanos();
        this.set = next;
        this.costs = costsOf(next);
    }

    private static Map<ScopeKind, long[][]> costsOf(RuleSet set) {
        Map<ScopeKind, long[][]> out = new EnumMap<>(ScopeKind.class);
        for (ScopeKind kind : ScopeKind.values()) {
            out.put(kind, new long[set.rules(kind).size()][3]);
        }
        return out;
    }

    /** What a rule's evaluations cost since its rule set was loaded: how many, their mean and the last one. */
    public record Cost(long evaluations, long totalNanos, long lastNanos) {
        /** The mean evaluation in nanoseconds; 0 before the first. */
        public long meanNanos() {
            return evaluations == 0 ? 0 : totalNanos / evaluations;
        }
    }

    /** The cost of the rule called {@code ruleName} so far; zero evaluations for a rule this engine does not run. */
    public Cost cost(String ruleName) {
        for (ScopeKind kind : ScopeKind.values()) {
            List<Rule> rules = set.rules(kind);
            for (int i = 0; i < rules.size(); i++) {
                if (rules.get(i).name().equals(ruleName)) {
                    long[] c = costs.get(kind)[i];
                    return new Cost(c[0], c[1], c[2]);
                }
            }
        }
        return new Cost(0, 0, 0);
    }

    /**
     * Ends an instance that is gone for good (a task whose cards all left): each of its firing alerts gets a
     * RESOLVED transition at {@code now} on {@code sink}, with the labels and summary it fired with, then every
     * state of the instance is dropped.
     */
    public void retire(String instanceKey, long now, Consumer<Transition> sink) {
        Instance instance = instances.remove(instanceKey);
        if (instance == null) {
            return;
        }
        for (Slot slot : new TreeMap<>(instance.slots).values()) {
            if (slot.state == AlertState.FIRING && slot.last != null) {
                Transition last = slot.last;
                sink.accept(new Transition(last.rule(), last.labels(), AlertState.FIRING, AlertState.RESOLVED, now,
                        last.activeSince(), last.summary(), last.description()));
            }
        }
    }

    /** Drops every state of an instance that no longer exists (a card removed, a node gone). */
    public void forget(String instanceKey) {
        instances.remove(instanceKey);
    }

    /** The latest evaluation failure of each rule that has failed, at its {@code when}. */
    public List<Diagnostic> runtimeErrors() {
        return new ArrayList<>(errors.values());
    }

    /** The latest evaluation failure of the rule called {@code ruleName}, if it has failed. */
    public Optional<Diagnostic> runtimeError(String ruleName) {
        return Optional.ofNullable(errors.get(ruleName));
    }

    /** The rules disabled now for overrunning the budget, in the order it happened. */
    public List<DisabledRule> disabled() {
        if (!disabled.isEmpty()) {
            bringBack(nanoClock.getAsLong());
        }
        return new ArrayList<>(disabled.values());
    }

    /** How many evaluations took longer than the budget since the engine started, those in the grace included. */
    public long overruns() {
        return overrunCount;
    }

    /** Overruns within the budget once the process's pauses (garbage collections) during them are taken off. */
    public long pausedOverruns() {
        return pausedOverruns;
    }

    /**
     * Whether rules may sleep (see {@link #evaluate}), as they do by default; without, every rule is evaluated every
     * time: the reference sleeping is tested and measured against.
     */
    public void sleep(boolean allowed) {
        sleeps = allowed;
    }

    /** How many evaluations of a rule on an instance ran since the engine started. */
    public long ran() {
        return ran;
    }

    /**
     * How many evaluations of a rule on an instance were left out since the engine started because the rule slept
     * (see {@link #evaluate}): what that saved.
     */
    public long slept() {
        return slept;
    }

    /** How many times a rule was disabled since the engine started; a rule disabled twice counts twice. */
    public long disablements() {
        return disablements;
    }

    /** How many instances of each rule are PENDING now, by rule name, in one pass over the instances. */
    public Map<String, Integer> pendingByRule() {
        Map<String, Integer> pending = new HashMap<>();
        for (Instance instance : instances.values()) {
            for (Map.Entry<String, Slot> e : instance.slots.entrySet()) {
                if (e.getValue().state == AlertState.PENDING) {
                    pending.merge(e.getKey(), 1, Integer::sum);
                }
            }
        }
        return pending;
    }

    /** How many instances of a rule are in each state now (instances the rule never held for are not counted). */
    public Map<AlertState, Integer> counts(String ruleName) {
        Map<AlertState, Integer> counts = new EnumMap<>(AlertState.class);
        for (AlertState s : AlertState.values()) {
            counts.put(s, 0);
        }
        for (Instance instance : instances.values()) {
            Slot slot = instance.slots.get(ruleName);
            // a slot kept only for consecutive() runs belongs to an instance the rule never held for
            if (slot != null && slot.last != null) {
                counts.merge(slot.state, 1, Integer::sum);
            }
        }
        return counts;
    }

    /**
     * The alerts waiting out their rule's {@code for} now, each as the transition that made it pending (its labels,
     * summary and {@code activeSince}), ordered by when it became pending; the ledger holds only firing ones.
     */
    public List<Transition> pending() {
        List<Transition> out = new ArrayList<>();
        for (Instance instance : instances.values()) {
            for (Slot slot : instance.slots.values()) {
                if (slot.state == AlertState.PENDING && slot.last != null) {
                    out.add(slot.last);
                }
            }
        }
        out.sort(Comparator.comparingLong(Transition::activeSince)
                .thenComparing(t -> t.rule().name()).thenComparing(t -> t.labels().toString()));
        return out;
    }

    /**
     * Takes back an alert that fired before a restart: {@code ruleName} starts out FIRING for the instance since
     * {@code activeSince}, so the next evaluations keep it firing without a new notification or resolve it through
     * the usual path ({@code keep_firing_for} included), instead of the alert staying live for ever. It stays firing
     * for the rule's longest window from its first evaluation, since windows the restart emptied (an XID the event
     * log no longer holds) cannot show yet that the condition is over. Returns false,
     * changing nothing, for a rule that is not loaded (the caller resolves that alert itself).
     */
    public boolean restore(String ruleName, String instanceKey, long activeSince) {
        boolean loaded = set.rules().stream().anyMatch(r -> r.name().equals(ruleName));
        if (!loaded) {
            return false;
        }
        Slot slot = new Slot();
        slot.state = AlertState.FIRING;
        slot.activeSince = activeSince;
        slot.restoredHoldMs = set.rules().stream().filter(r -> r.name().equals(ruleName))
                .mapToLong(Rule::longestWindowMs).findFirst().orElse(0);
        put(instanceKey, ruleName, slot);
        return true;
    }

    /** Every pending and firing alert, for a checkpoint, in no particular order. */
    public List<AlertImage> images() {
        List<AlertImage> out = new ArrayList<>();
        for (Map.Entry<String, Instance> instance : instances.entrySet()) {
            for (Map.Entry<String, Slot> e : instance.getValue().slots.entrySet()) {
                Slot slot = e.getValue();
                if (slot.state == AlertState.PENDING || slot.state == AlertState.FIRING) {
                    Transition last = slot.last;
                    out.add(new AlertImage(e.getKey(), instance.getKey(), slot.state, slot.activeSince,
                            slot.falseSince, last == null ? null : last.labels(),
                            last == null ? null : last.summary(), last == null ? null : last.description()));
                }
            }
        }
        return out;
    }

    /**
     * Takes back an alert a checkpoint held, as it was: a pending one fires once its condition has held for
     * {@code for} since its original start, a firing one resolves through the usual path ({@code keep_firing_for}
     * counted from when its condition turned false, if it had). Until {@code graceUntil} a false condition
     * changes neither, since the windows lack what the probes have yet to re-send. Returns false, changing
     * nothing, for a rule that is not loaded.
     */
    public boolean restore(AlertImage image, long graceUntil) {
        Rule rule = set.rules().stream().filter(r -> r.name().equals(image.rule())).findFirst().orElse(null);
        if (rule == null) {
            return false;
        }
        Slot slot = new Slot();
        slot.state = image.state();
        slot.activeSince = image.activeSince();
        slot.falseSince = image.falseSince();
        slot.graceUntil = graceUntil;
        graced.add(image.instance());
        slot.pendingSinceNanos = nanoClock.getAsLong();
        if (image.labels() != null) {
            AlertState from = image.state() == AlertState.FIRING ? AlertState.PENDING : AlertState.INACTIVE;
            slot.last = new Transition(rule, image.labels(), from, image.state(), image.activeSince(),
                    image.activeSince(), image.summary(), image.description());
        }
        put(image.instance(), image.rule(), slot);
        return true;
    }

    /**
     * Takes back an alert a checkpoint held as firing and the ledger has resolved at {@code resolvedAt} since: it
     * stays resolved as of then, whatever a re-sent backlog from before that shows, and until {@code graceUntil}
     * (or its node's hello) a true condition does not fire it again, since the data that ended it is not in the
     * windows yet. Not kept by a later checkpoint. Returns false, changing nothing, for a rule that is not loaded.
     */
    public boolean restoreResolved(AlertImage image, long resolvedAt, long graceUntil) {
        Rule rule = set.rules().stream().filter(r -> r.name().equals(image.rule())).findFirst().orElse(null);
        if (rule == null) {
            return false;
        }
        Slot slot = new Slot();
        slot.state = AlertState.RESOLVED;
        slot.activeSince = image.activeSince();
        slot.graceUntil = graceUntil;
        graced.add(image.instance());
        slot.last = new Transition(rule, image.labels() == null ? Map.of() : image.labels(), AlertState.FIRING,
                AlertState.RESOLVED, resolvedAt, image.activeSince(), image.summary(), image.description());
        put(image.instance(), image.rule(), slot);
        return true;
    }

    /**
     * Ends the grace of the restored alerts of instance {@code key} and of every instance whose key starts with
     * {@code keyPrefix}, whose data is flowing again (their node said hello after the restart): from now on their
     * conditions decide as usual. Costs the logarithm of the alerts in their grace, once per hello.
     */
    public void endGrace(String key, String keyPrefix) {
        if (graced.isEmpty()) {
            return;
        }
        List<String> ending = new ArrayList<>(graced.subSet(keyPrefix, true, keyPrefix + Character.MAX_VALUE, false));
        if (graced.contains(key)) {
            ending.add(key);
        }
        for (String k : ending) {
            graced.remove(k);
            Instance instance = instances.get(k);
            if (instance != null) {
                instance.slots.values().forEach(slot -> slot.graceUntil = Long.MIN_VALUE);
            }
        }
    }

    /** The current state of a rule for an instance. */
    public AlertState state(String ruleName, String instanceKey) {
        Instance instance = instances.get(instanceKey);
        Slot slot = instance == null ? null : instance.slots.get(ruleName);
        return slot == null ? AlertState.INACTIVE : slot.state;
    }

    /** Puts an alert state taken from outside an evaluation (a restart's) on an instance, waking its rules. */
    private void put(String instanceKey, String ruleName, Slot slot) {
        Instance instance = instances.computeIfAbsent(instanceKey, k -> new Instance());
        instance.slots.put(ruleName, slot);
        instance.wake();
    }
}
