package io.gpuwatch.probe.trace;

import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.codec.FrameCodec;
import io.gpuwatch.protocol.codec.FrameLimits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.gpuwatch.probe.trace.Frames.T0;
import static io.gpuwatch.probe.trace.Frames.hello;
import static io.gpuwatch.probe.trace.Frames.sample;
import static io.gpuwatch.probe.trace.Frames.xid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TraceReaderTest {
    private final FrameCodec codec = new FrameCodec();

    @TempDir
    Path dir;

    private Path trace(String name, String... lines) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        return file;
    }

    private static List<TraceLine> readAll(TraceReader r) {
        List<TraceLine> out = new ArrayList<>();
        r.forEachRemaining(out::add);
        return out;
    }

    @Test
    void badLinesAreNamedByFileAndLineAndReadingGoesOn() throws IOException {
        Path file = trace("trace.jsonl",
                codec.encode(hello("gpu-a17", "boot-a")),
                codec.encode(sample("gpu-a17", 1, T0, 71), "gpu-a17"),
                "{\"type\":\"sample\",\"seq\":2,\"node\":\"gpu-a17\",\"ts\":1764700001000,"
                        + "\"cards\":[{\"uuid\":\"GPU-gpu-a17\",\"tempC\":\"hot\"}]}",
                "{\"type\":\"sample\",\"seq\":3,",
                "",
                "{\"type\":\"helo\",\"v\":1}",
                "{\"type\":\"ack\",\"seq\":3}",
                "{\"type\":\"sample\",\"seq\":1,\"node\":\"gpu-c03\",\"ts\":1764700000000,\"cards\":[]}",
                "{\"type\":\"sample\",\"seq\":4,\"node\":\"gpu a17\",\"ts\":1764700000000,\"cards\":[]}",
                codec.encode(xid("gpu-a17", 5, T0 + 2000, 79), "gpu-a17"));
        try (TraceReader r = TraceReader.open(file)) {
            List<TraceLine> lines = readAll(r);
            assertEquals(9, lines.size(), "the blank line 5 is skipped");
            assertEquals(new TraceEntry(1, "gpu-a17", hello("gpu-a17", "boot-a")), lines.get(0));
            assertEquals(new TraceEntry(2, "gpu-a17", sample("gpu-a17", 1, T0, 71)), lines.get(1));
            assertEquals(file + ":3: field 'cards[0].tempC' must be a number, got \"hot\"", lines.get(2).toString());
            TraceError hot = (TraceError) lines.get(2);
            assertEquals("bad_frame", hot.code());
            assertEquals("cards[0].tempC", hot.path());
            assertTrue(lines.get(3).toString().startsWith(file + ":4: invalid JSON at 1:"), lines.get(3).toString());
            assertEquals("bad_json", ((TraceError) lines.get(3)).code());
            assertEquals(file + ":6: unknown frame type 'helo'", lines.get(4).toString());
            assertEquals(file + ":7: a 'ack' frame is sent by the gateway; a trace holds the frames of producers",
                    lines.get(5).toString());
            assertEquals(file + ":8: node 'gpu-c03' has not said hello before this frame", lines.get(6).toString());
            assertEquals(TraceError.NO_HELLO, ((TraceError) lines.get(6)).code());
            assertEquals(file + ":9: field 'node' must be 1 to 253 of the characters A-Z a-z 0-9 . _ -, got \"gpu a17\"",
                    lines.get(7).toString());
            assertEquals(new TraceEntry(10, "gpu-a17", xid("gpu-a17", 5, T0 + 2000, 79)), lines.get(8));
            assertEquals(6, r.badLines());
            assertEquals(3, r.entries());
            assertFalse(r.endedEarly());
        }
    }

    @Test
    void framesWithoutANodeKeyBelongToTheOnlyProducer() throws IOException {
        Path file = trace("one.jsonl",
                codec.encode(hello("gpu-a17", "boot-a")),
                codec.encode(sample("gpu-a17", 1, T0, 71)),
                codec.encode(xid("gpu-a17", 2, T0 + 10, 48)));
        try (TraceReader r = TraceReader.open(file)) {
            assertEquals(List.of(new TraceEntry(1, "gpu-a17", hello("gpu-a17", "boot-a")),
                    new TraceEntry(2, "gpu-a17", sample("gpu-a17", 1, T0, 71)),
                    new TraceEntry(3, "gpu-a17", xid("gpu-a17", 2, T0 + 10, 48))), readAll(r));
        }
    }

    @Test
    void aFrameWithoutANodeKeyIsAnErrorWithNoProducerOrSeveral() throws IOException {
        Path file = trace("many.jsonl",
                codec.encode(sample("gpu-a17", 1, T0, 71)),
                codec.encode(hello("gpu-a17", "boot-a")),
                codec.encode(hello("gpu-b02", "boot-b")),
                codec.encode(sample("gpu-b02", 1, T0, 64)),
                codec.encode(sample("gpu-b02", 1, T0, 64), "gpu-b02"));
        try (TraceReader r = TraceReader.open(file)) {
            List<TraceLine> lines = readAll(r);
            assertEquals(file + ":1: missing 'node' key, and no hello comes before this frame to say whose it is",
                    lines.get(0).toString());
            assertEquals(TraceError.NO_NODE, ((TraceError) lines.get(0)).code());
            assertEquals(file + ":4: missing 'node' key, which a trace of 2 producers needs (gpu-a17, gpu-b02)",
                    lines.get(3).toString());
            assertEquals(new TraceEntry(5, "gpu-b02", sample("gpu-b02", 1, T0, 64)), lines.get(4));
            assertEquals(List.of("gpu-a17", "gpu-b02"), r.producers());
            assertEquals(2, r.badLines());
        }
    }

    @Test
    void theNodesLatestHelloNamesItsCurrentBoot() throws IOException {
        Path file = trace("boots.jsonl",
                codec.encode(hello("gpu-a17", "boot-1")),
                codec.encode(sample("gpu-a17", 1, T0, 71), "gpu-a17"),
                codec.encode(hello("gpu-a17", "boot-2")));
        try (TraceReader r = TraceReader.open(file)) {
            r.next();
            r.next();
            assertEquals("boot-1", r.hello("gpu-a17").bootId());
            r.next();
            assertEquals("boot-2", r.hello("gpu-a17").bootId());
            assertEquals(List.of("gpu-a17"), r.producers());
        }
    }

    @Test
    void aMissingFileIsOneErrorNotAnException() {
        Path file = dir.resolve("nowhere.jsonl");
        try (TraceReader r = TraceReader.open(file)) {
            List<TraceLine> lines = readAll(r);
            assertEquals(1, lines.size());
            TraceError e = assertInstanceOf(TraceError.class, lines.get(0));
            assertEquals(TraceError.UNREADABLE, e.code());
            assertEquals(file + ": cannot read: no such file", e.toString());
            assertFalse(r.hasNext());
        }
    }

    @Test
    void anOverlongLineIsRefusedWithoutHoldingItAndTheNextLineIsRead() throws IOException {
        // 200-byte frames: a line may have 512 more for the node key
        FrameLimits small = new FrameLimits(200, 64, 256, 4096);
        String huge = "{\"type\":\"event\",\"text\":\"" + "x".repeat(2000) + "\"}";
        Path file = trace("long.jsonl", codec.encode(hello("gpu-a17", "boot-a")), huge,
                codec.encode(xid("gpu-a17", 1, T0, 79), "gpu-a17"));
        try (TraceReader r = TraceReader.open(file, small)) {
            List<TraceLine> lines = readAll(r);
            assertEquals(file + ":2: line is " + huge.length() + " bytes, over the 712-byte limit",
                    lines.get(1).toString());
            assertEquals("too_large", ((TraceError) lines.get(1)).code());
            assertEquals(new TraceEntry(3, "gpu-a17", xid("gpu-a17", 1, T0, 79)), lines.get(2));
        }
    }

    @Test
    void aLineThatIsNotUtf8IsABadLine() throws IOException {
        Path file = dir.resolve("latin1.jsonl");
        byte[] head = (codec.encode(hello("gpu-a17", "boot-a")) + "\n").getBytes(StandardCharsets.UTF_8);
        byte[] bad = "{\"type\":\"event\",\"text\":\"caf\u00e9\"}\n".getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = new byte[head.length + bad.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(bad, 0, all, head.length, bad.length);
        Files.write(file, all);
        try (TraceReader r = TraceReader.open(file)) {
            List<TraceLine> lines = readAll(r);
            assertInstanceOf(Hello.class, ((TraceEntry) lines.get(0)).frame());
            assertEquals(file + ":2: line is not UTF-8 text", lines.get(1).toString());
        }
    }
}
