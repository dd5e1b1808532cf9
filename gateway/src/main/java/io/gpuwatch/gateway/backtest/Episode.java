package io.gpuwatch.gateway.backtest;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One alert a backtest found: a rule firing on one scope from {@code from} until {@code to} (epoch ms of the
 * trace), or until the end of the trace when {@code stillFiring}, and the notifications it would have sent.
 * {@code labels} are the scope's: node, uuid, task, owner, business as they apply.
 */
public record Episode(String rule, String severity, Map<String, String> labels, String summary, long from, long to,
                      boolean stillFiring, int notifications) {
    public Episode {
        labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
    }

    public long durationMs() {
        return to - from;
    }
}
