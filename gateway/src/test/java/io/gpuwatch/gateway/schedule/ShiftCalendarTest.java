package io.gpuwatch.gateway.schedule;

import biweekly.Biweekly;
import biweekly.ICalVersion;
import biweekly.ICalendar;
import biweekly.component.VEvent;
import net.fortuna.ical4j.data.CalendarBuilder;
import net.fortuna.ical4j.model.Calendar;
import net.fortuna.ical4j.model.Component;
import org.junit.jupiter.api.Test;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The calendar export read back by two independent iCalendar parsers (ical4j, which also validates it against
 * RFC 5545, and biweekly): the shifts, their times across a DST change, escaped text and folded long lines.
 */
class ShiftCalendarTest {
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    /** Long, with commas, a semicolon, a backslash and characters of two, three and four UTF-8 octets. */
    private static final String LONG_NAME = "Zhāng Wěi 张伟 (GPU; training, inference \\ storage) 🚀 "
            + "on the Frankfurt and Shanghai clusters";

    private final Roster roster = new Roster(Map.of(
            "wei", new Person("wei", LONG_NAME, Map.of()),
            "lin", new Person("lin", "Lin Chen", Map.of())), Map.of());
    private final Schedule schedule = new Schedule("gpu", "GPU platform, Berlin", BERLIN,
            List.of(new Layer("primary", List.of(new Rotation("weekly", BERLIN, LocalDateTime.parse("2026-10-12T09:00"),
                    Duration.ofDays(7), List.of("wei", "lin"), null)))),
            List.of(new ShiftOverride("primary", "lin", null, Instant.parse("2026-10-28T12:00:00Z"),
                    Instant.parse("2026-10-28T14:00:00Z"))));
    private final String ics = ShiftCalendar.of(schedule, roster, Instant.parse("2026-10-20T00:00:00Z"),
            Instant.parse("2026-11-03T00:00:00Z"), Instant.parse("2026-10-20T10:15:30.250Z"));

    @Test
    void linesAreFoldedAtSeventyFiveOctetsWithCrLf() {
        assertTrue(ics.endsWith("END:VCALENDAR\r\n"));
        for (String line : ics.split("\r\n")) {
            assertTrue(line.getBytes(StandardCharsets.UTF_8).length <= 75, "too long: " + line);
            assertTrue(!line.contains("\n") && !line.contains("\r"), "a bare line break: " + line);
        }
        assertTrue(ics.contains("\r\n "), "the long summary is folded");
        assertTrue(ics.contains("DTSTAMP:20261020T101530Z\r\n"));
    }

    @Test
    void ical4jValidatesTheFeedAndReadsEveryShift() throws Exception {
        Calendar calendar = new CalendarBuilder().build(new StringReader(ics));
        calendar.validate(true);
        List<net.fortuna.ical4j.model.component.VEvent> events = calendar.getComponents(Component.VEVENT);
        // wei's week that ended on the 19th is left out; lin's week over the DST change, then wei's, with two
        // hours of it covered by lin, then lin again from 2 November
        String weiOnCall = LONG_NAME + " on call (primary, GPU platform, Berlin)";
        String linOnCall = "Lin Chen on call (primary, GPU platform, Berlin)";
        assertEquals(List.of(linOnCall, weiOnCall, linOnCall, weiOnCall, linOnCall),
                events.stream().map(e -> e.getSummary().getValue()).toList());
        assertEquals(List.of("2026-10-19T07:00:00Z", "2026-10-26T08:00:00Z", "2026-10-28T12:00:00Z",
                        "2026-10-28T14:00:00Z", "2026-11-02T08:00:00Z"),
                events.stream().map(e -> e.getStartDate().getDate().toInstant().toString()).toList());
        assertTrue(events.get(2).getDescription().getValue().contains("covering by override"));
        assertTrue(events.get(1).getDescription().getValue().contains("\n"), "an escaped line break reads back");
    }

    @Test
    void biweeklyReadsTheSameShiftsWithoutAWarning() {
        ICalendar calendar = Biweekly.parse(ics).first();
        assertTrue(calendar.validate(ICalVersion.V2_0).isEmpty(), calendar.validate(ICalVersion.V2_0).toString());
        List<VEvent> events = calendar.getEvents();
        assertEquals(5, events.size());
        VEvent overDst = events.get(0);
        assertEquals(Instant.parse("2026-10-19T07:00:00Z"), overDst.getDateStart().getValue().toInstant());
        assertEquals(Instant.parse("2026-10-26T08:00:00Z"), overDst.getDateEnd().getValue().toInstant(),
                "a week and an hour: 09:00 CEST to 09:00 CET");
        assertEquals(LONG_NAME + " on call (primary, GPU platform, Berlin)", events.get(1).getSummary().getValue());
        assertEquals("gpu-primary-1792393200-lin@gpuwatch", overDst.getUid().getValue());
    }

    @Test
    void textEscapesTheCharactersTheRfcReserves() {
        assertEquals("a\\, b\\; c\\\\ d\\ne", ShiftCalendar.text("a, b; c\\ d\ne"));
    }
}
