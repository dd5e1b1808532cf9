package io.gpuwatch.gateway.route;

import io.gpuwatch.rules.source.Diagnostic;

import java.util.List;

/** The outcome of reading an alerting config: the config when no error was found, and every diagnostic. */
public record RoutingLoad(RoutingConfig config, List<Diagnostic> diagnostics) {
    public RoutingLoad {
        diagnostics = List.copyOf(diagnostics);
    }

    /** True when there is a config, i.e. no diagnostic is an error. */
    public boolean ok() {
        return config != null;
    }

    /** The errors only. */
    public List<Diagnostic> errors() {
        return diagnostics.stream().filter(d -> d.level() == Diagnostic.Level.ERROR).toList();
    }

    static RoutingLoad failed(String file, String message) {
        return new RoutingLoad(null, List.of(Diagnostic.error(file, 0, 0, message)));
    }
}
