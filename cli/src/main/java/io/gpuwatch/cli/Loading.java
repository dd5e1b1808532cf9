package io.gpuwatch.cli;

import io.gpuwatch.rules.Diagnostic;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

/** Loads rule files for a command, printing every diagnostic with its position. */
final class Loading {
    private Loading() {
    }

    /** The rule set, or null after printing why it could not be loaded. */
    static RuleSet rules(List<Path> paths, PrintWriter err) {
        List<Path> use = paths == null || paths.isEmpty() ? List.of(Home.resolve("examples/rules")) : paths;
        RuleLoad load = RuleSet.load(use);
        for (Diagnostic d : load.diagnostics()) {
            err.println(d);
        }
        err.flush();
        return load.ok() ? load.ruleSet() : null;
    }
}
