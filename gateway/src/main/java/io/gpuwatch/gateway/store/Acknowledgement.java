package io.gpuwatch.gateway.store;

import java.time.Instant;
import java.util.Objects;

/**
 * Someone (or a paging service, per {@code source}) acknowledged the alert {@code fingerprint}, or, when
 * {@code withdrawn}, took that acknowledgement back. {@code source} is where it came from, e.g. {@code api},
 * {@code pagerduty}. The newest of an alert's is the one in force, so a withdrawal is kept, and shared, as one.
 */
public record Acknowledgement(String fingerprint, String by, Instant at, String comment, String source,
                              boolean withdrawn) {
    public Acknowledgement {
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(by, "by");
        Objects.requireNonNull(at, "at");
        comment = comment == null ? "" : comment;
        source = source == null ? "" : source;
    }

    /** An acknowledgement given. */
    public Acknowledgement(String fingerprint, String by, Instant at, String comment, String source) {
        this(fingerprint, by, at, comment, source, false);
    }
}
