package io.gpuwatch.cli;

import io.gpuwatch.cli.alerting.MentionRef;
import io.gpuwatch.cli.alerting.OnCallMentions;
import io.gpuwatch.gateway.reload.WatchedFile;
import io.gpuwatch.gateway.schedule.Roster;
import io.gpuwatch.notify.oncall.OnCall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gateway's on-call file read again while it runs (on change or SIGHUP, both through {@link WatchedFile#check}):
 * a good edit is taken in and changes whom the next message mentions; a file with an error, or one dropping a layer
 * a receiver mentions, keeps the roster in force and is logged at its file:line:col.
 */
class RosterReloadTest {
    private static final String FILE = """
            people:
              wei:
                name: Wei Zhang
                contacts: {slack: U024BE7LH}
              lin:
                name: Lin Chen
                contacts: {slack: U0G9QF9C6}
            schedules:
              gpu:
                name: GPU
                time_zone: UTC
                layers:
                  - name: primary
                    rotations:
                      - name: weekly
                        type: weekly
                        start: 2026-11-30T09:00
                        members: [%s]
            """;
    private static final Instant AT = Instant.parse("2026-12-02T12:00:00Z");

    @TempDir
    Path dir;

    private final List<String> logged = new ArrayList<>();
    private final Logger log = Logger.getLogger(WatchedFile.class.getName());
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            logged.add(r.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void listen() {
        log.addHandler(capture);
    }

    @AfterEach
    void stop() {
        log.removeHandler(capture);
    }

    /** Writes {@code text}, stamped a second later each time, so the change is seen on any file system. */
    private static void write(Path file, String text, int second) throws Exception {
        Files.writeString(file, text);
        Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2026-12-01T00:00:00Z").plusSeconds(second)));
    }

    @Test
    void aBadEditKeepsTheRosterInForceAndAGoodOneIsTakenIn() throws Exception {
        Path file = dir.resolve("oncall.yaml");
        write(file, FILE.formatted("wei"), 1);
        List<MentionRef> mentions = List.of(new MentionRef("gpu", "primary", "alerting.yml", 4, 14));
        List<String> problems = new ArrayList<>();
        WatchedFile<Roster> roster = WatchedFile.read(file, Loading.rosterReader(mentions), problems::add);
        assertNotNull(roster, problems.toString());
        OnCall slack = OnCallMentions.of(roster, mentions, "slack", () -> AT);
        assertEquals(List.of("U024BE7LH"), slack.addresses());

        write(file, FILE.formatted("we"), 2);
        assertFalse(roster.check(), "an unknown member is an error");
        Roster before = roster.get();
        assertEquals(List.of("U024BE7LH"), slack.addresses(), "the old roster stays in force");
        String line = logged.stream().filter(m -> m.contains("error")).findFirst().orElseThrow();
        assertTrue(line.startsWith(file + ":18:"), "at its file:line:col: " + line);
        assertTrue(line.contains("did you mean `wei`"), line);
        assertTrue(line.contains("what it held before stays in force"), line);

        write(file, FILE.formatted("lin, wei").replace("name: primary", "name: first"), 3);
        assertFalse(roster.check(), "a layer a receiver mentions may not go");
        assertSame(before, roster.get());
        assertTrue(logged.stream().anyMatch(m -> m.startsWith("alerting.yml:4:14: error: schedule `gpu` has no "
                + "layer `primary`")), logged.toString());

        write(file, FILE.formatted("lin, wei"), 4);
        assertTrue(roster.check());
        assertEquals(List.of("U0G9QF9C6"), slack.addresses(), "the next message mentions the new rotation's person");
        assertFalse(roster.check(), "nothing changed since");
    }

    @Test
    void aBrokenFileAtStartIsRefusedWithItsPlace() throws Exception {
        Path file = dir.resolve("oncall.yaml");
        write(file, FILE.formatted("wei").replace("time_zone: UTC", "time_zone: Europe/Berln"), 1);
        List<String> problems = new ArrayList<>();
        assertEquals(null, WatchedFile.read(file, Loading.rosterReader(List.of()), problems::add));
        assertTrue(problems.get(0).startsWith(file + ":11:"), problems.toString());
    }
}
