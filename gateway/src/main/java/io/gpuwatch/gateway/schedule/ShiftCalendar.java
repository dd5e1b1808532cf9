package io.gpuwatch.gateway.schedule;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/**
 * A schedule's shifts as an iCalendar (RFC 5545) feed, one event per shift, so people subscribe their calendar to
 * it. Times are UTC ({@code 20261212T080000Z}), which every client places in its own zone without a VTIMEZONE;
 * text is escaped and lines folded at 75 octets as the RFC asks.
 */
public final class ShiftCalendar {
    private static final DateTimeFormatter UTC = DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss'Z'")
            .withZone(ZoneOffset.UTC);
    private static final int FOLD_OCTETS = 75;

    private ShiftCalendar() {
    }

    /**
     * The shifts of {@code schedule} that overlap {@code [from, to)}, each whole (a shift that began before
     * {@code from} keeps its start, so its event's UID stays the same as the window moves), stamped {@code now}.
     */
    public static String of(Schedule schedule, Roster roster, Instant from, Instant to, Instant now) {
        StringBuilder out = new StringBuilder();
        line(out, "BEGIN:VCALENDAR");
        line(out, "VERSION:2.0");
        line(out, "PRODID:-//gpuwatch//on-call schedules//EN");
        line(out, "CALSCALE:GREGORIAN");
        line(out, "METHOD:PUBLISH");
        line(out, "X-WR-CALNAME:" + text("On call: " + schedule.name()));
        line(out, "X-WR-TIMEZONE:" + schedule.zone().getId());
        for (Layer layer : schedule.layers()) {
            for (Shift s : schedule.shifts(layer, from.minus(Schedule.LOOK_BACK), to)) {
                if (!s.end().isAfter(from)) {
                    continue;
                }
                String person = roster.person(s.person()).map(Person::name).orElse(s.person());
                line(out, "BEGIN:VEVENT");
                line(out, "UID:" + text(schedule.id() + "-" + layer.name() + "-" + s.start().getEpochSecond() + "-"
                        + s.person()) + "@gpuwatch");
                line(out, "DTSTAMP:" + UTC.format(now.truncatedTo(ChronoUnit.SECONDS)));
                line(out, "DTSTART:" + UTC.format(s.start()));
                line(out, "DTEND:" + UTC.format(s.end()));
                line(out, "SUMMARY:" + text(person + " on call (" + layer.name() + ", " + schedule.name() + ")"));
                line(out, "DESCRIPTION:" + text(description(schedule, layer, s, person)));
                line(out, "TRANSP:TRANSPARENT");
                line(out, "END:VEVENT");
            }
        }
        line(out, "END:VCALENDAR");
        return out.toString();
    }

    private static String description(Schedule schedule, Layer layer, Shift s, String person) {
        Duration d = Duration.between(s.start(), s.end());
        return person + " is " + layer.name() + " on call for " + schedule.name() + " (" + d.toHours() + "h"
                + (d.toMinutesPart() == 0 ? "" : " " + d.toMinutesPart() + "m") + ")"
                + (s.override() ? ", covering by override" : "") + ".\nSchedule " + schedule.id()
                + ", written in " + schedule.zone().getId() + ".";
    }

    /** A TEXT value escaped: backslash, semicolon and comma get a backslash, a line break becomes {@code \n}. */
    static String text(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\', ';', ',' -> out.append('\\').append(c);
                case '\n' -> out.append("\\n");
                case '\r' -> { }
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /**
     * Appends a content line folded so no physical line exceeds 75 octets: each continuation starts with a space,
     * and a fold never splits a UTF-8 sequence (nor a surrogate pair).
     */
    static void line(StringBuilder out, String content) {
        int octets = 0;
        for (int i = 0; i < content.length(); ) {
            int cp = content.codePointAt(i);
            int size = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
            if (octets + size > FOLD_OCTETS) {
                out.append("\r\n ");
                // the leading space counts towards the next line's 75 octets
                octets = 1;
            }
            out.appendCodePoint(cp);
            octets += size;
            i += Character.charCount(cp);
        }
        out.append("\r\n");
    }
}
