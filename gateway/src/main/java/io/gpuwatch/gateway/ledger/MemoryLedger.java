package io.gpuwatch.gateway.ledger;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.alert.AlertLinks;
import io.gpuwatch.gateway.alert.Fingerprint;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.rules.eval.AlertState;
import io.gpuwatch.rules.eval.Transition;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** The ledger held in memory on the gateway's event loop, with a bounded history of ended alerts. */
public final class MemoryLedger implements AlertLedger {
    private final Map<String, Alert> live = new LinkedHashMap<>();
    private final Deque<Alert> history = new ArrayDeque<>();
    private final int historyLimit;
    private final AlertLinks links;

    /** A ledger linking its alerts to {@code externalUrl}, runbooks as their rules write them. */
    public MemoryLedger(int historyLimit, String externalUrl) {
        this(historyLimit, AlertLinks.of(externalUrl));
    }

    public MemoryLedger(int historyLimit, AlertLinks links) {
        this.historyLimit = historyLimit;
        this.links = links;
    }

    /** What one transition changed: the alert as it now stands and the notification that tells of it. */
    record Change(Alert alert, Notification notification) {
    }

    @Override
    public void apply(Transition t, Consumer<Notification> out) {
        change(t, c -> out.accept(c.notification()));
    }

    /** Applies a transition like {@link #apply}, handing on the changed alert along with its notification. */
    void change(Transition t, Consumer<Change> out) {
        String fp = Fingerprint.of(t);
        if (t.to() == AlertState.FIRING) {
            if (live.containsKey(fp)) {
                return;
            }
            Alert alert = Alert.of(t, AlertState.FIRING, links);
            live.put(fp, alert);
            out.accept(new Change(alert, notification(alert)));
        } else if (t.to() == AlertState.RESOLVED || t.to() == AlertState.INACTIVE) {
            Alert alert = live.remove(fp);
            if (alert == null) {
                return;
            }
            // the resolution repeats what the page said, so a reader can match the two
            Alert ended = alert.resolved(t.at());
            history.addFirst(ended);
            trimHistory();
            out.accept(new Change(ended, notification(ended)));
        }
    }

    @Override
    public Alert pending(Transition t) {
        return Alert.of(t, AlertState.PENDING, links);
    }

    /**
     * Puts back an alert a store kept: a firing one becomes live again, so its next firing transition is no
     * news; an ended one joins the history after those restored before it (restore newest first).
     */
    void restore(Alert a) {
        if (a.state() == AlertState.FIRING) {
            live.put(a.fingerprint(), a);
        } else {
            history.addLast(a);
            trimHistory();
        }
    }

    private void trimHistory() {
        while (history.size() > historyLimit) {
            history.removeLast();
        }
    }

    /** The notification that tells of {@code a} as it stands; it starts when the alert fired, not when sent. */
    @Override
    public Notification notification(Alert a) {
        boolean firing = a.state() == AlertState.FIRING;
        return new Notification(a.fingerprint(), firing ? Notification.Status.FIRING : Notification.Status.RESOLVED,
                a.labels(), a.annotations(), Instant.ofEpochMilli(a.firedAt()),
                firing ? null : Instant.ofEpochMilli(a.resolvedAt()), links.generatorUrl(a.fingerprint()));
    }

    @Override
    public List<Alert> live() {
        return List.copyOf(live.values());
    }

    @Override
    public List<Alert> history() {
        return new ArrayList<>(history);
    }
}
