package io.gpuwatch.gateway.baseline;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BaselineFileTest {
    private static final long T = 1_762_041_600_000L;

    private static BaselineBook learned() {
        BaselineBook book = BaselineBook.defaults();
        SplittableRandom r = new SplittableRandom(5);
        for (int m = 0; m < 9 * 24 * 60; m++) {
            book.observe("ads", "ttftP99s", T + m * 60_000L, 0.8 + r.nextDouble() * 0.1);
            book.observe("search", "costPerToken", T + m * 60_000L, 2e-6 + r.nextDouble() * 1e-7);
        }
        book.observe("ads", "ttftP99s", T + 9 * 24 * 3_600_000L + 5, 0.95);
        return book;
    }

    @Test
    void aRestartResumesWithTheSameBaselinesHourlyProfilesAndOpenMinute(@TempDir Path dir) throws Exception {
        BaselineBook before = learned();
        Path file = dir.resolve("baselines.jsonl");
        BaselineFile.write(file, BaselineFile.encode(before));
        BaselineBook after = BaselineBook.defaults();
        BaselineFile.Loaded loaded = BaselineFile.read(file, after);
        assertEquals(2, loaded.series());
        assertTrue(loaded.problems().isEmpty(), loaded.problems().toString());
        for (long at = T + 9 * 24 * 3_600_000L + 60_000; at < T + 10 * 24 * 3_600_000L; at += 3_600_000) {
            assertEquals(before.get("ads", "ttftP99s", at), after.get("ads", "ttftP99s", at));
            assertEquals(before.get("search", "costPerToken", at), after.get("search", "costPerToken", at));
        }
        assertTrue(after.get("ads", "ttftP99s", T + 10 * 24 * 3_600_000L).hourly());
        assertEquals(BaselineFile.encode(before), BaselineFile.encode(after));
    }

    @Test
    void aDamagedLineIsReportedWithItsNumberAndTheOthersAreKept(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("baselines.jsonl");
        List<String> lines = new ArrayList<>(BaselineFile.encode(learned()).lines().toList());
        lines.set(1, lines.get(1).substring(0, 40));
        Files.write(file, lines);
        BaselineBook book = BaselineBook.defaults();
        BaselineFile.Loaded loaded = BaselineFile.read(file, book);
        assertEquals(1, loaded.series());
        assertEquals(1, loaded.problems().size());
        assertTrue(loaded.problems().get(0).startsWith(file + ":2: "), loaded.problems().toString());
        assertEquals(1, book.size());
    }

    @Test
    void aMissingFileIsAnEmptyHistoryAndAForeignOneIsRefused(@TempDir Path dir) throws Exception {
        BaselineBook book = BaselineBook.defaults();
        assertEquals(new BaselineFile.Loaded(0, List.of()), BaselineFile.read(dir.resolve("none"), book));
        Path foreign = Files.writeString(dir.resolve("other"), "{\"v\":7}\n{\"business\":\"x\"}\n");
        BaselineFile.Loaded loaded = BaselineFile.read(foreign, book);
        assertEquals(0, loaded.series());
        assertTrue(loaded.problems().get(0).contains(":1: baseline file version 7 is not 1"), loaded.problems().toString());
        assertEquals(0, book.size());
    }

    @Test
    void writingReplacesTheFileWhole(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("baselines.jsonl");
        BaselineFile.write(file, "old\n");
        BaselineFile.write(file, BaselineFile.encode(learned()));
        assertTrue(Files.readString(file).startsWith("{\"v\":1}\n"));
        try (var files = Files.list(dir)) {
            assertEquals(1, files.count(), "no temporary file is left behind");
        }
    }
}
