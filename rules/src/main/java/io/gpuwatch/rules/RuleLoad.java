package io.gpuwatch.rules;

import io.gpuwatch.rules.source.Diagnostic;
import java.util.List;

/** The outcome of loading rule files: the rule set (null when any error was found) and every diagnostic. */
public record RuleLoad(RuleSet ruleSet, List<Diagnostic> diagnostics) {
    public RuleLoad {
        diagnostics = List.copyOf(diagnostics);
    }

    /** True when there is no error (warnings may remain) and {@link #ruleSet()} is usable. */
    public boolean ok() {
        return ruleSet != null;
    }
}
