package io.gpuwatch.notify;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One alert as a receiver sees it at the moment it is notified. Labels identify it ({@code alertname},
 * {@code severity}, {@code node}, {@code uuid}, …); annotations describe it ({@code summary},
 * {@code description}, {@code runbook} when present). {@code endsAt} is null while the alert fires and set once
 * it has resolved; {@code generatorUrl} points back at the alert in the gateway, empty when there is none.
 */
public record Notification(String fingerprint, Status status, Map<String, String> labels,
                           Map<String, String> annotations, Instant startsAt, Instant endsAt, String generatorUrl) {
    /** Whether the alert still fires or has ended. */
    public enum Status { FIRING, RESOLVED }

    public Notification {
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(startsAt, "startsAt");
        labels = Map.copyOf(labels);
        annotations = Map.copyOf(annotations);
        generatorUrl = generatorUrl == null ? "" : generatorUrl;
        if (status == Status.FIRING && endsAt != null) {
            throw new IllegalArgumentException("notification " + fingerprint + " fires, so it has no endsAt");
        }
        if (status == Status.RESOLVED && endsAt == null) {
            throw new IllegalArgumentException("notification " + fingerprint + " is resolved but has no endsAt");
        }
    }
}
