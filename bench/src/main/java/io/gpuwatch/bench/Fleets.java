package io.gpuwatch.bench;

import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** Synthetic nodes for the benchmarks: 8 busy H100s each, every card metric set, one attributed process. */
final class Fleets {
    static final int CARDS_PER_NODE = 8;

    private Fleets() {
    }

    static String uuid(int node, int card) {
        return String.format("GPU-%08x-0000-4000-8000-%012x", node, card);
    }

    static Hello hello(int node) {
        List<CardInfo> cards = new ArrayList<>();
        for (int c = 0; c < CARDS_PER_NODE; c++) {
            cards.add(new CardInfo(uuid(node, c), c, "NVIDIA H100 80GB HBM3", null, 85_520_809_984L, 700.0, 1980,
                    false));
        }
        return new Hello(1, "gpu-" + node, "boot-" + node, "bench", "580.95.05", "13.580.95.05",
                Map.of("cluster", "bench"), cards);
    }

    /** A sample of every card of {@code node} at {@code ts}, values varying around a healthy, busy card. */
    static Sample sample(int node, long seq, long ts, SplittableRandom random) {
        List<CardReading> readings = new ArrayList<>(CARDS_PER_NODE);
        for (int c = 0; c < CARDS_PER_NODE; c++) {
            MetricValues.Builder b = MetricValues.builder();
            for (Metric m : Metric.values()) {
                if (m.source() == Metric.Source.CARD) {
                    b.set(m, value(m, random));
                }
            }
            readings.add(new CardReading(uuid(node, c), b.build(),
                    List.of(new ProcessInfo(4242 + c, 60_129_542_144L, "train-" + node, "ann", "ads"))));
        }
        return new Sample(seq, ts, readings);
    }

    private static double value(Metric m, SplittableRandom random) {
        return switch (m.kind()) {
            case FLAG, MASK -> 0;
            case COUNTER -> 1_000 + random.nextInt(10);
            case GAUGE -> 50 + random.nextDouble() * 40;
        };
    }
}
