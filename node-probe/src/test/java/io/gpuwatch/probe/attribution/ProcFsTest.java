package io.gpuwatch.probe.attribution;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcFsTest {
    private final ProcFs proc = new ProcFs(Path.of("src", "test", "resources", "proc"));

    @Test
    void startTimeIsField22EvenWhenTheCommandNameHasSpacesAndParentheses() {
        assertEquals(OptionalLong.of(1_034_567), proc.startTime(1010));
        assertEquals(OptionalLong.of(1_234_567), proc.startTime(1001));
    }

    @Test
    void environIsSplitAtNulBytes() {
        assertEquals("bob", proc.environ(1008).get("SLURM_JOB_USER"));
        assertEquals("sweep-lr", proc.environ(1008).get("SLURM_JOB_NAME"));
        assertEquals("", proc.environ(1009).get("GPUWATCH_BUSINESS"));
    }

    @Test
    void aMissingProcessHasNoStartTimeAndAnUnknownOrigin() {
        assertTrue(proc.startTime(4242).isEmpty());
        assertEquals(ProcessOrigin.UNKNOWN, proc.origin(4242));
    }

    @Test
    void aShortOrBrokenStatHasNoStartTime(@TempDir Path root) throws IOException {
        Files.createDirectories(root.resolve("5"));
        Files.writeString(root.resolve("5/stat"), "5 (kworker) S 2 0 0\n");
        Files.createDirectories(root.resolve("6"));
        Files.writeString(root.resolve("6/stat"), "6 no parentheses here\n");
        Files.createDirectories(root.resolve("7"));
        Files.writeString(root.resolve("7/stat"), "7 (x) S 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 soon 0 0\n");
        ProcFs p = new ProcFs(root);
        assertTrue(p.startTime(5).isEmpty());
        assertTrue(p.startTime(6).isEmpty());
        assertTrue(p.startTime(7).isEmpty());
    }

    @Test
    void theOriginCombinesCgroupAndEnvironment() {
        assertEquals(new ProcessOrigin(null, null, "88121", "alice", Attribution.NONE), proc.origin(1006));
        assertEquals(new ProcessOrigin("3f1c2a9e-5b7d-4c1e-9a8f-0123456789ab",
                        "252f10c83610ebca1a059c0bae8255eba2f95be4d1d7bcfa89d7248a82d9f111", null, null,
                        new Attribution("eval-harness", "carol", null)),
                proc.origin(1009));
    }
}
