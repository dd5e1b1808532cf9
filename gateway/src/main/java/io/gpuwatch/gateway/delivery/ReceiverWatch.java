package io.gpuwatch.gateway.delivery;

import io.gpuwatch.gateway.alert.Fingerprint;
import io.gpuwatch.notify.Notification;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Notices a receiver that has failed every delivery for longer than {@code failingAfter} and turns that into a
 * meta-alert ({@code alertname=gpuwatch-receiver-failing}, {@code severity=page}, {@code receiver=<name>}),
 * resolved by its next success. Owned by the delivery stage's context.
 */
public final class ReceiverWatch {
    /** The alertname of the meta-alert. */
    public static final String ALERTNAME = "gpuwatch-receiver-failing";

    private final Duration failingAfter;
    private final Map<String, Failing> failing = new HashMap<>();
    private final List<Notification> due = new ArrayList<>();

    private static final class Failing {
        final Instant since;
        String lastError;
        boolean raised;

        Failing(Instant since, String lastError) {
            this.since = since;
            this.lastError = lastError;
        }
    }

    public ReceiverWatch(Duration failingAfter) {
        if (failingAfter.isNegative()) {
            throw new IllegalArgumentException("failingAfter must not be negative, got " + failingAfter);
        }
        this.failingAfter = failingAfter;
    }

    /** A delivery to {@code receiver} failed at {@code at}. */
    public void failed(String receiver, Instant at, String error) {
        failing.computeIfAbsent(receiver, r -> new Failing(at, error)).lastError = error;
    }

    /** A delivery to {@code receiver} succeeded at {@code at}: it is healthy again. */
    public void succeeded(String receiver, Instant at) {
        Failing f = failing.remove(receiver);
        if (f != null && f.raised) {
            due.add(meta(receiver, f, at));
        }
    }

    /** Meta-alert changes due at {@code now}: new failing receivers, and recoveries since the last call. */
    public List<Notification> due(Instant now) {
        for (Map.Entry<String, Failing> e : failing.entrySet()) {
            Failing f = e.getValue();
            if (!f.raised && !now.isBefore(f.since.plus(failingAfter))) {
                f.raised = true;
                due.add(meta(e.getKey(), f, null));
            }
        }
        List<Notification> out = List.copyOf(due);
        due.clear();
        return out;
    }

    /** Receivers whose meta-alert fires now. */
    public List<String> raised() {
        return failing.entrySet().stream().filter(e -> e.getValue().raised).map(Map.Entry::getKey).sorted().toList();
    }

    /** The fingerprint of the meta-alert about {@code receiver}. */
    public static String fingerprint(String receiver) {
        return Fingerprint.of(ALERTNAME, Map.of("receiver", receiver));
    }

    private Notification meta(String receiver, Failing f, Instant resolvedAt) {
        Map<String, String> labels = Map.of("alertname", ALERTNAME, "severity", "page", "receiver", receiver);
        Map<String, String> annotations = Map.of(
                "summary", "receiver " + receiver + " has failed every delivery since " + f.since,
                "description", "last error: " + f.lastError);
        return new Notification(fingerprint(receiver),
                resolvedAt == null ? Notification.Status.FIRING : Notification.Status.RESOLVED, labels, annotations,
                f.since, resolvedAt, "");
    }
}
