package io.gpuwatch.gateway.alert;

import io.gpuwatch.rules.eval.Transition;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/** The identity of an alert: rule name plus the labels of its scope instance, as 16 hex digits (FNV-1a 64). */
public final class Fingerprint {
    private static final long OFFSET = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;

    private Fingerprint() {
    }

    /** Same rule and same scope labels give the same fingerprint, whatever the map's order. */
    public static String of(String rule, Map<String, String> scopeLabels) {
        long h = OFFSET;
        h = mix(h, rule);
        for (Map.Entry<String, String> e : new TreeMap<>(scopeLabels).entrySet()) {
            h = mix(h, e.getKey());
            h = mix(h, e.getValue());
        }
        return String.format("%016x", h);
    }

    /** The fingerprint of the alert a transition speaks of: its rule and the labels of its scope instance. */
    public static String of(Transition t) {
        return of(t.rule().name(), scopeLabels(t));
    }

    /**
     * The labels that name the scope instance: its identity labels less any the rule sets itself. Context labels
     * (node labels, a card's task) stay out, so a task change between firing and resolving is the same alert.
     */
    private static Map<String, String> scopeLabels(Transition t) {
        Map<String, String> scope = new HashMap<>();
        for (String name : t.rule().scope().identityLabels()) {
            String v = t.labels().get(name);
            if (v != null && !t.rule().labels().containsKey(name)) {
                scope.put(name, v);
            }
        }
        return scope;
    }

    private static long mix(long h, String s) {
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= PRIME;
        }
        // a separator byte keeps ("ab","c") and ("a","bc") apart
        h ^= 0xff;
        h *= PRIME;
        return h;
    }
}
