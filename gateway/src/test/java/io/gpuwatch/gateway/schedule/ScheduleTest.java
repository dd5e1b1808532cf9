package io.gpuwatch.gateway.schedule;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Rotation math: hand-offs on the wall clock across DST changes, follow-the-sun hours, overrides. */
class ScheduleTest {
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

    private static Instant at(String local, ZoneId zone) {
        return ZonedDateTime.of(LocalDateTime.parse(local), zone).toInstant();
    }

    private static Schedule schedule(ZoneId zone, List<ShiftOverride> overrides, Rotation... rotations) {
        return new Schedule("gpu", "GPU platform", zone, List.of(new Layer("primary", List.of(rotations))),
                overrides);
    }

    private static Rotation rotation(ZoneId zone, String start, Duration length, Rotation.Hours hours,
                                     String... members) {
        return new Rotation("r", zone, LocalDateTime.parse(start), length, List.of(members), hours);
    }

    @Test
    void aDailyHandOffStaysAtNineOClockAcrossTheSpringChangeInBerlin() {
        // 28 March 2027: Berlin goes from 02:00 CET to 03:00 CEST
        Schedule s = schedule(BERLIN, List.of(), rotation(BERLIN, "2027-03-26T09:00", Duration.ofDays(1), null,
                "wei", "lin"));
        Layer primary = s.layers().get(0);
        List<Shift> shifts = s.shifts(primary, Instant.parse("2027-03-26T00:00:00Z"),
                Instant.parse("2027-03-30T00:00:00Z"));
        assertEquals(List.of(
                new Shift("gpu", "primary", "wei", Instant.parse("2027-03-26T08:00:00Z"),
                        Instant.parse("2027-03-27T08:00:00Z"), false),
                new Shift("gpu", "primary", "lin", Instant.parse("2027-03-27T08:00:00Z"),
                        Instant.parse("2027-03-28T07:00:00Z"), false),
                new Shift("gpu", "primary", "wei", Instant.parse("2027-03-28T07:00:00Z"),
                        Instant.parse("2027-03-29T07:00:00Z"), false),
                new Shift("gpu", "primary", "lin", Instant.parse("2027-03-29T07:00:00Z"),
                        Instant.parse("2027-03-30T00:00:00Z"), false)), shifts);
        assertEquals(Duration.ofHours(23), Duration.between(shifts.get(1).start(), shifts.get(1).end()),
                "the shift over the change is an hour short");
        assertEquals(Optional.empty(), s.onCall(primary, Instant.parse("2027-03-26T07:59:59Z")),
                "nobody before the first hand-off");
    }

    @Test
    void aWeeklyShiftOverTheAutumnChangeIsAnHourLonger() {
        // 25 October 2026: Berlin goes from 03:00 CEST back to 02:00 CET
        Schedule s = schedule(BERLIN, List.of(), rotation(BERLIN, "2026-10-12T09:00", Duration.ofDays(7), null,
                "wei", "lin", "ana"));
        Layer primary = s.layers().get(0);
        Shift over = s.now(Instant.parse("2026-10-25T01:30:00Z")).get(0).orElseThrow();
        assertEquals("lin", over.person());
        assertEquals(at("2026-10-19T09:00", BERLIN), over.start());
        assertEquals(at("2026-10-26T09:00", BERLIN), over.end());
        assertEquals(Duration.ofHours(169), Duration.between(over.start(), over.end()));
        assertEquals(Optional.of("ana"), s.onCall(primary, Instant.parse("2026-10-26T08:00:00Z")),
                "09:00 CET is 08:00Z");
        assertEquals(Optional.of("lin"), s.onCall(primary, Instant.parse("2026-10-26T07:59:59Z")));
        assertEquals(Optional.of("wei"), s.onCall(primary, at("2026-11-02T09:00", BERLIN)), "round again");
    }

    @Test
    void twelveHourShiftsInNewYorkKeepTheirEightOClockHandOffsOverTheChange() {
        // 14 March 2027: New York goes from 02:00 EST to 03:00 EDT
        Schedule s = schedule(NEW_YORK, List.of(), rotation(NEW_YORK, "2027-03-12T08:00", Duration.ofHours(12),
                null, "day", "night"));
        List<Shift> shifts = s.shifts(s.layers().get(0), at("2027-03-13T08:00", NEW_YORK),
                at("2027-03-15T08:00", NEW_YORK));
        assertEquals(List.of(at("2027-03-13T08:00", NEW_YORK), at("2027-03-13T20:00", NEW_YORK),
                at("2027-03-14T08:00", NEW_YORK), at("2027-03-14T20:00", NEW_YORK)),
                shifts.stream().map(Shift::start).toList());
        assertEquals(List.of("day", "night", "day", "night"), shifts.stream().map(Shift::person).toList());
        assertEquals(Duration.ofHours(11), Duration.between(shifts.get(1).start(), shifts.get(1).end()),
                "the night of the change is an hour short");
        assertEquals(Instant.parse("2027-03-14T12:00:00Z"), shifts.get(2).start(), "08:00 EDT");
    }

    @Test
    void aHandOffInTheSpringGapHappensWhenTheClockComesOutOfIt() {
        Rotation r = rotation(BERLIN, "2027-03-27T02:30", Duration.ofDays(1), null, "wei", "lin");
        // 02:30 does not exist on 28 March: the hand-off is at 03:30 CEST, an hour later by the wall clock
        assertEquals(at("2027-03-28T03:30", BERLIN), r.handoff(1));
        assertEquals(Instant.parse("2027-03-28T01:30:00Z"), r.handoff(1));
        assertEquals(Optional.of("wei"), r.onCall(Instant.parse("2027-03-28T01:29:59Z")));
        assertEquals(Optional.of("lin"), r.onCall(Instant.parse("2027-03-28T01:30:00Z")));
        assertEquals(at("2027-03-29T02:30", BERLIN), r.handoff(2));
    }

    @Test
    void followTheSunHandsTheDayFromShanghaiToNewYorkAndLeavesTheGapEmpty() {
        Rotation apac = rotation(SHANGHAI, "2026-12-01T09:00", Duration.ofDays(7),
                new Rotation.Hours(java.time.LocalTime.of(9, 0), java.time.LocalTime.of(21, 0)), "mei", "jun");
        Rotation americas = rotation(NEW_YORK, "2026-12-01T09:00", Duration.ofDays(7),
                new Rotation.Hours(java.time.LocalTime.of(9, 0), java.time.LocalTime.of(21, 0)), "sam", "alex");
        Schedule s = schedule(ZoneId.of("UTC"), List.of(), apac, americas);
        Layer primary = s.layers().get(0);
        // Shanghai 09:00-21:00 is 01:00-13:00Z; New York 09:00-21:00 EST is 14:00-02:00Z
        assertEquals(Optional.of("mei"), s.onCall(primary, Instant.parse("2026-12-02T01:30:00Z")),
                "the first rotation wins where both cover");
        assertEquals(Optional.of("mei"), s.onCall(primary, Instant.parse("2026-12-02T12:59:59Z")));
        assertEquals(Optional.empty(), s.onCall(primary, Instant.parse("2026-12-02T13:30:00Z")), "the gap");
        assertEquals(Optional.of("sam"), s.onCall(primary, Instant.parse("2026-12-02T14:00:00Z")));
        assertEquals(Optional.of("sam"), s.onCall(primary, Instant.parse("2026-12-03T00:30:00Z")),
                "New York's evening runs past UTC midnight");
        List<Shift> day = s.shifts(primary, Instant.parse("2026-12-02T00:00:00Z"),
                Instant.parse("2026-12-03T00:00:00Z"));
        assertEquals(List.of("sam", "mei", "sam"), day.stream().map(Shift::person).toList());
        assertEquals(List.of(Instant.parse("2026-12-02T00:00:00Z"), Instant.parse("2026-12-02T01:00:00Z"),
                Instant.parse("2026-12-02T14:00:00Z")), day.stream().map(Shift::start).toList());
        assertEquals(Instant.parse("2026-12-02T13:00:00Z"), day.get(1).end());
        assertEquals(Optional.of("jun"), s.onCall(primary, Instant.parse("2026-12-08T02:00:00Z")),
                "Shanghai's week turns at 09:00 on the 8th, 01:00Z");
    }

    @Test
    void linCoversWeiForAnAfternoonAndTheScheduleSaysSo() {
        ShiftOverride cover = new ShiftOverride("primary", "lin", "wei", at("2026-12-12T09:00", BERLIN),
                at("2026-12-12T18:00", BERLIN));
        Schedule s = schedule(BERLIN, List.of(cover), rotation(BERLIN, "2026-12-07T08:00", Duration.ofDays(7),
                null, "wei", "ana"));
        Layer primary = s.layers().get(0);
        List<Shift> shifts = s.shifts(primary, at("2026-12-12T00:00", BERLIN), at("2026-12-13T00:00", BERLIN));
        assertEquals(List.of(
                new Shift("gpu", "primary", "wei", at("2026-12-12T00:00", BERLIN), at("2026-12-12T09:00", BERLIN),
                        false),
                new Shift("gpu", "primary", "lin", at("2026-12-12T09:00", BERLIN), at("2026-12-12T18:00", BERLIN),
                        true),
                new Shift("gpu", "primary", "wei", at("2026-12-12T18:00", BERLIN), at("2026-12-13T00:00", BERLIN),
                        false)), shifts);
        Shift now = s.now(at("2026-12-12T10:00", BERLIN)).get(0).orElseThrow();
        assertTrue(now.override());
        assertEquals(at("2026-12-12T18:00", BERLIN), now.end(), "until the override ends");
    }

    @Test
    void anOverrideThatReplacesSomeoneElseLeavesTheShiftAlone() {
        ShiftOverride cover = new ShiftOverride("primary", "lin", "ana", at("2026-12-12T09:00", BERLIN),
                at("2026-12-12T18:00", BERLIN));
        Schedule s = schedule(BERLIN, List.of(cover), rotation(BERLIN, "2026-12-07T08:00", Duration.ofDays(7),
                null, "wei", "ana"));
        assertEquals(Optional.of("wei"), s.onCall(s.layers().get(0), at("2026-12-12T10:00", BERLIN)));
        ShiftOverride anyone = new ShiftOverride("primary", "lin", null, at("2026-12-12T09:00", BERLIN),
                at("2026-12-12T18:00", BERLIN));
        ShiftOverride later = new ShiftOverride("primary", "ana", null, at("2026-12-12T12:00", BERLIN),
                at("2026-12-12T13:00", BERLIN));
        Schedule both = new Schedule("gpu", "GPU", BERLIN, s.layers(), List.of(anyone, later));
        assertEquals(Optional.of("lin"), both.onCall(s.layers().get(0), at("2026-12-12T11:00", BERLIN)));
        assertEquals(Optional.of("ana"), both.onCall(s.layers().get(0), at("2026-12-12T12:30", BERLIN)),
                "the override given last wins");
    }

    @Test
    void aHandOffInsideAnIncidentPassesThePageOnToTheNextPerson() {
        Schedule s = schedule(BERLIN, List.of(), rotation(BERLIN, "2026-12-07T09:00", Duration.ofDays(1), null,
                "wei", "lin"));
        Instant incident = at("2026-12-08T08:50", BERLIN);
        Shift first = s.now(incident).get(0).orElseThrow();
        assertEquals("wei", first.person());
        assertEquals(at("2026-12-08T09:00", BERLIN), first.end(), "the page tells whoever asks when wei hands off");
        // a re-notification ten minutes into the incident asks again and reaches the new person
        Shift after = s.now(incident.plus(Duration.ofMinutes(10))).get(0).orElseThrow();
        assertEquals("lin", after.person());
        assertFalse(after.override());
        assertEquals(at("2026-12-08T09:00", BERLIN), after.start());
    }
}
