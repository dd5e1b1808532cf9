package io.gpuwatch.probe.trace;

import io.gpuwatch.protocol.Welcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.gpuwatch.probe.trace.Frames.T0;
import static io.gpuwatch.probe.trace.Frames.hello;
import static io.gpuwatch.probe.trace.Frames.sample;
import static io.gpuwatch.probe.trace.Frames.xid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TraceWriterTest {
    @TempDir
    Path dir;

    /** A disk that hangs on its first write until released, so the writer thread is held where a test wants. */
    static final class StuckDisk extends OutputStream {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final CountDownLatch stuck = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void write(int b) throws IOException {
            write(new byte[]{(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            stuck.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            bytes.write(b, off, len);
        }
    }

    private static List<TraceRoundTripTest.Line> linesOf(Path file) {
        return TraceRoundTripTest.entries(TraceRoundTripTest.readAll(file));
    }

    @Test
    void aFullQueueShedsSamplesButKeepsEveryEvent() throws Exception {
        StuckDisk disk = new StuckDisk();
        TraceWriter w = new TraceWriter(disk, false, "stuck.jsonl", 3);
        assertTrue(w.write(hello("gpu-a17", "boot-a"), null));
        w.flush();
        assertTrue(disk.stuck.await(5, TimeUnit.SECONDS), "the writer thread reached the disk");

        assertTrue(w.write(sample("gpu-a17", 1, T0, 70), "gpu-a17"));
        assertTrue(w.write(sample("gpu-a17", 2, T0 + 1000, 71), "gpu-a17"));
        assertTrue(w.write(sample("gpu-a17", 3, T0 + 2000, 72), "gpu-a17"));
        assertFalse(w.write(sample("gpu-a17", 4, T0 + 3000, 73), "gpu-a17"), "the queue holds 3");
        assertTrue(w.write(xid("gpu-a17", 5, T0 + 3100, 79), "gpu-a17"), "an event goes in all the same");
        assertFalse(w.write(sample("gpu-a17", 6, T0 + 4000, 74), "gpu-a17"));
        assertTrue(w.write(xid("gpu-a17", 7, T0 + 4100, 48), "gpu-a17"));
        assertEquals(2, w.stats().droppedReadings());
        assertEquals(5, w.stats().queued());

        disk.release.countDown();
        w.close();
        Path file = dir.resolve("stuck.jsonl");
        Files.write(file, disk.bytes.toByteArray());
        assertEquals(List.of(
                new TraceRoundTripTest.Line("gpu-a17", hello("gpu-a17", "boot-a")),
                new TraceRoundTripTest.Line("gpu-a17", sample("gpu-a17", 1, T0, 70)),
                new TraceRoundTripTest.Line("gpu-a17", sample("gpu-a17", 2, T0 + 1000, 71)),
                new TraceRoundTripTest.Line("gpu-a17", sample("gpu-a17", 3, T0 + 2000, 72)),
                new TraceRoundTripTest.Line("gpu-a17", xid("gpu-a17", 5, T0 + 3100, 79)),
                new TraceRoundTripTest.Line("gpu-a17", xid("gpu-a17", 7, T0 + 4100, 48))), linesOf(file));
        assertEquals(6, w.stats().written());
        assertEquals(0, w.stats().queued());
    }

    @Test
    void nothingIsTakenAfterClose() throws IOException {
        Path file = dir.resolve("closed.jsonl");
        TraceWriter w = TraceWriter.open(file);
        w.write(hello("gpu-a17", "boot-a"), null);
        w.close();
        assertFalse(w.write(xid("gpu-a17", 1, T0, 79), "gpu-a17"));
        w.close();
        assertEquals(1, Files.readAllLines(file).size());
    }

    @Test
    void aFailingDiskStopsTheRecordingAndCloseSaysSo() throws Exception {
        OutputStream broken = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("No space left on device");
            }
        };
        TraceWriter w = new TraceWriter(broken, false, "full.jsonl", 10);
        w.write(hello("gpu-a17", "boot-a"), null);
        assertThrows(Exception.class, () -> w.flush().get(5, TimeUnit.SECONDS));
        assertEquals("No space left on device", w.stats().failure());
        IOException e = assertThrows(IOException.class, w::close);
        assertEquals("full.jsonl: trace incomplete: No space left on device", e.getMessage());
    }

    @Test
    void onlyProducerFramesOfANamedNodeAreTaken() throws IOException {
        try (TraceWriter w = TraceWriter.open(dir.resolve("strict.jsonl"))) {
            assertEquals("a hello of node 'gpu-a17' cannot be recorded for node 'gpu-b02'",
                    assertThrows(IllegalArgumentException.class,
                            () -> w.write(hello("gpu-a17", "boot-a"), "gpu-b02")).getMessage());
            assertEquals("a 'sample' frame needs a valid producer node, got none",
                    assertThrows(IllegalArgumentException.class,
                            () -> w.write(sample("gpu-a17", 1, T0, 70), null)).getMessage());
            assertEquals("a 'sample' frame needs a valid producer node, got 'gpu a17'",
                    assertThrows(IllegalArgumentException.class,
                            () -> w.write(sample("gpu-a17", 1, T0, 70), "gpu a17")).getMessage());
            assertEquals("a trace holds producer frames, not 'welcome'",
                    assertThrows(IllegalArgumentException.class,
                            () -> w.write(new Welcome(1, "s", 0, 1000), "gpu-a17")).getMessage());
        }
    }
}
