package io.gpuwatch.gateway.ledger;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.rules.eval.Transition;

import java.util.List;
import java.util.function.Consumer;

/**
 * Keeps one live alert per fingerprint and turns rule transitions into notifications: one when an alert starts
 * firing, one when it resolves, none for a condition that merely stays true. An interface so that a
 * persistent or replicated ledger can take the in-memory one's place.
 */
public interface AlertLedger {
    /** Applies a transition; any notification it causes goes to {@code out}. */
    void apply(Transition transition, Consumer<Notification> out);

    /** Alerts firing now, oldest first. */
    List<Alert> live();

    /** Ended alerts, newest first, as many as the ledger keeps. */
    List<Alert> history();

    /** The alert a pending transition will become when it fires, linked as this ledger links its alerts. */
    Alert pending(Transition t);

    /** The notification that tells of {@code alert} as it stands, with the link back to it. */
    Notification notification(Alert alert);
}
