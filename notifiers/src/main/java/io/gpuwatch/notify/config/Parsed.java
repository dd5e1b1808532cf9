package io.gpuwatch.notify.config;

import java.util.List;

/** A configuration read from plain maps: the value (null when anything was wrong) and every problem found. */
public record Parsed<T>(T value, List<ConfigProblem> problems) {
    public Parsed {
        problems = List.copyOf(problems);
        if (value == null && problems.isEmpty()) {
            throw new IllegalArgumentException("a parse without a value must say why");
        }
        if (value != null && !problems.isEmpty()) {
            throw new IllegalArgumentException("a parse with problems has no value");
        }
    }

    /** A clean parse. */
    public static <T> Parsed<T> of(T value) {
        return new Parsed<>(value, List.of());
    }

    /** A parse that found problems. */
    public static <T> Parsed<T> failed(List<ConfigProblem> problems) {
        return new Parsed<>(null, problems);
    }

    /** True when {@link #value()} is usable. */
    public boolean ok() {
        return problems.isEmpty();
    }
}
