package io.gpuwatch.probe.http;

/** What one fetch gave: the value read from the answer, or why there is none. */
public sealed interface Fetched<T> {
    /** The answer's value. */
    record Ok<T>(T value) implements Fetched<T> {
    }

    /** No value: {@code why} says what went wrong, without the target, which the caller names. */
    record Failed<T>(String why) implements Fetched<T> {
    }
}
