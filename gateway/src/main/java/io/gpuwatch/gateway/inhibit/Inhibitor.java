package io.gpuwatch.gateway.inhibit;

import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.notify.Notification;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Decides which alerts are inhibited by which firing ones. It learns the firing alerts from {@link #observe};
 * a source alert inhibits while it fires, even when it is itself silenced, and never inhibits itself.
 */
public final class Inhibitor {
    private final List<InhibitRule> rules;
    /** Per rule: the firing source alerts by their {@code equal} label values. */
    private final List<Map<List<String>, Map<String, Source>>> sources = new ArrayList<>();
    private final Map<String, Map<String, String>> firing = new HashMap<>();

    private record Source(String fingerprint, boolean alsoTarget) {
    }

    public Inhibitor(List<InhibitRule> rules) {
        this.rules = List.copyOf(rules);
        for (int i = 0; i < this.rules.size(); i++) {
            sources.add(new HashMap<>());
        }
    }

    /** Takes note of an alert's current state: firing alerts can inhibit, resolved ones stop. */
    public void observe(Notification alert) {
        observe(alert.fingerprint(), alert.labels(), alert.status() == Notification.Status.FIRING);
    }

    /** Takes note of an alert's current state by fingerprint and labels. */
    public void observe(String fingerprint, Map<String, String> labels, boolean isFiring) {
        Map<String, String> before = firing.remove(fingerprint);
        if (before != null) {
            forEachSourceRule(before, (i, rule) -> {
                Map<List<String>, Map<String, Source>> byValues = sources.get(i);
                List<String> values = rule.equalValues(before);
                Map<String, Source> set = byValues.get(values);
                if (set != null) {
                    set.remove(fingerprint);
                    if (set.isEmpty()) {
                        byValues.remove(values);
                    }
                }
            });
        }
        if (!isFiring) {
            return;
        }
        Map<String, String> copy = Map.copyOf(labels);
        firing.put(fingerprint, copy);
        forEachSourceRule(copy, (i, rule) -> sources.get(i)
                .computeIfAbsent(rule.equalValues(copy), k -> new HashMap<>())
                .put(fingerprint, new Source(fingerprint, Matcher.all(rule.target(), copy))));
    }

    /**
     * The fingerprints of the firing alerts that inhibit the alert {@code fingerprint} with {@code labels}, sorted;
     * empty when it is not inhibited. When the alert matches a rule's source matchers as well as its target ones,
     * sources that are targets too are ignored, so that two such alerts do not hide each other.
     */
    public List<String> inhibitedBy(String fingerprint, Map<String, String> labels) {
        Set<String> out = new TreeSet<>();
        for (int i = 0; i < rules.size(); i++) {
            InhibitRule rule = rules.get(i);
            if (!Matcher.all(rule.target(), labels)) {
                continue;
            }
            Map<String, Source> candidates = sources.get(i).get(rule.equalValues(labels));
            if (candidates == null) {
                continue;
            }
            boolean twoSided = Matcher.all(rule.source(), labels);
            for (Source s : candidates.values()) {
                if (!s.fingerprint().equals(fingerprint) && !(twoSided && s.alsoTarget())) {
                    out.add(s.fingerprint());
                }
            }
        }
        return List.copyOf(out);
    }

    /** The rules in force. */
    public List<InhibitRule> rules() {
        return rules;
    }

    private void forEachSourceRule(Map<String, String> labels, RuleAction action) {
        for (int i = 0; i < rules.size(); i++) {
            if (Matcher.all(rules.get(i).source(), labels)) {
                action.apply(i, rules.get(i));
            }
        }
    }

    @FunctionalInterface
    private interface RuleAction {
        void apply(int index, InhibitRule rule);
    }
}
