package io.gpuwatch.gateway.backtest;

import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.codec.Decoded;
import io.gpuwatch.protocol.codec.FrameCodec;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RecentFramesTest {
    private static final long MB = 1L << 20;

    @Test
    void theBudgetIsWhatWasAskedWithinAQuarterOfTheHeap() {
        assertEquals(64 * MB, RecentFrames.budgetFor(64 * MB, 1024 * MB));
        assertEquals(16 * MB, RecentFrames.budgetFor(64 * MB, 64 * MB));
        assertEquals(0, RecentFrames.budgetFor(0, 64 * MB));
    }

    @Test
    void framesKeptStayWithinTheirBudget() {
        FrameCodec codec = new FrameCodec();
        String text = codec.encode(sample(0));
        RecentFrames recent = new RecentFrames(MB);
        for (int i = 0; i < 2_000; i++) {
            recent.add("node-1", decode(codec, text.replace("\"seq\":0", "\"seq\":" + i)));
        }
        assertTrue(recent.bytes() <= MB, recent.bytes() + " bytes kept");
        assertTrue(recent.size() > 50 && recent.size() < 2_000, recent.size() + " frames kept");
    }

    /**
     * The estimate is held to the heap the frames really take as the gateway decodes them (8 cards with a
     * process each): it once counted half of it, and a 64 MiB heap full of preview frames ran out of memory.
     */
    @Test
    void theEstimateIsTheHeapDecodedFramesTake() {
        FrameCodec codec = new FrameCodec();
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < 4_000; i++) {
            texts.add(codec.encode(sample(i)));
        }
        RecentFrames recent = new RecentFrames(Long.MAX_VALUE);
        long before = usedAfterCollection();
        for (String text : texts) {
            recent.add("node-1", decode(codec, text));
        }
        long after = usedAfterCollection();
        long measured = after - before;
        assertEquals(4_000, recent.size());
        // the deques' own cells are not counted; the frames dominate
        double ratio = (double) recent.bytes() / measured;
        assertTrue(ratio > 0.8 && ratio < 1.4, "estimated " + recent.bytes() + " bytes, measured " + measured);
    }

    private static Frame decode(FrameCodec codec, String text) {
        Decoded d = codec.decode(text);
        if (d instanceof Decoded.Ok ok) {
            return ok.frame();
        }
        throw new AssertionError(d + " for " + text);
    }

    private static Sample sample(int seq) {
        List<CardReading> cards = new ArrayList<>();
        for (int c = 0; c < 8; c++) {
            MetricValues.Builder v = MetricValues.builder();
            for (Metric metric : Metric.values()) {
                if (metric.source() == Metric.Source.CARD && metric.kind() != Metric.Kind.FLAG) {
                    v.set(metric, 1);
                }
            }
            cards.add(new CardReading("GPU-0000000" + c + "-1111-2222-3333-44444444444" + c, v.build(),
                    List.of(new ProcessInfo(4000 + c, 1L << 30, "train-llm-" + c, "alice", "pretraining"))));
        }
        return new Sample(seq, 1_700_000_000_000L + seq * 100L, cards);
    }

    private static long usedAfterCollection() {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
