package io.gpuwatch.probe.trace;

import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.codec.FrameCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;

import static io.gpuwatch.probe.trace.Frames.T0;
import static io.gpuwatch.probe.trace.Frames.app;
import static io.gpuwatch.probe.trace.Frames.hello;
import static io.gpuwatch.probe.trace.Frames.sample;
import static io.gpuwatch.probe.trace.Frames.sched;
import static io.gpuwatch.probe.trace.Frames.xid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TraceRoundTripTest {
    @TempDir
    Path dir;

    /** A node's frame as the trace should give it back. */
    record Line(String node, Frame frame) {
    }

    /** Three producers: two GPU nodes and a scheduler adapter without cards, interleaved as a gateway sees them. */
    static List<Line> fleet() {
        Hello sched = new Hello(Frame.VERSION, "slurm.bj-1", "s-1", null, null, null, Map.of(), List.of());
        return List.of(
                new Line("gpu-a17", hello("gpu-a17", "boot-a")),
                new Line("gpu-b02", hello("gpu-b02", "boot-b")),
                new Line("gpu-a17", sample("gpu-a17", 1, T0, 71)),
                new Line("gpu-b02", sample("gpu-b02", 1, T0 + 4, 64)),
                new Line("slurm.bj-1", sched),
                new Line("gpu-a17", xid("gpu-a17", 2, T0 + 123, 79)),
                new Line("slurm.bj-1", sched(1, T0 + 200)),
                new Line("gpu-b02", app(2, T0 + 500)),
                new Line("gpu-a17", sample("gpu-a17", 3, T0 + 1000, 72.5)),
                new Line("gpu-b02", sample("gpu-b02", 3, T0 + 1004, 64)));
    }

    static void write(TraceWriter w, List<Line> lines) {
        for (Line l : lines) {
            assertTrue(w.write(l.frame(), l.frame() instanceof Hello ? null : l.node()));
        }
    }

    static List<TraceLine> readAll(Path file) {
        List<TraceLine> out = new ArrayList<>();
        try (TraceReader r = TraceReader.open(file)) {
            r.forEachRemaining(out::add);
        }
        return out;
    }

    static List<Line> entries(List<TraceLine> lines) {
        return lines.stream().filter(l -> l instanceof TraceEntry).map(l -> (TraceEntry) l)
                .map(e -> new Line(e.node(), e.frame())).toList();
    }

    private static boolean gzipped(Path file) throws IOException {
        byte[] b = Files.readAllBytes(file);
        return b.length > 2 && (b[0] & 0xff) == 0x1f && (b[1] & 0xff) == 0x8b;
    }

    @ParameterizedTest
    @ValueSource(strings = {"fleet.jsonl", "fleet.jsonl.gz", "fleet.gwt", "fleet.gwt.gz"})
    void framesOfSeveralNodesComeBackEqualWithTheirNodesAndLineNumbers(String name) throws IOException {
        Path file = dir.resolve(name);
        try (TraceWriter w = TraceWriter.open(file)) {
            write(w, fleet());
        }
        assertEquals(name.endsWith(".gz"), gzipped(file), "gzip exactly when the name ends in .gz");
        List<TraceLine> lines = readAll(file);
        assertEquals(fleet(), entries(lines));
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L),
                lines.stream().map(l -> ((TraceEntry) l).lineNo()).toList());
    }

    @Test
    void aBinaryTraceIsReadRecordByRecordAndSaysWhereItBroke() throws Exception {
        Path file = dir.resolve("live.gwt");
        Path copy = dir.resolve("killed.gwt");
        List<Line> all = fleet();
        try (TraceWriter w = TraceWriter.open(file)) {
            write(w, all.subList(0, 6));
            w.flush().get(5, TimeUnit.SECONDS);
            write(w, all.subList(6, all.size()));
        }
        byte[] whole = Files.readAllBytes(file);
        assertFalse(Files.readString(file, StandardCharsets.ISO_8859_1).contains("\"tempC\""),
                "samples are numbers, not JSON");
        // a recorder killed in the middle of its last record
        Files.write(copy, Arrays.copyOf(whole, whole.length - 3));
        List<TraceLine> cut = readAll(copy);
        assertEquals(all.subList(0, 9), entries(cut));
        TraceError end = assertInstanceOf(TraceError.class, cut.get(9));
        assertEquals(TraceError.BAD_RECORD, end.code());
        assertTrue(end.toString().matches("\\S+killed\\.gwt:10: byte \\d+: the file ends inside a record .*"),
                end.toString());
    }

    @Test
    void aPlainTraceIsOneWireFramePerLineWithTheNodeKeyOnAllButHello() throws IOException {
        Path file = dir.resolve("wire.jsonl");
        try (TraceWriter w = TraceWriter.open(file)) {
            write(w, fleet().subList(0, 3));
        }
        FrameCodec codec = new FrameCodec();
        assertEquals(List.of(
                        codec.encode(hello("gpu-a17", "boot-a")),
                        codec.encode(hello("gpu-b02", "boot-b")),
                        codec.encode(sample("gpu-a17", 1, T0, 71), "gpu-a17")),
                Files.readAllLines(file, StandardCharsets.UTF_8));
        assertTrue(Files.readString(file).contains("{\"type\":\"sample\",\"seq\":1,\"node\":\"gpu-a17\""));
    }

    @ParameterizedTest
    @ValueSource(strings = {"again.jsonl", "again.jsonl.gz", "again.gwt", "again.gwt.gz"})
    void openingAnExistingTraceAppendsToIt(String name) throws IOException {
        Path file = dir.resolve(name);
        List<Line> all = fleet();
        try (TraceWriter w = TraceWriter.open(file)) {
            write(w, all.subList(0, 4));
        }
        try (TraceWriter w = TraceWriter.open(file)) {
            write(w, all.subList(4, all.size()));
        }
        assertEquals(all, entries(readAll(file)));
    }

    @Test
    void whatWasFlushedIsReadableFromAGzipTraceWhoseRecorderDied() throws Exception {
        Path file = dir.resolve("live.jsonl.gz");
        Path copy = dir.resolve("killed.jsonl.gz");
        List<Line> all = fleet();
        try (TraceWriter w = TraceWriter.open(file)) {
            write(w, all.subList(0, 6));
            w.flush().get(5, TimeUnit.SECONDS);
            // the bytes on disk now are what a killed recorder leaves: no gzip trailer
            Files.copy(file, copy);
            write(w, all.subList(6, all.size()));
        }
        List<TraceLine> cut = readAll(copy);
        assertEquals(all.subList(0, 6), entries(cut));
        assertEquals(7, cut.size());
        TraceError end = assertInstanceOf(TraceError.class, cut.get(6));
        assertEquals(TraceError.ENDED_EARLY, end.code());
        assertEquals(copy + ": ended early: the gzip stream breaks off after line 6 (the recorder stopped before "
                + "it finished the file)", end.toString());
        assertEquals(all, entries(readAll(file)), "the writer itself finished its file on close");
    }

    @Test
    void aGzipCutInsideALineGivesTheCompleteLinesThenOneErrorNamingTheCut() throws IOException {
        FrameCodec codec = new FrameCodec();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        GZIPOutputStream gz = new GZIPOutputStream(bytes, true);
        String text = codec.encode(hello("gpu-a17", "boot-a")) + "\n"
                + codec.encode(sample("gpu-a17", 1, T0, 71), "gpu-a17") + "\n"
                + codec.encode(sample("gpu-a17", 2, T0 + 1000, 72), "gpu-a17") + "\n"
                + "{\"type\":\"sample\",\"seq\":3,\"node\":\"gpu-a17\",\"ts\":17647";
        gz.write(text.getBytes(StandardCharsets.UTF_8));
        gz.flush();
        Path file = dir.resolve("cut.jsonl.gz");
        Files.write(file, bytes.toByteArray());

        try (TraceReader r = TraceReader.open(file)) {
            List<TraceLine> lines = new ArrayList<>();
            r.forEachRemaining(lines::add);
            assertEquals(List.of(new Line("gpu-a17", hello("gpu-a17", "boot-a")),
                    new Line("gpu-a17", sample("gpu-a17", 1, T0, 71)),
                    new Line("gpu-a17", sample("gpu-a17", 2, T0 + 1000, 72))), entries(lines));
            assertEquals(file + ": ended early: the gzip stream breaks off in the middle of line 4, which is left out"
                    + " (the recorder stopped before it finished the file)", lines.get(3).toString());
            assertEquals(4, lines.size());
            assertTrue(r.endedEarly());
            assertEquals(0, r.badLines(), "a cut is not a bad line");
            assertEquals(3, r.entries());
        }
    }

    @Test
    void aPlainTraceEndingWithoutANewlineStillGivesItsLastLine() throws IOException {
        FrameCodec codec = new FrameCodec();
        Path file = dir.resolve("nonl.jsonl");
        Files.writeString(file, codec.encode(hello("gpu-a17", "boot-a")) + "\r\n"
                + codec.encode(xid("gpu-a17", 1, T0, 79), "gpu-a17"));
        List<TraceLine> lines = readAll(file);
        assertEquals(List.of(new Line("gpu-a17", hello("gpu-a17", "boot-a")),
                new Line("gpu-a17", xid("gpu-a17", 1, T0, 79))), entries(lines));
        assertFalse(lines.stream().anyMatch(l -> l instanceof TraceError));
    }
}
