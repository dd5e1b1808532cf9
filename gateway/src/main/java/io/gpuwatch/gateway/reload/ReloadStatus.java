package io.gpuwatch.gateway.reload;

import io.gpuwatch.rules.source.Diagnostic;

import java.time.Instant;
import java.util.List;

/**
 * The outcome of one reload: when, what asked for it ({@code startup}, {@code file change}, {@code SIGHUP},
 * {@code http}), whether the new rules took over, how many rules run now (the old ones after a failure), and
 * every diagnostic of the load, errors and warnings, with their positions.
 */
public record ReloadStatus(Instant at, String trigger, boolean ok, int rules, List<Diagnostic> diagnostics) {
    public ReloadStatus {
        diagnostics = List.copyOf(diagnostics);
    }

    /** {@code 1 rule}, {@code 12 rules}. */
    public static String count(int rules) {
        return rules + (rules == 1 ? " rule" : " rules");
    }

    /** The diagnostics one per line, {@code file:line:col: error: …}, as compilers print them. */
    public String text() {
        StringBuilder b = new StringBuilder();
        for (Diagnostic d : diagnostics) {
            b.append(d).append('\n');
        }
        return b.toString();
    }
}
