package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.schedule.Layer;
import io.gpuwatch.gateway.schedule.Person;
import io.gpuwatch.gateway.schedule.Roster;
import io.gpuwatch.gateway.schedule.Schedule;
import io.gpuwatch.gateway.schedule.Shift;
import io.gpuwatch.gateway.schedule.ShiftCalendar;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;

/**
 * Who is on call ({@code GET /api/v1/oncall}) and each schedule's shifts as an iCalendar feed
 * ({@code GET /api/v1/schedules/{id}.ics}), from the roster the gateway was started with (docs/oncall.md).
 */
final class ScheduleRoutes {
    /** The calendar's default window: a week back, eight weeks ahead. */
    private static final Duration BACK = Duration.ofDays(7);
    private static final int DAYS = 56;
    private static final int MAX_DAYS = 366;

    private final ApiHost gateway;

    ScheduleRoutes(ApiHost gateway) {
        this.gateway = gateway;
    }

    void mount(Router router, AccessGuard guard) {
        router.get("/api/v1/oncall").handler(guard.require(Role.VIEWER, false)).handler(this::who);
        router.get("/api/v1/schedules/:id.ics").handler(guard.require(Role.VIEWER, false)).handler(this::calendar);
    }

    private void who(RoutingContext ctx) {
        Optional<Instant> at = instant(ctx, "at");
        if (at == null) {
            return;
        }
        Roster roster = gateway.roster();
        String only = ctx.request().getParam("schedule");
        if (only != null && roster.schedule(only).isEmpty()) {
            Replies.notFound(ctx, "no schedule `" + only + "`; the gateway has " + roster.schedules().keySet());
            return;
        }
        Instant when = at.orElseGet(() -> gateway.clock().instant());
        JsonArray schedules = new JsonArray();
        for (Schedule s : roster.scheduleList()) {
            if (only == null || only.equals(s.id())) {
                schedules.add(json(roster, s, when));
            }
        }
        Replies.json(ctx, 200, new JsonObject().put("at", when.toString()).put("schedules", schedules));
    }

    /**
     * One schedule's layers at {@code at}, each with its person (null when nobody) and shift, whose start or end is
     * null beyond the look-back or the horizon.
     */
    static JsonObject json(Roster roster, Schedule s, Instant at) {
        JsonArray layers = new JsonArray();
        List<Optional<Shift>> now = s.now(at);
        for (int i = 0; i < s.layers().size(); i++) {
            Layer layer = s.layers().get(i);
            JsonObject entry = new JsonObject().put("layer", layer.name());
            now.get(i).ifPresentOrElse(shift -> entry
                            .put("person", person(roster, shift.person()))
                            .put("since", Schedule.startsBeforeLookBack(shift, at) ? null : shift.start().toString())
                            .put("until", Schedule.endsAfterHorizon(shift, at) ? null : shift.end().toString())
                            .put("override", shift.override()),
                    () -> entry.putNull("person"));
            layers.add(entry);
        }
        return new JsonObject().put("id", s.id()).put("name", s.name()).put("timeZone", s.zone().getId())
                .put("layers", layers);
    }

    private static JsonObject person(Roster roster, String id) {
        Optional<Person> p = roster.person(id);
        JsonObject contacts = new JsonObject();
        p.ifPresent(person -> person.sortedContacts().forEach(contacts::put));
        return new JsonObject().put("id", id).put("name", p.map(Person::name).orElse(id)).put("contacts", contacts);
    }

    private void calendar(RoutingContext ctx) {
        String id = ctx.pathParam("id");
        Roster roster = gateway.roster();
        Optional<Schedule> schedule = roster.schedule(id);
        if (schedule.isEmpty()) {
            Replies.notFound(ctx, "no schedule `" + id + "`; the gateway has " + roster.schedules().keySet());
            return;
        }
        Optional<Instant> from = instant(ctx, "from");
        if (from == null) {
            return;
        }
        int days = DAYS;
        String daysParam = ctx.request().getParam("days");
        if (daysParam != null) {
            try {
                days = Integer.parseInt(daysParam);
            } catch (NumberFormatException e) {
                days = -1;
            }
            if (days < 1 || days > MAX_DAYS) {
                Replies.badRequest(ctx, "days", "a whole number of days from 1 to " + MAX_DAYS + ", got " + daysParam);
                return;
            }
        }
        Instant now = gateway.clock().instant();
        Instant start = from.orElse(now.minus(BACK));
        String ics = ShiftCalendar.of(schedule.get(), roster, start, start.plus(Duration.ofDays(days)), now);
        ctx.response().putHeader("Content-Type", "text/calendar; charset=utf-8")
                .putHeader("Content-Disposition", "inline; filename=\"" + id + ".ics\"").end(ics);
    }

    /**
     * The query parameter {@code name} as an instant ({@code 2026-12-12T08:00:00Z} or with an offset), empty when
     * not given, or null after replying 400 to a malformed one.
     */
    private static Optional<Instant> instant(RoutingContext ctx, String name) {
        String value = ctx.request().getParam(name);
        if (value == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(OffsetDateTime.parse(value).toInstant());
        } catch (DateTimeException e) {
            Replies.badRequest(ctx, name, "a time with an offset like 2026-12-12T09:00:00+01:00 or "
                    + "2026-12-12T08:00:00Z, got " + value);
            return null;
        }
    }
}
