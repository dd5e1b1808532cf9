package io.gpuwatch.offline.score;

import io.gpuwatch.gateway.replay.Replay;
import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.Severity;
import io.gpuwatch.rules.scope.ScopeKind;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Collects the firing notifications of one replay as the scorer sees them: resolutions are left out, and each
 * keeps the scope its rule watches, its {@code severity} and {@code action} labels as the pack set them.
 */
public final class Firings implements Consumer<Replay.Sent> {
    private final Map<String, ScopeKind> scopes = new HashMap<>();
    private final List<Fired> fired = new ArrayList<>();

    /** A collector for notifications of {@code rules}. */
    public Firings(RuleSet rules) {
        for (Rule r : rules.rules()) {
            scopes.put(r.name(), r.scope());
        }
    }

    @Override
    public void accept(Replay.Sent s) {
        if (!s.firing()) {
            return;
        }
        Map<String, String> labels = s.notification().labels();
        ScopeKind scope = scopes.get(s.rule());
        fired.add(new Fired(s.rule(), severity(labels.get("severity")), labels.get("action"),
                scope != null ? scope : scopeOf(s.scope()), s.scope(), s.at()));
    }

    /** What was collected so far, in the order fired. */
    public List<Fired> fired() {
        return List.copyOf(fired);
    }

    private static Severity severity(String label) {
        for (Severity s : Severity.values()) {
            if (s.key().equals(label)) {
                return s;
            }
        }
        return null;
    }

    /** The narrowest scope the labels name, for a notification of a rule the pack does not know. */
    private static ScopeKind scopeOf(Map<String, String> scope) {
        if (scope.containsKey("uuid")) {
            return ScopeKind.CARD;
        }
        if (scope.containsKey("task")) {
            return scope.containsKey("node") ? ScopeKind.REPLICA : ScopeKind.TASK;
        }
        if (scope.containsKey("business")) {
            return ScopeKind.BUSINESS;
        }
        return scope.containsKey("queue") ? ScopeKind.QUEUE : ScopeKind.NODE;
    }
}
