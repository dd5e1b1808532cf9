package io.gpuwatch.cli;

import io.gpuwatch.gateway.schedule.Layer;
import io.gpuwatch.gateway.schedule.Person;
import io.gpuwatch.gateway.schedule.Roster;
import io.gpuwatch.gateway.schedule.RosterLoad;
import io.gpuwatch.gateway.schedule.Rotation;
import io.gpuwatch.gateway.schedule.Schedule;
import io.gpuwatch.gateway.schedule.Shift;
import io.gpuwatch.gateway.schedule.ShiftCalendar;
import io.gpuwatch.rules.source.Diagnostic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/** {@code gpuwatch oncall …}: check an on-call file and ask it who is on call, without a gateway. */
@Command(name = "oncall", mixinStandardHelpOptions = true,
        description = "Work with on-call files (people, schedules of rotations, overrides) without a gateway; a "
                + "running gateway answers the same on GET /api/v1/oncall.",
        subcommands = {OnCallCommand.Check.class, OnCallCommand.Who.class, OnCallCommand.Calendar.class})
final class OnCallCommand implements Runnable {
    private static final DateTimeFormatter SHOWN = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm zzz");

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The roster of {@code file} after printing its diagnostics, or null when it has errors. */
    private static Roster load(Path file, PrintWriter err) {
        RosterLoad load = Roster.load(file);
        for (Diagnostic d : load.diagnostics()) {
            err.println(d);
        }
        if (!load.ok()) {
            int errors = load.errors().size();
            err.println(errors + (errors == 1 ? " error" : " errors"));
        }
        err.flush();
        return load.roster();
    }

    /**
     * {@code TIME} as an instant: with an offset ({@code 2026-12-12T09:00+01:00}, {@code …Z}) as written, without
     * one in {@code zone}.
     */
    static Instant instant(String text, ZoneId zone) {
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeException withoutOffset) {
            return LocalDateTime.parse(text).atZone(zone).toInstant();
        }
    }

    /** {@code gpuwatch oncall check FILE}: load and check an on-call file; exit 1 on any error. */
    @Command(name = "check", mixinStandardHelpOptions = true,
            description = "Read an on-call file and print every problem GCC-style (file:line:col: error: …); exits 1 "
                    + "when there is an error. On success prints the people and schedules. Format: docs/oncall.md.")
    static final class Check implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "FILE", description = "the on-call file (YAML)")
        Path file;

        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            Roster roster = load(file, spec.commandLine().getErr());
            if (roster == null) {
                return 1;
            }
            for (Person p : roster.people().values()) {
                out.println("person " + p.id() + " (" + p.name() + ")" + (p.contacts().isEmpty() ? ""
                        : ": " + String.join(", ", p.sortedContacts().keySet())));
            }
            int rotations = 0;
            for (Schedule s : roster.scheduleList()) {
                out.println("schedule " + s.id() + " (" + s.name() + ", " + s.zone().getId() + ")");
                for (Layer layer : s.layers()) {
                    out.println("  layer " + layer.name());
                    for (Rotation r : layer.rotations()) {
                        rotations++;
                        out.println("    rotation " + r.name() + ": every " + length(r.length()) + " from "
                                + r.start() + " " + r.zone().getId()
                                + (r.hours() == null ? "" : ", hours " + r.hours()) + ", " + String.join(" -> ",
                                r.members()));
                    }
                }
                if (!s.overrides().isEmpty()) {
                    out.println("  " + s.overrides().size() + (s.overrides().size() == 1 ? " override"
                            : " overrides"));
                }
            }
            out.println(roster.people().size() + " people, " + roster.schedules().size() + " schedules, " + rotations
                    + " rotations OK");
            out.flush();
            return 0;
        }

        private static String length(Duration d) {
            if (d.toDays() > 0 && d.equals(Duration.ofDays(d.toDays()))) {
                return d.toDays() % 7 == 0 ? d.toDays() / 7 + "w" : d.toDays() + "d";
            }
            return d.toHours() > 0 && d.toMinutesPart() == 0 ? d.toHours() + "h" : d.toMinutes() + "m";
        }
    }

    /** {@code gpuwatch oncall who --file FILE [--at TIME]}: who is on call in each layer of each schedule. */
    @Command(name = "who", mixinStandardHelpOptions = true,
            description = "Print who is on call in each layer of each schedule, now or at --at, with the shift's "
                    + "hand-offs in the schedule's zone.")
    static final class Who implements Callable<Integer> {
        @Option(names = "--file", paramLabel = "FILE", required = true, description = "the on-call file (YAML)")
        Path file;

        @Option(names = "--at", paramLabel = "TIME",
                description = "when to ask about: 2026-12-12T09:00+01:00, 2026-12-12T08:00Z, or a wall-clock time "
                        + "read in each schedule's zone (default: now)")
        String at;

        @Option(names = "--schedule", paramLabel = "ID", description = "one schedule only")
        String only;

        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            Roster roster = load(file, err);
            if (roster == null) {
                return 1;
            }
            if (only != null && roster.schedule(only).isEmpty()) {
                err.println("--schedule: no schedule `" + only + "` in " + file + " (" + String.join(", ",
                        roster.schedules().keySet()) + ")");
                err.flush();
                return 2;
            }
            for (Schedule s : roster.scheduleList()) {
                if (only != null && !only.equals(s.id())) {
                    continue;
                }
                Instant when;
                try {
                    when = at == null ? Instant.now() : instant(at, s.zone());
                } catch (DateTimeException e) {
                    err.println("--at: expected 2026-12-12T09:00+01:00, 2026-12-12T08:00Z or 2026-12-12T09:00, got "
                            + at);
                    err.flush();
                    return 2;
                }
                out.println(s.id() + " (" + s.name() + ") at " + SHOWN.format(when.atZone(s.zone())));
                List<Optional<Shift>> now = s.now(when);
                int width = s.layers().stream().mapToInt(l -> l.name().length()).max().orElse(0);
                for (int i = 0; i < s.layers().size(); i++) {
                    String layer = String.format("%-" + width + "s", s.layers().get(i).name());
                    out.println("  " + layer + "  " + now.get(i).map(shift -> shown(roster, s, shift, when))
                            .orElse("nobody"));
                }
            }
            out.flush();
            return 0;
        }

        private static String shown(Roster roster, Schedule s, Shift shift, Instant at) {
            String name = roster.person(shift.person()).map(Person::name).orElse(shift.person());
            return name + " (" + shift.person() + ")  "
                    + (Schedule.startsBeforeLookBack(shift, at) ? "since before " : "since ")
                    + SHOWN.format(shift.start().atZone(s.zone()))
                    + (Schedule.endsAfterHorizon(shift, at) ? "  until after " : "  until ")
                    + SHOWN.format(shift.end().atZone(s.zone())) + (shift.override() ? "  override" : "");
        }
    }

    /** {@code gpuwatch oncall calendar --file FILE --schedule ID}: the schedule's iCalendar feed on stdout. */
    @Command(name = "calendar", mixinStandardHelpOptions = true,
            description = "Print a schedule's shifts as iCalendar (RFC 5545), as GET /api/v1/schedules/{id}.ics "
                    + "serves it, to import into a calendar.")
    static final class Calendar implements Callable<Integer> {
        @Option(names = "--file", paramLabel = "FILE", required = true, description = "the on-call file (YAML)")
        Path file;

        @Option(names = "--schedule", paramLabel = "ID", required = true, description = "the schedule")
        String id;

        @Option(names = "--from", paramLabel = "TIME",
                description = "the window's start (default: a week ago); a shift running then is whole")
        String from;

        @Option(names = "--days", paramLabel = "N", defaultValue = "56",
                description = "the window's length in days (default: ${DEFAULT-VALUE})")
        int days;

        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            Roster roster = load(file, err);
            if (roster == null) {
                return 1;
            }
            Optional<Schedule> s = roster.schedule(id);
            if (s.isEmpty() || days < 1) {
                err.println(s.isEmpty() ? "--schedule: no schedule `" + id + "` in " + file + " ("
                        + roster.schedules().keySet().stream().collect(Collectors.joining(", ")) + ")"
                        : "--days: at least 1, got " + days);
                err.flush();
                return 2;
            }
            Instant now = Instant.now();
            Instant start;
            try {
                start = from == null ? now.minus(Duration.ofDays(7)) : instant(from, s.get().zone());
            } catch (DateTimeException e) {
                err.println("--from: expected 2026-12-12T09:00+01:00 or 2026-12-12T09:00, got " + from);
                err.flush();
                return 2;
            }
            out.print(ShiftCalendar.of(s.get(), roster, start, start.plus(Duration.ofDays(days)), now));
            out.flush();
            return 0;
        }
    }
}
