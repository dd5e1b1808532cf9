package io.gpuwatch.gateway.ledger;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.rules.eval.AlertState;
import io.gpuwatch.rules.eval.Transition;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** The ledger held in memory on the gateway's event loop, with a bounded history of ended alerts. */
public final class MemoryLedger implements AlertLedger {
    private final Map<String, Alert> live = new LinkedHashMap<>();
    private final Deque<Alert> history = new ArrayDeque<>();
    private final int historyLimit;
    private final String externalUrl;

    public MemoryLedger(int historyLimit, String externalUrl) {
        this.historyLimit = historyLimit;
        this.externalUrl = externalUrl;
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
        String rule = t.rule().name();
        String fp = Fingerprint.of(rule, scopeLabels(t));
        if (t.to() == AlertState.FIRING) {
            if (live.containsKey(fp)) {
                return;
            }
            Alert alert = new Alert(fp, rule, t.labels().getOrDefault("severity", ""), t.labels(),
                    annotations(t), t.activeSince(), t.at(), 0, AlertState.FIRING);
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

    /** The labels that name the scope instance: the transition's labels less the rule's own. */
    private static Map<String, String> scopeLabels(Transition t) {
        Map<String, String> scope = new HashMap<>(t.labels());
        scope.remove("alertname");
        scope.remove("severity");
        scope.remove("layer");
        scope.keySet().removeAll(t.rule().labels().keySet());
        return scope;
    }

    private static Map<String, String> annotations(Transition t) {
        Map<String, String> a = new LinkedHashMap<>();
        if (t.summary() != null && !t.summary().isEmpty()) {
            a.put("summary", t.summary());
        }
        if (t.description() != null && !t.description().isEmpty()) {
            a.put("description", t.description());
        }
        String runbook = t.rule().runbook();
        if (runbook != null && !runbook.isEmpty()) {
            a.put("runbook", runbook);
        }
        return a;
    }

    @Override
    public Notification notification(Alert a) {
        boolean firing = a.state() == AlertState.FIRING;
        return new Notification(a.fingerprint(), firing ? Notification.Status.FIRING : Notification.Status.RESOLVED,
                a.labels(), a.annotations(), Instant.ofEpochMilli(a.activeSince()),
                firing ? null : Instant.ofEpochMilli(a.resolvedAt()),
                externalUrl + "/api/v1/alerts/" + a.fingerprint());
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
