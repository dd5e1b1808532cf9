package io.gpuwatch.rules;

import io.gpuwatch.rules.dsl.Expression;
import io.gpuwatch.rules.dsl.Template;
import io.gpuwatch.rules.scope.Reads;
import io.gpuwatch.rules.scope.ScopeKind;
import io.gpuwatch.rules.scope.ScopeView;
import io.gpuwatch.rules.source.Diagnostic;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One compiled rule of a rule file. Evaluating it reuses per-rule state, so a rule is evaluated by one thread
 * at a time (the rule engine's contract).
 */
public final class Rule {
    private final String name;
    private final String group;
    private final Layer layer;
    private final ScopeKind scope;
    private final Severity severity;
    private final long forMs;
    private final long keepFiringForMs;
    private final Map<String, String> labels;
    private final String runbook;
    private final String file;
    private final int line;
    private final int whenLine;
    private final int whenColumn;
    private final Expression when;
    /** Keeps a firing alert open while it holds (a fault not yet shown recovered); null when the rule has none. */
    private final Expression keepFiringWhile;
    private final Template summary;
    private final Template description;
    private final Reads sleepsOn;

    Rule(String name, String group, Layer layer, ScopeKind scope, Severity severity, long forMs,
         long keepFiringForMs, Map<String, String> labels, String runbook, String file, int line, int whenLine,
         int whenColumn, Expression when, Expression keepFiringWhile, Template summary, Template description) {
        this.name = name;
        this.group = group;
        this.layer = layer;
        this.scope = scope;
        this.severity = severity;
        this.forMs = forMs;
        this.keepFiringForMs = keepFiringForMs;
        this.labels = Map.copyOf(labels);
        this.runbook = runbook;
        this.file = file;
        this.line = line;
        this.whenLine = whenLine;
        this.whenColumn = whenColumn;
        this.when = when;
        this.keepFiringWhile = keepFiringWhile;
        this.summary = summary;
        this.description = description;
        this.sleepsOn = when.streaks() == 0 ? when.sleepsOn() : null;
    }

    public String name() {
        return name;
    }

    public String group() {
        return group;
    }

    public Layer layer() {
        return layer;
    }

    public ScopeKind scope() {
        return scope;
    }

    public Severity severity() {
        return severity;
    }

    /** How long {@code when} must hold before the rule fires; 0 fires at once. */
    public long forMs() {
        return forMs;
    }

    /** How long a firing rule stays firing after {@code when} turned false. */
    public long keepFiringForMs() {
        return keepFiringForMs;
    }

    /** The static labels of the rule, its group's defaults merged under its own. */
    public Map<String, String> labels() {
        return labels;
    }

    /** The runbook link, or an empty string. */
    public String runbook() {
        return runbook;
    }

    public String file() {
        return file;
    }

    /** The line of the rule's entry in its file, 1-based. */
    public int line() {
        return line;
    }

    /** The {@code when} expression in canonical form. */
    public String when() {
        return when.canonical();
    }

    /** Where {@code when} starts in the file, for runtime diagnostics. */
    public Diagnostic runtimeError(String message) {
        return Diagnostic.error(file, whenLine, whenColumn, message);
    }

    /** Evaluates {@code when} against the view at {@code view.now()}, as a first evaluation (no streaks yet). */
    public boolean test(ScopeView v) {
        try {
            return when.test(v);
        } catch (RuntimeException e) {
            throw new RuleEvaluationException(this, "when", e);
        }
    }

    /** The {@code keep_firing_while} condition in canonical form, or null when the rule has none. */
    public String keepFiringWhile() {
        return keepFiringWhile == null ? null : keepFiringWhile.canonical();
    }

    /**
     * Whether {@code keep_firing_while} holds for the view: a firing alert whose {@code when} turned false stays
     * firing while it does. False for a rule without one.
     */
    public boolean keepsFiring(ScopeView v) {
        if (keepFiringWhile == null) {
            return false;
        }
        try {
            return keepFiringWhile.test(v);
        } catch (RuntimeException e) {
            throw new RuleEvaluationException(this, "keep_firing_while", e);
        }
    }

    /**
     * The metrics whose learned baselines {@code when} and {@code keep_firing_while} compare with: while the rule is
     * pending or firing on an instance, those baselines must not learn from that instance's business, or a long
     * anomaly would become its own normal.
     */
    public Set<String> baselined() {
        if (keepFiringWhile == null || keepFiringWhile.baselined().isEmpty()) {
            return when.baselined();
        }
        Set<String> all = new TreeSet<>(when.baselined());
        all.addAll(keepFiringWhile.baselined());
        return Set.copyOf(all);
    }

    /** The longest window {@code when} reads, in milliseconds: how much data it needs to judge. */
    public long longestWindowMs() {
        return when.longestWindowMs();
    }

    /**
     * What {@code when} reads, when it is a condition that stays false while none of that changes (see
     * {@link io.gpuwatch.rules.dsl.Expression#sleepsOn()}); null when it must run every time, among them every
     * rule that counts {@code consecutive} runs.
     */
    public Reads sleepsOn() {
        return sleepsOn;
    }

    /**
     * True when {@code when}, once false, can tell until when it stays false whatever samples arrive (see
     * {@link io.gpuwatch.rules.dsl.Expression#quietUntil}); never for a rule that counts {@code consecutive} runs.
     */
    public boolean quiets() {
        return when.streaks() == 0 && when.quiets();
    }

    /**
     * For {@code when} false on {@code v} now: the earliest instant it could hold, or {@link Long#MIN_VALUE}. An
     * error reading the view answers {@link Long#MIN_VALUE}, so the rule is evaluated, and reports it, as before.
     */
    public long quietUntil(ScopeView v) {
        try {
            return when.quietUntil(v);
        } catch (RuntimeException e) {
            return Long.MIN_VALUE;
        }
    }

    /** How many {@code consecutive(cond, n)} runs an instance of this rule keeps: the length of its streak array. */
    public int streaks() {
        return when.streaks();
    }

    /**
     * One evaluation of an instance that keeps {@code streaks} ({@link #streaks()} long) between evaluations:
     * counts this evaluation into every {@code consecutive} run when {@code newPeriod} (see
     * {@link ScopeView#period()}), then evaluates {@code when}.
     */
    public boolean test(ScopeView v, int[] streaks, boolean newPeriod) {
        try {
            if (newPeriod) {
                when.advance(v, streaks);
            }
            return when.test(v, streaks);
        } catch (RuntimeException e) {
            throw new RuleEvaluationException(this, "when", e);
        }
    }

    /** The summary for this view; without a summary in the file, the rule name and the scope's identity. */
    public String renderSummary(ScopeView v) {
        if (summary.isEmpty()) {
            return name + " on " + String.join("/", new TreeMap<>(v.identity()).values());
        }
        return render(summary, "summary", v);
    }

    /** The description for this view, or an empty string. */
    public String renderDescription(ScopeView v) {
        return render(description, "description", v);
    }

    /** Compiles what rendering the summary and description takes now rather than at the first render. */
    public void prepareRendering() {
        summary.prepare();
        description.prepare();
    }

    /** Whether the summary and description render without compiling first. */
    public boolean renderingPrepared() {
        return summary.prepared() && description.prepared();
    }

    private String render(Template t, String what, ScopeView v) {
        try {
            return t.render(v);
        } catch (RuntimeException e) {
            throw new RuleEvaluationException(this, what, e);
        }
    }

    @Override
    public String toString() {
        return name + " (" + file + ":" + line + ")";
    }
}
