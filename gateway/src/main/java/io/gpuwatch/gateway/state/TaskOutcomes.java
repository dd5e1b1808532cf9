package io.gpuwatch.gateway.state;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How the tasks that ended in the last day ended (succeeded or failed), by task, business and owner, as scheduler
 * listings reported them: kept apart from the tasks, which leave the fleet two minutes after their last word while
 * a success rate looks back up to a day. Owned by the fleet's event loop.
 */
final class TaskOutcomes {
    private final Map<String, Deque<long[]>> byKey = new HashMap<>();

    /** A task ended at {@code ts}; it counts for each non-null key (e.g. task/x, business/y, owner/z). */
    void ended(long ts, boolean succeeded, String... keys) {
        for (String key : keys) {
            if (key != null) {
                byKey.computeIfAbsent(key, k -> new ArrayDeque<>()).addLast(new long[] {ts, succeeded ? 1 : 0});
            }
        }
    }

    /** {@code [ended, succeeded]} under {@code key} within {@code windowMs} before {@code now}. */
    int[] count(String key, long now, long windowMs) {
        Deque<long[]> log = byKey.get(key);
        int[] out = new int[2];
        if (log == null) {
            return out;
        }
        for (long[] e : log) {
            if (now - e[0] < windowMs && e[0] <= now) {
                out[0]++;
                out[1] += (int) e[1];
            }
        }
        return out;
    }

    /** Forgets what is older than {@link FleetState#EVENT_HORIZON_MS}, the longest window a rule reads. */
    void prune(long now) {
        byKey.values().removeIf(log -> {
            while (!log.isEmpty() && now - log.peekFirst()[0] >= FleetState.EVENT_HORIZON_MS) {
                log.removeFirst();
            }
            return log.isEmpty();
        });
    }

    /** The names kept under keys that start with {@code prefix}, the prefix cut off. */
    List<String> names(String prefix) {
        List<String> out = new ArrayList<>();
        for (String key : byKey.keySet()) {
            if (key.startsWith(prefix)) {
                out.add(key.substring(prefix.length()));
            }
        }
        return out;
    }

    /** The share of {@code counts} that succeeded; NaN when none ended. */
    static double rate(int[] counts) {
        return counts[0] == 0 ? Double.NaN : (double) counts[1] / counts[0];
    }
}
