package io.gpuwatch.gateway.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Members taking turns: the first hand-off is at {@code start} (wall-clock time in {@code zone}), and each later
 * one {@code length} of wall-clock time after the previous, so a daily 09:00 hand-off stays at 09:00 across a
 * daylight-saving change (that shift is 23 or 25 hours long). A rotation with {@code hours} only covers that part of
 * each day, which is how a follow-the-sun layer splits the day between rotations in different zones.
 *
 * @param name    for messages and the calendar
 * @param zone    the zone {@code start} and {@code hours} are read in
 * @param start   the first hand-off; nobody is on call from this rotation before it
 * @param length  wall-clock time between hand-offs: a day, a week or a custom length
 * @param members person ids in turn order
 * @param hours   the daily window this rotation covers, or null for the whole day
 */
public record Rotation(String name, ZoneId zone, LocalDateTime start, Duration length, List<String> members,
                       Hours hours) {
    /** A daily window from {@code from} to {@code to}; one that ends at or before it starts runs past midnight. */
    public record Hours(LocalTime from, LocalTime to) {
        @Override
        public String toString() {
            return from + "-" + to;
        }
    }

    public Rotation {
        members = List.copyOf(members);
        if (members.isEmpty() || length.isNegative() || length.isZero()) {
            throw new IllegalArgumentException("a rotation needs members and a positive length");
        }
    }

    /** The instant of hand-off {@code k} (0 is {@code start}); a wall-clock time in a DST gap moves past the gap. */
    public Instant handoff(long k) {
        return ZonedDateTime.of(start.plus(length.multipliedBy(k)), zone).toInstant();
    }

    /** The number of the shift running at {@code at}, or -1 before the first hand-off. */
    long shift(Instant at) {
        if (at.isBefore(handoff(0))) {
            return -1;
        }
        LocalDateTime local = LocalDateTime.ofInstant(at, zone);
        long k = Math.max(0, Duration.between(start, local).toSeconds() / length.toSeconds());
        // the wall-clock estimate is off by at most one around a DST change; step until the hand-offs bracket it
        while (!handoff(k + 1).isAfter(at)) {
            k++;
        }
        while (k > 0 && handoff(k).isAfter(at)) {
            k--;
        }
        return k;
    }

    /** Who this rotation has on call at {@code at}: nobody before its start or outside its hours. */
    public Optional<String> onCall(Instant at) {
        long k = shift(at);
        if (k < 0 || !covers(at)) {
            return Optional.empty();
        }
        return Optional.of(members.get((int) Math.floorMod(k, (long) members.size())));
    }

    /** True when {@code at} falls within this rotation's daily hours (always, without hours). */
    boolean covers(Instant at) {
        if (hours == null) {
            return true;
        }
        LocalDate day = LocalDate.ofInstant(at, zone);
        for (LocalDate d = day.minusDays(1); !d.isAfter(day); d = d.plusDays(1)) {
            if (!windowStart(d).isAfter(at) && windowEnd(d).isAfter(at)) {
                return true;
            }
        }
        return false;
    }

    private Instant windowStart(LocalDate day) {
        return ZonedDateTime.of(day, hours.from(), zone).toInstant();
    }

    private Instant windowEnd(LocalDate day) {
        LocalDate endDay = hours.to().isAfter(hours.from()) ? day : day.plusDays(1);
        return ZonedDateTime.of(endDay, hours.to(), zone).toInstant();
    }

    /** Every instant strictly between {@code from} and {@code to} at which who this rotation has may change. */
    void changes(Instant from, Instant to, TreeSet<Instant> into) {
        for (long k = Math.max(0, shift(from)); ; k++) {
            Instant h = handoff(k);
            if (!h.isBefore(to)) {
                break;
            }
            if (h.isAfter(from)) {
                into.add(h);
            }
        }
        if (hours != null) {
            LocalDate last = LocalDate.ofInstant(to, zone).plusDays(1);
            for (LocalDate d = LocalDate.ofInstant(from, zone).minusDays(1); !d.isAfter(last); d = d.plusDays(1)) {
                for (Instant edge : new Instant[] {windowStart(d), windowEnd(d)}) {
                    if (edge.isAfter(from) && edge.isBefore(to)) {
                        into.add(edge);
                    }
                }
            }
        }
    }
}
