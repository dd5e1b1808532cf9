package io.gpuwatch.rules.eval;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A pending or firing alert of one rule on one instance, as a checkpoint keeps it: when its current episode began
 * ({@code activeSince}, from which its {@code for} counts), since when its condition has been false while it fires
 * ({@code falseSince}, from which its {@code keep_firing_for} counts; -1 while it holds), and the labels and text of
 * its latest transition (null labels for an alert the engine took back from a store without them).
 */
public record AlertImage(String rule, String instance, AlertState state, long activeSince, long falseSince,
                         Map<String, String> labels, String summary, String description) {
    public AlertImage {
        if (state != AlertState.PENDING && state != AlertState.FIRING) {
            throw new IllegalArgumentException("only a pending or firing alert has state to keep, not " + state);
        }
        labels = labels == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(labels));
    }
}
