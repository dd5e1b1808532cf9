package io.gpuwatch.probe.trace;

import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.protocol.SchedTask;

import java.util.List;
import java.util.Map;

/** Small frames for trace tests; the card of node N is {@code GPU-N}. */
final class Frames {
    static final long T0 = 1_764_700_000_000L;

    private Frames() {
    }

    static String uuid(String node) {
        return "GPU-" + node;
    }

    static Hello hello(String node, String bootId) {
        return new Hello(Frame.VERSION, node, bootId, "test-probe/1", "580.95.05", null, Map.of("rack", "r12"),
                List.of(new CardInfo(uuid(node), 0, "NVIDIA H100 80GB HBM3", null, 85_520_809_984L, 700.0, 1980,
                        false)));
    }

    static Sample sample(String node, long seq, long ts, double tempC) {
        return new Sample(seq, ts, List.of(new CardReading(uuid(node),
                MetricValues.builder().set(Metric.TEMP_C, tempC).set(Metric.GPU_UTIL, 90).build(),
                List.of(new ProcessInfo(4242, 1L << 30, "train-llama-8812", "team-llm", null)))));
    }

    static Event xid(String node, long seq, long ts, int code) {
        return new Event(seq, ts, uuid(node), "xid", code, "Xid " + code, 4242L);
    }

    static App app(long seq, long ts) {
        return new App(seq, ts, "svc-chat-70b", "chat", "vllm",
                MetricValues.builder().set(Metric.TOKENS_PER_SEC, 5120.5).build());
    }

    static Sched sched(long seq, long ts) {
        return new Sched(seq, ts, "pretrain-a", MetricValues.builder().set(Metric.PENDING, 12).build(),
                List.of(new SchedTask("train-llama-8812", "team-llm", null, List.of("GPU-a"), "running", 8)));
    }
}
