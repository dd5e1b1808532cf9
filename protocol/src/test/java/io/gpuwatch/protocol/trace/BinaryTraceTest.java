package io.gpuwatch.protocol.trace;

import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.codec.FrameLimits;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PushbackInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BinaryTraceTest {
    /** Values a JSON trace may hold, and doubles no decimal of at most 15 places gives back. */
    private static final double[] ODD = {0, 1, -1, 0.1, 0.79, 579.2, 3.219387704E8, 62111021006.0, 1e-300, 1e300,
        Math.PI, -0.0, Double.MIN_VALUE, Double.MAX_VALUE, Double.POSITIVE_INFINITY, (double) (1L << 53) + 2,
        (double) Long.MAX_VALUE, 123456789.123456789, 0.30000000000000004, -273.15};

    private record Written(String node, Frame frame) {
    }

    @Test
    void framesComeBackEqualValueForValue() throws IOException {
        Random rnd = new Random(15);
        List<Written> frames = new ArrayList<>();
        frames.add(new Written("gpu-a", hello("gpu-a")));
        frames.add(new Written("gpu-b", hello("gpu-b")));
        for (int i = 0; i < 2_000; i++) {
            String node = rnd.nextBoolean() ? "gpu-a" : "gpu-b";
            frames.add(new Written(node, rnd.nextInt(50) == 0
                    ? new Event(i, 1_764_547_200_000L + i, "GPU-" + node + "-1", "xid", 79, "fallen off", 42L)
                    : sample(rnd, node, i)));
        }
        List<Written> back = readAll(write(frames));
        assertEquals(frames, back);
    }

    @Test
    void everyValueKeepsItsBits() throws IOException {
        List<Written> frames = new ArrayList<>();
        for (int i = 0; i < ODD.length; i++) {
            MetricValues.Builder v = MetricValues.builder();
            for (int m = 0; m < Metric.count(); m++) {
                v.set(Metric.of(m), ODD[(i + m) % ODD.length]);
            }
            frames.add(new Written("n", new Sample(i, 1_000L * i, List.of(new CardReading("GPU-1", v.build(),
                    List.of())))));
        }
        List<Written> back = readAll(write(frames));
        for (int i = 0; i < frames.size(); i++) {
            MetricValues want = ((Sample) frames.get(i).frame()).cards().get(0).values();
            MetricValues got = ((Sample) back.get(i).frame()).cards().get(0).values();
            for (int m = 0; m < Metric.count(); m++) {
                assertEquals(Double.doubleToRawLongBits(want.get(m)), Double.doubleToRawLongBits(got.get(m)),
                        "frame " + i + " " + Metric.of(m).field());
            }
        }
    }

    @Test
    void aCutFileGivesItsWholeRecordsThenSaysWhereItEnded() throws IOException {
        Random rnd = new Random(3);
        List<Written> frames = samples(rnd, 0, 20);
        byte[] whole = write(frames);
        byte[] upToLast = write(frames.subList(0, 19));
        for (int cut = upToLast.length + 1; cut < whole.length; cut++) {
            List<Object> entries = entries(Arrays.copyOf(whole, cut));
            assertEquals(20, entries.size(), "cut at " + cut);
            assertEquals(frames.subList(0, 19), entries.subList(0, 19));
            BinaryTraceReader.Problem p = assertInstanceOf(BinaryTraceReader.Problem.class, entries.get(19));
            assertTrue(p.message().startsWith("t.gwt: byte " + upToLast.length + ": "), p.message());
        }
    }

    @Test
    void aFileAppendedToByASecondWriterReadsAsOne() throws IOException {
        Random rnd = new Random(5);
        List<Written> first = samples(rnd, 0, 50);
        List<Written> second = samples(rnd, 100, 50);
        ByteArrayOutputStream both = new ByteArrayOutputStream();
        both.write(write(first));
        both.write(write(second));
        List<Written> all = new ArrayList<>(first);
        all.addAll(second);
        assertEquals(all, readAll(both.toByteArray()));
    }

    @Test
    void damagedBytesGiveProblemsNeverAnException() throws IOException {
        Random rnd = new Random(9);
        List<Written> frames = samples(rnd, 0, 30);
        byte[] whole = write(frames);
        for (int trial = 0; trial < 500; trial++) {
            byte[] damaged = whole.clone();
            for (int k = 1 + rnd.nextInt(4); k > 0; k--) {
                damaged[8 + rnd.nextInt(damaged.length - 8)] = (byte) rnd.nextInt(256);
            }
            // whatever it makes of them, it ends
            assertTrue(entries(damaged).size() <= 31);
        }
    }

    @Test
    void theStringTableStartsOverBeforeItGrowsWithoutBound() throws IOException {
        List<Written> frames = new ArrayList<>();
        int tasks = 0;
        for (int i = 0; tasks < BinaryTrace.MAX_STRINGS + 1_000; i++) {
            List<ProcessInfo> ps = new ArrayList<>();
            for (int p = 0; p < 200; p++) {
                ps.add(new ProcessInfo(p, (long) p << 20, "task-" + tasks++, "team", "biz"));
            }
            MetricValues v = MetricValues.builder().set(Metric.GPU_UTIL, i % 100).set(Metric.POWER_W, 300.5 + i)
                    .build();
            frames.add(new Written("gpu-a", new Sample(i, 1_000L * i, List.of(new CardReading("GPU-1", v, ps)))));
        }
        assertEquals(frames, readAll(write(frames)));
    }

    @Test
    void aFileThatNeverForgetsItsStringsIsStoppedBeforeItFillsTheMemory() throws IOException {
        FrameLimits small = new FrameLimits(1 << 20, 1, 1, 64);
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        file.write(write(List.of()));
        int samples = BinaryTrace.MAX_STRINGS + 10;
        for (int i = 0; i < samples; i++) {
            // a sample whose node is a new string each time, and no forget record
            byte[] node = ("n" + i).getBytes(StandardCharsets.UTF_8);
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            body.write(new byte[] {1, 1, (byte) node.length});
            body.write(node);
            body.write(new byte[] {0, 0, 0});
            file.write(body.size());
            file.write(body.toByteArray());
        }
        BinaryTraceReader r = new BinaryTraceReader(new ByteArrayInputStream(file.toByteArray()), "t.gwt", small);
        int read = 0;
        BinaryTraceReader.Entry e;
        while ((e = r.next()) instanceof BinaryTraceReader.Read) {
            read++;
        }
        // the table's bound plus one sample's worth: a node, a card and its process's three
        assertEquals(BinaryTrace.MAX_STRINGS + 5, read);
        assertTrue(((BinaryTraceReader.Problem) e).what().startsWith("more than "), e.toString());
        assertNull(r.next());
    }

    @Test
    void otherFilesAreNamedForWhatTheyAre() throws IOException {
        List<Object> entries = entries("{\"type\":\"hello\"}\n".getBytes());
        BinaryTraceReader.Problem p = assertInstanceOf(BinaryTraceReader.Problem.class, entries.get(0));
        assertEquals("t.gwt: byte 0: not a gpuwatch binary trace (it does not start with the format's magic bytes)",
                p.message());
        assertEquals(1, entries.size());
        assertFalse(BinaryTrace.starts(new PushbackInputStream(new ByteArrayInputStream("{}".getBytes()), 8)));
        assertFalse(BinaryTrace.starts(new PushbackInputStream(new ByteArrayInputStream(new byte[0]), 8)));
        PushbackInputStream binary = new PushbackInputStream(new ByteArrayInputStream(write(List.of())), 8);
        assertTrue(BinaryTrace.starts(binary));
        assertTrue(BinaryTrace.starts(binary), "starts leaves the stream unread");
        assertTrue(TraceNames.binary("day.gwt") && TraceNames.binary("day.gwt.gz"));
        assertFalse(TraceNames.binary("day.jsonl.gz"));
        assertEquals("day", TraceNames.base("day.gwt.gz"));
        assertEquals("night", TraceNames.base("night.trace.jsonl.gz"));
        assertEquals(".gz", TraceNames.base(".gz"));
        assertTrue(readAll(write(List.of())).isEmpty());
    }

    @Test
    void fieldsAndRecordsOfALaterVersionAreSkipped() throws IOException {
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        file.write(BinaryTrace.MAGIC);
        file.write(new byte[] {1, 2});
        for (String field : List.of("gpuUtil", "futureThing")) {
            file.write(field.length());
            file.write(field.getBytes(StandardCharsets.UTF_8));
        }
        // a sample of node "n" at ts 2000 whose card holds gpuUtil 55 and a field this version does not know
        byte[] sample = {1, 1, 1, 'n', 0, (byte) 0xA0, 0x1F, 1, 1, 5, 'G', 'P', 'U', '-', '1', 3, 0, 110, 0, 14, 0};
        file.write(sample.length);
        file.write(sample);
        // a record of a kind this version does not know
        file.write(new byte[] {3, 9, 42, 42});
        List<Written> back = readAll(file.toByteArray());
        assertEquals(List.of(new Written("n", new Sample(0, 2000, List.of(new CardReading("GPU-1",
                MetricValues.builder().set(Metric.GPU_UTIL, 55).build(), List.of()))))), back);
    }

    @Test
    void decimalsAreFoundAtTheirSmallestScale() {
        assertEquals(0, BinaryTraceWriter.scaleOf(62111021006.0));
        assertEquals(1, BinaryTraceWriter.scaleOf(579.2));
        assertEquals(2, BinaryTraceWriter.scaleOf(0.79));
        assertEquals(15, BinaryTraceWriter.scaleOf(Math.PI), "3.141592653589793 is 3141592653589793 / 10^15");
        assertEquals(-1, BinaryTraceWriter.scaleOf(1.0 / 3));
        assertEquals(-1, BinaryTraceWriter.scaleOf(-0.0));
        assertEquals(-1, BinaryTraceWriter.scaleOf(1e300));
    }

    private static Hello hello(String node) {
        return new Hello(1, node, "boot-" + node, "gpuwatch-probe/0.1.0", "580.95.05", "13.580.95.05",
                Map.of("cluster", "bj-1"), List.of(new CardInfo("GPU-" + node + "-1", 0, "NVIDIA H100 80GB HBM3",
                        "00000000:17:00.0", 85520809984L, 700.0, 1980, false)));
    }

    /** {@code n} samples of node gpu-a, numbered from {@code seq}. */
    private static List<Written> samples(Random rnd, long seq, int n) {
        List<Written> frames = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            frames.add(new Written("gpu-a", sample(rnd, "gpu-a", seq + i)));
        }
        return frames;
    }

    /** A sample as a probe sends it: readings that drift, some absent, processes that come and go. */
    private static Sample sample(Random rnd, String node, long seq) {
        List<CardReading> cards = new ArrayList<>();
        for (int c = 0; c < 1 + rnd.nextInt(8); c++) {
            MetricValues.Builder values = MetricValues.builder();
            for (int i = 0; i < Metric.count(); i++) {
                if (Metric.of(i).source() != Metric.Source.CARD || rnd.nextInt(8) == 0) {
                    continue;
                }
                double v = switch (rnd.nextInt(5)) {
                    case 0 -> rnd.nextInt(101);
                    case 1 -> Math.round(rnd.nextDouble() * 100) / 100.0;
                    case 2 -> 500 + Math.round(rnd.nextDouble() * 2000) / 10.0;
                    case 3 -> rnd.nextLong() >>> (1 + rnd.nextInt(40));
                    default -> ODD[rnd.nextInt(ODD.length)];
                };
                values.set(Metric.of(i), v);
            }
            List<ProcessInfo> processes = new ArrayList<>();
            for (int p = rnd.nextInt(3); p > 0; p--) {
                processes.add(new ProcessInfo(rnd.nextInt(1 << 22), rnd.nextBoolean() ? null : rnd.nextLong() >>> 20,
                        rnd.nextBoolean() ? "svc-" + rnd.nextInt(9) : null, "team-" + rnd.nextInt(3),
                        rnd.nextBoolean() ? null : "chat"));
            }
            cards.add(new CardReading("GPU-" + node + "-" + c, values.build(), processes));
        }
        return new Sample(seq, 1_764_547_200_000L + seq * 1000 + rnd.nextInt(5), cards);
    }

    private static byte[] write(List<Written> frames) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryTraceWriter w = new BinaryTraceWriter(out);
        for (Written f : frames) {
            w.write(f.frame(), f.frame() instanceof Hello ? null : f.node());
        }
        return out.toByteArray();
    }

    private static List<Written> readAll(byte[] bytes) throws IOException {
        List<Written> out = new ArrayList<>();
        for (Object e : entries(bytes)) {
            out.add(assertInstanceOf(Written.class, e, String.valueOf(e)));
        }
        return out;
    }

    /** Each entry as a {@link Written} frame or the reader's problem. */
    private static List<Object> entries(byte[] bytes) throws IOException {
        BinaryTraceReader r = new BinaryTraceReader(new ByteArrayInputStream(bytes), "t.gwt", FrameLimits.DEFAULTS);
        List<Object> out = new ArrayList<>();
        for (BinaryTraceReader.Entry e; (e = r.next()) != null; ) {
            out.add(e instanceof BinaryTraceReader.Read read ? new Written(read.node(), read.frame()) : e);
        }
        assertNull(r.next());
        return out;
    }
}
