package io.gpuwatch.cli;

import io.gpuwatch.probe.trace.TraceEntry;
import io.gpuwatch.probe.trace.TraceLine;
import io.gpuwatch.probe.trace.TraceReader;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.codec.FrameCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TraceConvertCommandTest extends InProcessCommandTest {
    private static final long T0 = 1_764_700_000_000L;

    @TempDir
    Path dir;

    @Test
    void aJsonTraceBecomesBinaryAndBackWithTheSameFramesAndItsBadLinesNamed() throws IOException {
        FrameCodec codec = new FrameCodec();
        List<String> lines = new ArrayList<>();
        List<Frame> frames = new ArrayList<>();
        Hello hello = new Hello(1, "gpu-a", "boot-1", null, null, null, Map.of(), List.of());
        frames.add(hello);
        lines.add(codec.encode(hello));
        for (int s = 0; s < 100; s++) {
            Sample sample = new Sample(s + 1, T0 + 1000L * s, List.of(new CardReading("GPU-1",
                    MetricValues.builder().set(Metric.GPU_UTIL, s % 100).set(Metric.POWER_W, 312.5 + s / 10.0).build(),
                    List.of(new ProcessInfo(42, 1L << 30, "train-1", "team", "chat")))));
            frames.add(sample);
            lines.add(codec.encode(sample, "gpu-a"));
            if (s == 50) {
                Event xid = new Event(1000, T0 + 1000L * s + 5, "GPU-1", "xid", 79, "fallen off the bus", 42L);
                frames.add(xid);
                lines.add(codec.encode(xid, "gpu-a"));
                lines.add("{\"type\":\"sample\",\"seq\":");
            }
        }
        Path json = dir.resolve("in.jsonl");
        Files.write(json, lines);

        Path binary = dir.resolve("day.gwt.gz");
        assertEquals(0, run("trace", "convert", json.toString(), binary.toString()), err.toString());
        assertEquals(binary + ": 102 frames from " + json + ", 1 bad line left out", out.toString().strip());
        assertTrue(err.toString().startsWith(json + ":54: "), err.toString());
        assertEquals(frames, framesOf(binary));
        assertFalse(Files.exists(dir.resolve("day.gwt.gz.partial")));

        Path back = dir.resolve("back.jsonl");
        assertEquals(0, run("trace", "convert", binary.toString(), back.toString()), err.toString());
        assertEquals(frames, framesOf(back));
    }

    @Test
    void aTraceThatCannotBeReadLeavesNothingBehind() {
        Path target = dir.resolve("out.gwt");
        assertEquals(1, run("trace", "convert", dir.resolve("missing.jsonl").toString(), target.toString()));
        assertTrue(err.toString().contains("missing.jsonl"), err.toString());
        assertFalse(Files.exists(target));
        assertFalse(Files.exists(dir.resolve("out.gwt.partial")));
        assertEquals(2, run("trace", "convert", target.toString(), target.toString()));
    }

    private static List<Frame> framesOf(Path file) {
        List<Frame> frames = new ArrayList<>();
        try (TraceReader r = TraceReader.open(file)) {
            while (r.hasNext()) {
                TraceLine l = r.next();
                frames.add(((TraceEntry) l).frame());
            }
        }
        return frames;
    }
}
