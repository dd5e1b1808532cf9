package io.gpuwatch.gateway.silence;

import io.gpuwatch.gateway.match.Matcher;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The silences of a gateway. Expired silences are kept, so that who muted what and why can still be read,
 * until {@link #collect} drops those expired longer ago than the retention. Every method takes the current time
 * from its caller.
 */
public final class Silences {
    private final Map<String, Silence> byId = new LinkedHashMap<>();
    private final Supplier<String> ids;
    private long changes;

    /** A store naming new silences with {@code ids} (UUIDs in production, a counter in tests). */
    public Silences(Supplier<String> ids) {
        this.ids = ids;
    }

    /** What creating or updating a silence did: the silence as stored, or the reasons it was refused. */
    public record Result(Silence silence, List<String> errors) {
        public Result {
            errors = List.copyOf(errors);
        }

        public boolean ok() {
            return errors.isEmpty();
        }

        static Result refused(List<String> errors) {
            return new Result(null, errors);
        }
    }

    /** Creates a silence; a null {@code startsAt} means now. */
    public Result create(List<Matcher> matchers, Instant startsAt, Instant endsAt, String createdBy, String comment,
                         Instant now) {
        Instant start = startsAt == null ? now : startsAt;
        List<String> errors = check(matchers, start, endsAt, createdBy, now);
        if (!errors.isEmpty()) {
            return Result.refused(errors);
        }
        Silence s = new Silence(ids.get(), matchers, start, endsAt, createdBy, comment, now);
        put(s);
        return new Result(s, List.of());
    }

    /**
     * Changes a pending or active silence. A pending one, or an active one whose matchers and start stay the
     * same, is changed in place; otherwise the active one is expired now and a new silence (with a new id)
     * takes over, so the record of what was muted until now stays true.
     */
    public Result update(String id, List<Matcher> matchers, Instant startsAt, Instant endsAt, String createdBy,
                         String comment, Instant now) {
        Silence old = byId.get(id);
        if (old == null) {
            return Result.refused(List.of("no silence with id " + id));
        }
        Silence.State state = old.state(now);
        if (state == Silence.State.EXPIRED) {
            return Result.refused(List.of("silence " + id + " has expired and can no longer be changed"));
        }
        Instant start = startsAt == null ? old.startsAt() : startsAt;
        boolean inPlace = state == Silence.State.PENDING
                || old.matchers().equals(matchers) && old.startsAt().equals(start);
        if (!inPlace) {
            start = start.isBefore(now) ? now : start;
        }
        List<String> errors = check(matchers, start, endsAt, createdBy, now);
        if (!errors.isEmpty()) {
            return Result.refused(errors);
        }
        if (inPlace) {
            Silence s = new Silence(id, matchers, start, endsAt, createdBy, comment, now);
            put(s);
            return new Result(s, List.of());
        }
        expire(id, now);
        Silence s = new Silence(ids.get(), matchers, start, endsAt, createdBy, comment, now);
        put(s);
        return new Result(s, List.of());
    }

    /**
     * Ends a silence now: an active one stops muting at once, a pending one never starts. False when there is no
     * such silence or it had already expired.
     */
    public boolean expire(String id, Instant now) {
        Silence s = byId.get(id);
        if (s == null || s.state(now) == Silence.State.EXPIRED) {
            return false;
        }
        Instant start = s.state(now) == Silence.State.PENDING ? now : s.startsAt();
        put(new Silence(id, s.matchers(), start, now, s.createdBy(), s.comment(), now));
        return true;
    }

    /**
     * Puts {@code silence} back as it stands, replacing one of the same id: a silence read back from the store,
     * or one whose change could not be stored.
     */
    public void restore(Silence silence) {
        put(silence);
    }

    /** Drops the silence {@code id} without a trace, for a new silence that could not be stored. */
    public void forget(String id) {
        if (byId.remove(id) != null) {
            changes++;
        }
    }

    /** How many changes were made so far; a reader compares it with the count it last saw to learn of new ones. */
    public long changes() {
        return changes;
    }

    /**
     * Whether a silence starts or ends after {@code after} and no later than {@code upTo}, i.e. whether what is
     * muted may have changed with time alone.
     */
    public boolean turnsBetween(Instant after, Instant upTo) {
        for (Silence s : byId.values()) {
            if (within(s.startsAt(), after, upTo) || within(s.endsAt(), after, upTo)) {
                return true;
            }
        }
        return false;
    }

    private static boolean within(Instant t, Instant after, Instant upTo) {
        return t.isAfter(after) && !t.isAfter(upTo);
    }

    private void put(Silence s) {
        byId.put(s.id(), s);
        changes++;
    }

    /** The ids of the silences that mute an alert with {@code labels} at {@code now}, in the order they were made. */
    public List<String> silenced(Map<String, String> labels, Instant now) {
        List<String> out = new ArrayList<>();
        for (Silence s : byId.values()) {
            if (s.mutes(labels, now)) {
                out.add(s.id());
            }
        }
        return out;
    }

    public Optional<Silence> get(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    /** Every silence kept, expired ones included, newest start first. */
    public List<Silence> list() {
        List<Silence> out = new ArrayList<>(byId.values());
        out.sort(Comparator.comparing(Silence::startsAt).reversed());
        return out;
    }

    /** The silences in {@code state} at {@code now}, newest start first. */
    public List<Silence> list(Silence.State state, Instant now) {
        return list().stream().filter(s -> s.state(now) == state).toList();
    }

    /** Forgets silences that expired more than {@code retention} before {@code now}; returns how many. */
    public int collect(Instant now, Duration retention) {
        Instant cutoff = now.minus(retention);
        int before = byId.size();
        byId.values().removeIf(s -> s.state(now) == Silence.State.EXPIRED && s.endsAt().isBefore(cutoff));
        int dropped = before - byId.size();
        changes += dropped;
        return dropped;
    }

    /** Why a silence may not have {@code matchers}, if it may not: none, or none that requires a value. */
    public static Optional<String> matcherProblem(List<Matcher> matchers) {
        if (matchers == null || matchers.isEmpty()) {
            return Optional.of("a silence needs at least one matcher");
        }
        if (matchers.stream().allMatch(m -> m.matchesValue(""))) {
            // such a silence would also mute every alert that lacks the labels, i.e. nearly everything
            return Optional.of("at least one matcher must require a non-empty value (" + matchers.get(0)
                    + " also matches alerts without the label)");
        }
        return Optional.empty();
    }

    private static List<String> check(List<Matcher> matchers, Instant start, Instant end, String createdBy,
                                      Instant now) {
        List<String> errors = new ArrayList<>();
        matcherProblem(matchers).ifPresent(errors::add);
        if (end == null) {
            errors.add("a silence needs endsAt");
        } else if (!end.isAfter(start)) {
            errors.add("endsAt (" + end + ") must be after startsAt (" + start + ")");
        } else if (!end.isAfter(now)) {
            errors.add("endsAt (" + end + ") is in the past");
        }
        if (createdBy == null || createdBy.isBlank()) {
            errors.add("a silence needs createdBy, the person or tool that made it");
        }
        return errors;
    }
}
