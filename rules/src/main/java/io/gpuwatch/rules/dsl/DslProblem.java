package io.gpuwatch.rules.dsl;

/** A problem in one expression or template, at a character offset into its source text. */
public record DslProblem(int offset, String message) {
}
