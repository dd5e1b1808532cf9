package io.gpuwatch.gateway.store;

import java.time.Instant;
import java.util.Objects;

/**
 * Where the escalation of one alert episode stands: the alert {@code fingerprint} active since
 * {@code activeSince} (epoch ms) is escalated by {@code policy}; {@code round} (from 0) and {@code step} (from
 * 0; -1 before the first) say which step was paged last, and {@code deadline} when the next one is due (null
 * once the policy has run out). {@code state} says whether it runs, waits on an acknowledgement, or is done.
 */
public record Escalation(String fingerprint, long activeSince, String policy, int round, int step, Instant deadline,
                         State state) {
    /** Whether an escalation pages on at its deadline, is held by an acknowledgement, or has paged its last. */
    public enum State { RUNNING, ACKNOWLEDGED, EXHAUSTED }

    public Escalation {
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(state, "state");
        if (state == State.RUNNING && deadline == null) {
            throw new IllegalArgumentException("a running escalation of " + fingerprint + " needs a deadline");
        }
    }

    /**
     * The key of the page of {@code round}'s {@code step} in this episode: the same on every gateway and after
     * every restart, so a receiver can drop a second copy of one page.
     */
    public String pageKey(int round, int step) {
        return "escalation/" + fingerprint + "/" + activeSince + "/" + round + "/" + step;
    }
}
