package io.gpuwatch.probe.attribution;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LabelsWatchTest {
    private static final String UID = "3f1c2a9e-5b7d-4c1e-9a8f-0123456789ab";
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final List<List<LabelsError>> reported = new ArrayList<>();
    private long mtime = 1_764_700_000_000L;

    private void write(Path file, String text) throws IOException {
        Files.writeString(file, text);
        // explicit times, as two writes within the file system's timestamp granularity would look alike
        mtime += 1_000;
        Files.setLastModifiedTime(file, FileTime.fromMillis(mtime));
    }

    private static String task(LabelsWatch w) {
        return w.get().pod(UID).task();
    }

    private static String version(String task) {
        return "pods:\n  " + UID + ": {task: " + task + "}\n";
    }

    @Test
    void aChangedFileIsReadOnceTheCheckIntervalHasPassed(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("labels.yaml");
        write(file, version("v1"));
        LabelsWatch w = new LabelsWatch(file, Duration.ofSeconds(5), clock::get, reported::add);
        assertEquals("v1", task(w));
        write(file, version("v2"));
        clock.addAndGet(4_999);
        assertEquals("v1", task(w));
        clock.addAndGet(1);
        assertEquals("v2", task(w));
        assertEquals(List.of(), reported);
    }

    @Test
    void aBrokenVersionKeepsTheLastGoodMappingAndIsReportedOnce(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("labels.yaml");
        write(file, version("v1"));
        LabelsWatch w = new LabelsWatch(file, Duration.ofSeconds(5), clock::get, reported::add);
        write(file, "pods:\n  " + UID + ": {task: v2, team: llm}\n");
        clock.addAndGet(5_000);
        assertEquals("v1", task(w));
        clock.addAndGet(5_000);
        assertEquals("v1", task(w));
        assertEquals(1, reported.size());
        assertEquals(List.of(new LabelsError(file.toString(), 2, 52, "unknown key 'team'; known keys: business, "
                + "owner, task")), reported.get(0));
        write(file, version("v3"));
        clock.addAndGet(5_000);
        assertEquals("v3", task(w));
        assertEquals(1, reported.size());
    }

    @Test
    void aFileThatIsMissingAtFirstStartsEmptyAndIsPickedUpWhenWritten(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("labels.yaml");
        LabelsWatch w = new LabelsWatch(file, Duration.ofSeconds(1), clock::get, reported::add);
        assertEquals(Labels.empty(), w.get());
        clock.addAndGet(1_000);
        assertEquals(Labels.empty(), w.get());
        assertEquals(1, reported.size());
        assertTrue(reported.get(0).get(0).message().startsWith("cannot read: "));
        write(file, version("v1"));
        clock.addAndGet(1_000);
        assertEquals("v1", task(w));
    }

    @Test
    void aDeletedFileKeepsTheMappingAndIsReportedOnce(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("labels.yaml");
        write(file, version("v1"));
        LabelsWatch w = new LabelsWatch(file, Duration.ofSeconds(1), clock::get, reported::add);
        Files.delete(file);
        clock.addAndGet(1_000);
        assertEquals("v1", task(w));
        clock.addAndGet(1_000);
        assertEquals("v1", task(w));
        assertEquals(1, reported.size());
    }
}
