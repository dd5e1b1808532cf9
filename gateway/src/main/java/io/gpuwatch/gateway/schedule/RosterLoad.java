package io.gpuwatch.gateway.schedule;

import io.gpuwatch.rules.source.Diagnostic;

import java.util.List;

/** The outcome of reading an on-call file: the roster when no error was found, and every diagnostic. */
public record RosterLoad(Roster roster, List<Diagnostic> diagnostics) {
    public RosterLoad {
        diagnostics = List.copyOf(diagnostics);
    }

    /** True when there is a roster, i.e. no diagnostic is an error. */
    public boolean ok() {
        return roster != null;
    }

    /** The errors only. */
    public List<Diagnostic> errors() {
        return diagnostics.stream().filter(d -> d.level() == Diagnostic.Level.ERROR).toList();
    }

    static RosterLoad failed(String file, String message) {
        return new RosterLoad(null, List.of(Diagnostic.error(file, 0, 0, message)));
    }
}
