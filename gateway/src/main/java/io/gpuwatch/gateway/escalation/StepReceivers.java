package io.gpuwatch.gateway.escalation;

import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.oncall.OnCall;

import java.util.Optional;
import java.util.function.Function;

/** Makes the receivers a step pages through: a configured receiver made anew with the step's mentions. */
@FunctionalInterface
public interface StepReceivers {
    /**
     * The receiver configured as {@code name}, its messages mentioning whom {@code mentions} gives for its channel
     * ({@code slack}, {@code feishu}, …) instead of its own {@code mention:}; empty when no receiver has that name.
     */
    Optional<Receiver> make(String name, Function<String, OnCall> mentions);
}
