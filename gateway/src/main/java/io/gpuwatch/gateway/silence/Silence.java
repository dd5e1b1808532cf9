package io.gpuwatch.gateway.silence;

import io.gpuwatch.gateway.match.Matcher;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A silence: alerts matching all of {@code matchers} get no notifications from {@code startsAt} (inclusive) to
 * {@code endsAt} (exclusive). {@code updatedAt} is when it was last written.
 */
public record Silence(String id, List<Matcher> matchers, Instant startsAt, Instant endsAt, String createdBy,
                      String comment, Instant updatedAt) {
    /** Where a silence stands at a given moment. */
    public enum State { PENDING, ACTIVE, EXPIRED }

    public Silence {
        Objects.requireNonNull(id, "id");
        matchers = List.copyOf(matchers);
        Objects.requireNonNull(startsAt, "startsAt");
        Objects.requireNonNull(endsAt, "endsAt");
        createdBy = createdBy == null ? "" : createdBy;
        comment = comment == null ? "" : comment;
        Objects.requireNonNull(updatedAt, "updatedAt");
    }

    /** Pending before {@code startsAt}, active until {@code endsAt}, expired from then on. */
    public State state(Instant now) {
        if (now.isBefore(startsAt)) {
            return State.PENDING;
        }
        return now.isBefore(endsAt) ? State.ACTIVE : State.EXPIRED;
    }

    /** Whether this silence is active at {@code now} and matches {@code labels}. */
    public boolean mutes(Map<String, String> labels, Instant now) {
        return state(now) == State.ACTIVE && Matcher.all(matchers, labels);
    }
}
