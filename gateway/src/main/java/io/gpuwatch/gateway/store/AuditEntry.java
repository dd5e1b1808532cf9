package io.gpuwatch.gateway.store;

import java.time.Instant;
import java.util.Objects;

/**
 * One change made through the API or by a paging service: {@code who} (a token's name, or {@code local} on
 * an open loopback API) did {@code action} (e.g. {@code silence.create}) to {@code target} (a silence id, an
 * alert fingerprint) at {@code at}, from {@code remote} (the peer's address). {@code id} is 0 until stored.
 */
public record AuditEntry(long id, Instant at, String who, String action, String target, String detail,
                         String remote) {
    public AuditEntry {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(who, "who");
        Objects.requireNonNull(action, "action");
        target = target == null ? "" : target;
        detail = detail == null ? "" : detail;
        remote = remote == null ? "" : remote;
    }
}
