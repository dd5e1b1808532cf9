package io.gpuwatch.gateway.route;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.Month;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Set;

/**
 * A named set of recurring periods ("weekends", "office hours in Europe/Berlin") that routes mute or activate
 * by name. An instant is inside when any one of its periods contains it.
 */
public record TimeInterval(String name, List<Period> periods) {
    public TimeInterval {
        periods = List.copyOf(periods);
    }

    /** Whether {@code t} falls inside one of the periods. */
    public boolean contains(Instant t) {
        for (Period p : periods) {
            if (p.contains(t)) {
                return true;
            }
        }
        return false;
    }

    /** An inclusive range of integers; day-of-month bounds may be negative, counting back from the month's end. */
    public record Range(int start, int end) {
        boolean contains(int v) {
            return v >= start && v <= end;
        }
    }

    /** Minutes of the day, {@code start} inclusive and {@code end} exclusive ({@code 09:00}–{@code 17:00}). */
    public record Times(int startMinute, int endMinute) {
        boolean contains(int minute) {
            return minute >= startMinute && minute < endMinute;
        }
    }

    /**
     * One period: every field that is not empty must hold, read as wall-clock time in {@code zone}, so
     * "09:00–17:00 Europe/Berlin" follows the zone's daylight saving changes.
     */
    public record Period(List<Times> times, Set<DayOfWeek> weekdays, List<Range> daysOfMonth, Set<Month> months,
                         List<Range> years, ZoneId zone) {
        public Period {
            times = List.copyOf(times);
            weekdays = Set.copyOf(weekdays);
            daysOfMonth = List.copyOf(daysOfMonth);
            months = Set.copyOf(months);
            years = List.copyOf(years);
        }

        /** Whether the wall-clock time of {@code t} in the zone satisfies every field given. */
        public boolean contains(Instant t) {
            ZonedDateTime z = t.atZone(zone);
            if (!times.isEmpty()) {
                int minute = z.getHour() * 60 + z.getMinute();
                if (times.stream().noneMatch(r -> r.contains(minute))) {
                    return false;
                }
            }
            if (!weekdays.isEmpty() && !weekdays.contains(z.getDayOfWeek())) {
                return false;
            }
            if (!daysOfMonth.isEmpty() && daysOfMonth.stream().noneMatch(r -> inMonth(r, z))) {
                return false;
            }
            if (!months.isEmpty() && !months.contains(z.getMonth())) {
                return false;
            }
            return years.isEmpty() || years.stream().anyMatch(r -> r.contains(z.getYear()));
        }

        private static boolean inMonth(Range r, ZonedDateTime z) {
            int length = z.toLocalDate().lengthOfMonth();
            int start = r.start() < 0 ? length + 1 + r.start() : r.start();
            int end = r.end() < 0 ? length + 1 + r.end() : r.end();
            int day = z.getDayOfMonth();
            return day >= start && day <= end;
        }
    }
}
