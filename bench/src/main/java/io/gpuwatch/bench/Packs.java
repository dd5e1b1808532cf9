package io.gpuwatch.bench;

import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;

import java.nio.file.Path;
import java.util.List;

/** The rule packs the benchmarks run: loaded from a path, or the setup fails saying why. */
final class Packs {
    private Packs() {
    }

    /** The rules of the files or directories at {@code path}; an error names each diagnostic. */
    static RuleSet load(String path) {
        RuleLoad load = RuleSet.load(List.of(Path.of(path)));
        if (!load.ok()) {
            throw new IllegalStateException("cannot load " + path + ": " + load.diagnostics());
        }
        return load.ruleSet();
    }
}
