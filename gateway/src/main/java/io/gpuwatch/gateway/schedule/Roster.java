package io.gpuwatch.gateway.schedule;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The people who can be on call and the schedules that name them, as one on-call file gives them. */
public record Roster(Map<String, Person> people, Map<String, Schedule> schedules) {
    /** A roster with nobody and no schedule, for a gateway run without an on-call file. */
    public static final Roster EMPTY = new Roster(Map.of(), Map.of());

    public Roster {
        people = Collections.unmodifiableMap(new LinkedHashMap<>(people));
        schedules = Collections.unmodifiableMap(new LinkedHashMap<>(schedules));
    }

    public Optional<Person> person(String id) {
        return Optional.ofNullable(people.get(id));
    }

    public Optional<Schedule> schedule(String id) {
        return Optional.ofNullable(schedules.get(id));
    }

    /** Reads an on-call file, with every problem at its file:line:col. */
    public static RosterLoad load(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return RosterLoad.failed(file.toString(), "cannot read the on-call file: " + e.getMessage());
        }
        return parse(file.toString(), text);
    }

    /** Reads on-call YAML {@code text}; {@code file} names it in diagnostics. */
    public static RosterLoad parse(String file, String text) {
        return new RosterReader(file, text).read();
    }

    /** Schedules in file order. */
    public List<Schedule> scheduleList() {
        return List.copyOf(schedules.values());
    }
}
