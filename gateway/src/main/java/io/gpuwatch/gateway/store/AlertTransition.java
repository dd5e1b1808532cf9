package io.gpuwatch.gateway.store;

import io.gpuwatch.rules.eval.AlertState;

import java.time.Instant;

/**
 * One recorded change of an alert's state; {@code from} is null for the first record of a fingerprint.
 * {@code seq} orders all transitions in the store.
 */
public record AlertTransition(long seq, String fingerprint, String rule, AlertState from, AlertState to,
                              Instant at) {
}
