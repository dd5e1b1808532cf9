package io.gpuwatch.protocol.codec;

import io.gpuwatch.protocol.Ack;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.ClockEventReason;
import io.gpuwatch.protocol.ConfigFrame;
import io.gpuwatch.protocol.ErrorFrame;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.protocol.SchedTask;
import io.gpuwatch.protocol.Welcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FrameCodecRoundTripTest {
    private final FrameCodec codec = new FrameCodec();

    /** Every frame type, each with every field it has set. */
    static Stream<Frame> everyFrame() {
        return Stream.of(
                new Hello(1, "gpu-a17", "5b2f9c1e", "gpuwatch-probe/0.1.0", "580.95.05", "13.580.95.05",
                        Map.of("cluster", "bj-1", "rack", "r12"),
                        List.of(new CardInfo("GPU-3f1c", 0, "NVIDIA H100 80GB HBM3", "00000000:17:00.0",
                                        85520809984L, 700.0, 1980, false),
                                new CardInfo("GPU-77aa", 1, "NVIDIA H100 80GB HBM3", "00000000:2A:00.0",
                                        85520809984L, 699.5, 1980, true))),
                new Hello(1, "sched-adapter.bj-1", "b-1", null, null, null, Map.of(), List.of()),
                new Sample(42, 1764700000000L, List.of(
                        new CardReading("GPU-3f1c", everyMetric(Metric.Source.CARD), List.of(
                                new ProcessInfo(4242, 60129542144L, "train-llama-8812", "team-llm", "chat-pretrain"),
                                new ProcessInfo(4243, null, null, null, null))),
                        new CardReading("GPU-77aa", MetricValues.empty(), List.of()))),
                new Event(43, 1764700000123L, "GPU-3f1c", "xid", 79, "GPU has fallen off the bus", 4242L),
                new Event(44, 1764700000124L, null, "probe_degraded", null, "nvml: collector timed out", null),
                new App(45, 1764700000500L, "svc-chat-70b", "chat", "vllm", everyMetric(Metric.Source.APP)),
                new Sched(7, 1764700000000L, "pretrain-a", everyMetric(Metric.Source.SCHED), List.of(
                        new SchedTask("train-llama-8812", "team-llm", "chat-pretrain", List.of("GPU-3f1c", "GPU-77aa"),
                                "running", 8),
                        new SchedTask("eval-7", null, null, List.of(), null, null),
                        new SchedTask("ft-8b", "team-llm", "chat", List.of("GPU-77aa"), "completed", 1,
                                85899345920L, "succeeded", new SchedTask.Model(8.03e9, "training", "fp8", 4.8e13)),
                        new SchedTask("svc-70b", null, null, List.of(), "running", 4, null, null,
                                new SchedTask.Model(7.06e10, "inference", "bf16", null)))),
                new Welcome(1, "c0ffee", 41, 1000),
                new Welcome(1, "c0ffee", 0, 1000, "ws://127.0.0.2:9464/v1/probe"),
                new Ack(43),
                new ErrorFrame("bad_frame", 43L, "field 'tempC' must be a number, got \"hot\""),
                new ErrorFrame("hello_timeout", null, "no hello within 10000 ms"),
                new ConfigFrame(500));
    }

    /** A valid, distinct value for every metric of the source, fractions included. */
    private static MetricValues everyMetric(Metric.Source source) {
        MetricValues.Builder b = MetricValues.builder();
        for (int i = 0; i < Metric.count(); i++) {
            Metric m = Metric.of(i);
            if (m.source() != source) {
                continue;
            }
            switch (m.kind()) {
                case FLAG -> b.set(m, i % 2);
                case MASK -> b.set(m, ClockEventReason.SW_POWER_CAP.bit() | ClockEventReason.HW_THERMAL_SLOWDOWN.bit());
                default -> b.set(m, m.unit().startsWith("ratio") ? i / 100.0 : i * 10.25);
            }
        }
        return b.build();
    }

    @ParameterizedTest
    @MethodSource("everyFrame")
    void everyFrameSurvivesEncodeThenDecode(Frame frame) {
        String text = codec.encode(frame);
        assertEquals(new Decoded.Ok(frame, null), codec.decode(text), text);
    }

    @ParameterizedTest
    @MethodSource("everyFrame")
    void traceLinesCarryTheProducersNode(Frame frame) {
        // a hello names its node itself; every other frame gets the extra key
        String producer = frame instanceof Hello h ? h.node() : "gpu-a17";
        String line = codec.encode(frame, producer);
        String extraKey = frame instanceof Hello ? null : producer;
        assertEquals(new Decoded.Ok(frame, extraKey), codec.decode(line), line);
        assertEquals(line.indexOf("\"node\""), line.lastIndexOf("\"node\""), "one node key: " + line);
    }

    @Test
    void helloCannotBeWrittenAsAnotherNode() {
        Hello hello = new Hello(1, "gpu-a17", "b", null, null, null, Map.of(), List.of());
        assertThrows(IllegalArgumentException.class, () -> codec.encode(hello, "gpu-b02"));
    }

    @Test
    void writesTheWireFormTheSpecShows() {
        MetricValues values = MetricValues.builder()
                .set(Metric.GPU_UTIL, 97)
                .set(Metric.POWER_W, 612.4)
                .set(Metric.CLOCK_EVENT_REASONS, 0)
                .set(Metric.RETIRED_PAGES_PENDING, 1)
                .build();
        Sample sample = new Sample(42, 1764700000000L, List.of(new CardReading("GPU-3f1c", values,
                List.of(new ProcessInfo(4242, null, "train-llama-8812", null, null))), new CardReading("GPU-77aa",
                MetricValues.empty(), List.of())));

        assertEquals("{\"type\":\"sample\",\"seq\":42,\"ts\":1764700000000,\"cards\":[{\"uuid\":\"GPU-3f1c\","
                + "\"gpuUtil\":97,\"powerW\":612.4,\"clockEventReasons\":[],\"retiredPagesPending\":true,"
                + "\"processes\":[{\"pid\":4242,\"task\":\"train-llama-8812\"}]},{\"uuid\":\"GPU-77aa\"}]}",
                codec.encode(sample));
        assertEquals("{\"type\":\"ack\",\"seq\":43,\"node\":\"gpu-a17\"}", codec.encode(new Ack(43), "gpu-a17"));
    }

    @Test
    void readsTheDraftsSampleIntoMetricValues() {
        Sample s = (Sample) ok(json("{'type':'sample','seq':42,'ts':1764700000000,'cards':[{'uuid':'GPU-3f1c',"
                + "'gpuUtil':97,'memUsedBytes':61203283968,'powerW':612.4,'energyJ':123456.7,"
                + "'clockEventReasons':['SW_POWER_CAP','HW_THERMAL_SLOWDOWN'],'retiredPagesPending':false,"
                + "'remappedRowsPending':true,'smActive':0.62,"
                + "'processes':[{'pid':4242,'usedMemBytes':60129542144,'task':'train-llama-8812'}]}]}")).frame();

        CardReading card = s.cards().get(0);
        MetricValues v = card.values();
        assertEquals(97, v.get(Metric.GPU_UTIL));
        assertEquals(61203283968.0, v.get(Metric.MEM_USED_BYTES));
        assertEquals(612.4, v.get(Metric.POWER_W));
        assertEquals(0x44, v.get(Metric.CLOCK_EVENT_REASONS));
        assertEquals(0, v.get(Metric.RETIRED_PAGES_PENDING));
        assertEquals(1, v.get(Metric.REMAPPED_ROWS_PENDING));
        assertEquals(0.62, v.get(Metric.SM_ACTIVE));
        assertFalse(v.has(Metric.TEMP_C), "a field not sent is absent, not 0");
        assertEquals(List.of(new ProcessInfo(4242, 60129542144L, "train-llama-8812", null, null)), card.processes());
    }

    @Test
    void remapFailureIsAnOptionalFlag() {
        Sample s = (Sample) ok(json("{'type':'sample','seq':7,'ts':5,'cards':[{'uuid':'GPU-1',"
                + "'remappedRowsPending':false,'remappedRowsFailed':true},{'uuid':'GPU-2','remappedRowsPending':false}]}"))
                .frame();

        assertEquals(1, s.cards().get(0).values().get(Metric.REMAPPED_ROWS_FAILED));
        assertFalse(s.cards().get(1).values().has(Metric.REMAPPED_ROWS_FAILED), "an older producer's frame leaves it absent");
        assertTrue(codec.encode(s).contains("\"remappedRowsPending\":false,\"remappedRowsFailed\":true}"));
    }

    @Test
    void unknownFieldsAreIgnoredAtEveryLevel() {
        Decoded.Ok ok = ok(json("{'type':'sample','seq':1,'ts':5,'future':{'deep':[1,{'x':null}]},'cards':["
                + "{'uuid':'GPU-1','tempC':70,'fanSpeedPercent':'high','processes':[{'pid':9,'cgroup':'/x'}]}]}"));

        assertEquals(new Sample(1, 5, List.of(new CardReading("GPU-1",
                MetricValues.builder().set(Metric.TEMP_C, 70).build(), List.of(new ProcessInfo(9, null, null, null,
                null))))), ok.frame());
    }

    @Test
    void aMetricOfAnotherFrameIsJustAnUnknownField() {
        App app = (App) ok(json("{'type':'app','seq':3,'ts':5,'task':'svc','tempC':'n/a','tokensPerSec':10}"))
                .frame();

        assertFalse(app.values().has(Metric.TEMP_C));
        assertEquals(10, app.values().get(Metric.TOKENS_PER_SEC));
    }

    @Test
    void theFailureSplitAndMeanLatencyAreOptionalAppFields() {
        App old = (App) ok(json("{'type':'app','seq':3,'ts':5,'task':'svc','failedTotal':4}")).frame();
        App split = (App) ok(json("{'type':'app','seq':4,'ts':6,'task':'svc','failedTotal':4,"
                + "'clientErrorsTotal':7,'overloadedTotal':2,'latencyMeanMs':41.5}")).frame();

        assertEquals(MetricValues.builder().set(Metric.FAILED_TOTAL, 4).build(), old.values());
        assertEquals(7, split.values().get(Metric.CLIENT_ERRORS_TOTAL));
        assertEquals(2, split.values().get(Metric.OVERLOADED_TOTAL));
        assertEquals(41.5, split.values().get(Metric.LATENCY_MEAN_MS));
    }

    @Test
    void jsonNullMeansAbsent() {
        Event e = (Event) ok(json("{'type':'event','seq':3,'ts':5,'kind':'oom','uuid':null,'pid':null,"
                + "'text':null}")).frame();
        Sample s = (Sample) ok(json("{'type':'sample','seq':4,'ts':6,'cards':[{'uuid':'GPU-1','tempC':null,"
                + "'clockEventReasons':null,'retiredPagesPending':null,'processes':null}]}")).frame();

        assertEquals(new Event(3, 5, null, "oom", null, null, null), e);
        assertTrue(s.cards().get(0).values().isEmpty());
    }

    @Test
    void fieldsMayComeInAnyOrder() {
        assertEquals(new Decoded.Ok(new Ack(7), "gpu-a17"),
                codec.decode(json("{'node':'gpu-a17','seq':7,'type':'ack'}")));
        assertEquals(new Decoded.Ok(new ConfigFrame(250), null),
                codec.decode(json("{'intervalMs':250,'type':'config'}")));
    }

    @Test
    void helloSeqIsOutsideTheStreamAndIgnored() {
        Hello hello = (Hello) ok(json("{'type':'hello','v':1,'seq':'whatever','node':'n1','bootId':'b',"
                + "'cards':[]}")).frame();

        assertEquals(new Hello(1, "n1", "b", null, null, null, Map.of(), List.of()), hello);
    }

    private Decoded.Ok ok(String text) {
        return assertInstanceOf(Decoded.Ok.class, codec.decode(text), text);
    }

    /** JSON written with single quotes, which keeps the test frames readable. */
    static String json(String singleQuoted) {
        return singleQuoted.replace('\'', '"');
    }
}
