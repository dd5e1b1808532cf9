package io.gpuwatch.probe.trace;

import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import static io.gpuwatch.probe.trace.Frames.T0;
import static io.gpuwatch.probe.trace.Frames.hello;
import static io.gpuwatch.probe.trace.Frames.sample;
import static io.gpuwatch.probe.trace.Frames.xid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class RecordingTest {
    @TempDir
    Path dir;

    private static TraceRoundTripTest.Line line(String node, Frame f) {
        return new TraceRoundTripTest.Line(node, f);
    }

    @Test
    void recordsEachBootsHelloOnceAndEveryFrameItPassesOnNumberedLikeTheUplink() throws IOException {
        Path file = dir.resolve("probe.jsonl.gz");
        List<Frame> sentA = new ArrayList<>();
        List<Frame> sentB = new ArrayList<>();
        Hello a = hello("gpu-a17", "boot-a");
        Hello b = hello("gpu-b02", "boot-b");
        try (TraceWriter w = TraceWriter.open(file)) {
            Recording rec = new Recording(w);
            Consumer<Frame> toA = rec.tee(a, sentA::add);
            Consumer<Frame> toB = rec.tee(b, sentB::add);
            toA.accept(sample("gpu-a17", 0, T0, 70));
            toB.accept(sample("gpu-b02", 0, T0 + 3, 60));
            rec.hello(a);
            toA.accept(xid("gpu-a17", 0, T0 + 50, 79));
            toA.accept(sample("gpu-a17", 0, T0 + 1000, 71));
            rec.hello(hello("gpu-b02", "boot-b2"));
            toB.accept(sample("gpu-b02", 0, T0 + 2000, 40));
        }
        assertEquals(List.of(sample("gpu-a17", 0, T0, 70), xid("gpu-a17", 0, T0 + 50, 79),
                sample("gpu-a17", 0, T0 + 1000, 71)), sentA, "frames pass on as they came");
        assertEquals(2, sentB.size());
        assertEquals(List.of(
                line("gpu-a17", a),
                line("gpu-b02", b),
                line("gpu-a17", sample("gpu-a17", 1, T0, 70)),
                line("gpu-b02", sample("gpu-b02", 1, T0 + 3, 60)),
                line("gpu-a17", xid("gpu-a17", 2, T0 + 50, 79)),
                line("gpu-a17", sample("gpu-a17", 3, T0 + 1000, 71)),
                line("gpu-b02", hello("gpu-b02", "boot-b2")),
                line("gpu-b02", sample("gpu-b02", 1, T0 + 2000, 40))),
                TraceRoundTripTest.entries(TraceRoundTripTest.readAll(file)),
                "a reconnect's hello adds nothing; a new boot's hello is recorded and its seq starts over");
    }

    @Test
    void aFrameThatIsAlreadyNumberedKeepsItsSeq() throws IOException {
        Path file = dir.resolve("numbered.jsonl");
        try (TraceWriter w = TraceWriter.open(file)) {
            Recording rec = new Recording(w);
            rec.hello(hello("gpu-a17", "boot-a"));
            rec.record("gpu-a17", sample("gpu-a17", 41, T0, 70));
            rec.record("gpu-a17", sample("gpu-a17", 0, T0 + 1000, 71));
        }
        assertEquals(List.of(line("gpu-a17", hello("gpu-a17", "boot-a")),
                        line("gpu-a17", sample("gpu-a17", 41, T0, 70)),
                        line("gpu-a17", sample("gpu-a17", 42, T0 + 1000, 71))),
                TraceRoundTripTest.entries(TraceRoundTripTest.readAll(file)));
    }

    @Test
    void aFrameOfANodeWithoutARecordedHelloIsRefused() throws IOException {
        try (TraceWriter w = TraceWriter.open(dir.resolve("x.jsonl"))) {
            Recording rec = new Recording(w);
            assertEquals("no hello of node 'gpu-a17' recorded before its 'event' frame",
                    assertThrows(IllegalStateException.class,
                            () -> rec.record("gpu-a17", xid("gpu-a17", 0, T0, 79))).getMessage());
        }
    }
}
