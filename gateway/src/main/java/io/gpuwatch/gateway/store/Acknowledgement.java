package io.gpuwatch.gateway.store;

import java.time.Instant;
import java.util.Objects;

/**
 * Someone (or a paging service, per {@code source}) acknowledged the alert {@code fingerprint}.
 * {@code source} is where it came from, e.g. {@code api}, {@code pagerduty}.
 */
public record Acknowledgement(String fingerprint, String by, Instant at, String comment, String source) {
    public Acknowledgement {
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(by, "by");
        Objects.requireNonNull(at, "at");
        comment = comment == null ? "" : comment;
        source = source == null ? "" : source;
    }
}
