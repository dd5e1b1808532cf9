package io.gpuwatch.probe.sched.slurm;

import io.gpuwatch.probe.sched.Fixtures;
import io.gpuwatch.probe.sched.SchedProducer;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Sched;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The commands run for real (stand-ins that print the recordings), through the producer's failure handling. */
class SlurmSourceTest {
    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private static void script(Path dir, String name, String body) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private static void readOnce(SchedProducer producer) throws Exception {
        producer.readOnce().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aFailingCommandIsReportedOnceAndTheProducerKeepsReading(@TempDir Path bin) throws Exception {
        Path fixtures = Fixtures.DIR.resolve("slurm").toAbsolutePath();
        script(bin, "squeue", "cat " + fixtures.resolve("squeue.json"));
        script(bin, "scontrol", "cat " + fixtures.resolve("scontrol-nodes.json"));
        script(bin, "sacct", "echo 'sacct: error: Problem talking to the database: Connection refused' >&2; exit 1");
        List<Frame> out = new CopyOnWriteArrayList<>();
        SchedProducer producer = new SchedProducer(vertx, SlurmSource.commands(vertx, bin, true),
                Duration.ofMinutes(1), () -> SlurmReaderTest.NOW, out::add);

        readOnce(producer);
        readOnce(producer);
        assertEquals(1, out.size(), "one report while it keeps failing: " + out);
        Event degraded = (Event) out.get(0);
        assertEquals("probe_degraded", degraded.kind());
        assertEquals("slurm (squeue, sacct, scontrol in " + bin + ") failing: " + bin.resolve("sacct")
                + " --json --allusers --duplicates --starttime now-1hours: exited with 1: sacct: error: Problem "
                + "talking to the database: Connection refused", degraded.text());

        script(bin, "sacct", "cat " + fixtures.resolve("sacct.json"));
        readOnce(producer);
        List<Frame> after = out.subList(1, out.size());
        assertEquals(List.of("debug", "gpu"), after.stream().filter(f -> f instanceof Sched)
                .map(f -> ((Sched) f).queue()).toList());
        Event drained = (Event) after.get(2);
        assertEquals("node_drained", drained.kind());
        assertEquals("node gpu-004 takes no jobs: IDLE+DRAIN: XID 79 on GPU 3, waiting for RMA (set by root)",
                drained.text());

        readOnce(producer);
        assertEquals(6, out.size(), "two frames, and the same drain not reported again");
    }

    @Test
    void savedOutputIsReadFromItsFiles() throws Exception {
        List<Frame> out = new CopyOnWriteArrayList<>();
        SchedProducer producer = new SchedProducer(vertx, SlurmSource.files(vertx, Fixtures.DIR.resolve("slurm")),
                Duration.ofMinutes(1), () -> SlurmReaderTest.NOW, out::add);
        readOnce(producer);
        assertEquals(3, out.size(), out.toString());
        assertTrue(out.get(1) instanceof Sched s && s.queue().equals("gpu"));
    }
}
