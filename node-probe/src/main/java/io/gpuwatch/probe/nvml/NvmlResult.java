package io.gpuwatch.probe.nvml;

import java.util.function.Function;

/** The outcome of an NVML call: a value, or the error NVML returned. */
public sealed interface NvmlResult<T> {
    /** The call succeeded. */
    record Ok<T>(T value) implements NvmlResult<T> {
    }

    /** The call failed. */
    record Failed<T>(NvmlError error) implements NvmlResult<T> {
    }

    static <T> NvmlResult<T> ok(T value) {
        return new Ok<>(value);
    }

    static <T> NvmlResult<T> failed(NvmlReturn code, String function, String message) {
        return new Failed<>(new NvmlError(code, function, message));
    }

    /** This result with the value transformed; a failure passes through. */
    default <U> NvmlResult<U> map(Function<? super T, ? extends U> f) {
        if (this instanceof Ok<T> ok) {
            return new Ok<>(f.apply(ok.value()));
        }
        return new Failed<>(((Failed<T>) this).error());
    }

    /** The result of the next call when this one succeeded; a failure passes through. */
    default <U> NvmlResult<U> then(Function<? super T, NvmlResult<U>> f) {
        if (this instanceof Ok<T> ok) {
            return f.apply(ok.value());
        }
        return new Failed<>(((Failed<T>) this).error());
    }

    /** The value, or {@code fallback} when the call failed. */
    default T orElse(T fallback) {
        return this instanceof Ok<T> ok ? ok.value() : fallback;
    }

    /** The error, or null when the call succeeded. */
    default NvmlError error() {
        return this instanceof Failed<T> f ? f.error() : null;
    }
}
