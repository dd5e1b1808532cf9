package io.gpuwatch.protocol.codec;

import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.ClockEventReason;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** The byte-level sample reader decodes every line exactly as Jackson does, and falls back where it cannot. */
class SampleScannerTest {
    private final FrameCodec codec = new FrameCodec();

    @Test
    void readsWhatTheProbeWritesExactlyAsJacksonDoes() {
        Random rnd = new Random(15);
        SampleScanner scanner = new SampleScanner(FrameLimits.DEFAULTS);
        for (int n = 0; n < 2_000; n++) {
            String line = codec.encode(randomSample(rnd), "gpu-" + rnd.nextInt(40));
            byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
            Decoded.Ok fast = scanner.read(bytes, 0, bytes.length);
            assertNotNull(fast, line);
            assertEquals(codec.decode(line), fast, line);
        }
    }

    @Test
    void numbersComeOutAsJacksonReadsThem() {
        Random rnd = new Random(7);
        List<String> numbers = new ArrayList<>(List.of("0", "1", "-1", "0.0", "-0.0", "0.1", "0.30000000000000004",
                "1e5", "1E5", "1e+5", "1e-5", "2.5E-3", "123456789012345678", "999999999999999999",
                "9007199254740993", "9007199254740993.0", "1.7976931348623157E308", "4.9E-324", "1e22", "1e23",
                "123456789.123456789", "3.978254024E8", "442.6", "77269843234", "1e400", "-1e400", "1e-400"));
        for (int i = 0; i < 20_000; i++) {
            double d = switch (i % 4) {
                case 0 -> rnd.nextDouble() * 1000;
                case 1 -> Math.round(rnd.nextDouble() * 1e6) / 100.0;
                case 2 -> Double.longBitsToDouble(rnd.nextLong() & 0x7fffffffffffffffL);
                default -> rnd.nextInt(1_000_000) * Math.pow(10, rnd.nextInt(40) - 20);
            };
            if (Double.isFinite(d)) {
                numbers.add(Double.toString(d));
                numbers.add(String.format("%.6f", d));
            }
            numbers.add((rnd.nextBoolean() ? "-" : "") + rnd.nextInt(100_000) + "." + rnd.nextInt(100_000)
                    + (rnd.nextBoolean() ? "e" + (rnd.nextInt(60) - 30) : ""));
        }
        for (String number : numbers) {
            for (String field : List.of("tempC", "energyJ", "gpuUtil")) {
                sameAsJackson("{\"type\":\"sample\",\"seq\":1,\"node\":\"n\",\"ts\":5,\"cards\":[{\"uuid\":\"G\",\""
                        + field + "\":" + number + "}]}");
            }
        }
    }

    @Test
    void linesOutsideTheProbesShapeDecodeAsBefore() {
        String ok = "{\"type\":\"sample\",\"seq\":3,\"node\":\"gpu-0\",\"ts\":1764547223000,\"cards\":[{\"uuid\":\"GPU-1\","
                + "\"gpuUtil\":78,\"powerW\":442.6,\"clockEventReasons\":[\"HW_SLOWDOWN\"],\"remappedRowsPending\":false,"
                + "\"processes\":[{\"pid\":1,\"usedMemBytes\":5,\"task\":\"t\",\"owner\":null,\"business\":\"b\"}]}]}";
        List<String> lines = List.of(ok,
                ok.replace(",\"seq\":3", " , \"seq\" : 3"),
                ok.replace("\"task\":\"t\"", "\"task\":\"t\\u00e9\""),
                ok.replace("\"task\":\"t\"", "\"task\":\"tâche\""),
                ok.replace("gpu-0", "gpu 0"),
                ok.replace("\"node\":\"gpu-0\"", "\"node\":null"),
                ok.replace("\"seq\":3", "\"seq\":3,\"seq\":4"),
                ok.replace("\"seq\":3", "\"seq\":-3"),
                ok.replace("\"seq\":3", "\"seq\":3.0"),
                ok.replace("\"seq\":3", "\"seq\":03"),
                ok.replace("\"seq\":3,", ""),
                ok.replace("\"ts\":1764547223000", "\"ts\":0"),
                ok.replace("\"ts\":1764547223000", "\"ts\":12345678901234567890123"),
                ok.replace("\"gpuUtil\":78", "\"gpuUtil\":101"),
                ok.replace("\"gpuUtil\":78", "\"gpuUtil\":-0"),
                ok.replace("\"gpuUtil\":78", "\"gpuUtil\":-0.0"),
                ok.replace("\"gpuUtil\":78", "\"gpuUtil\":NaN"),
                ok.replace("\"gpuUtil\":78", "\"gpuUtil\":null"),
                ok.replace("\"gpuUtil\":78", "\"gpuUtil\":\"78\""),
                ok.replace("\"gpuUtil\":78", "\"gpuUtil\":78,\"gpuUtil\":12"),
                ok.replace("\"gpuUtil\":78", "\"gpuUtil\":7.8e1"),
                ok.replace("\"gpuUtil\":78", "\"gpuUtil\":1."),
                ok.replace("\"gpuUtil\":78", "\"gpuUtil\":.5"),
                ok.replace("\"gpuUtil\":78", "\"noSuchMetric\":1"),
                ok.replace("\"powerW\":442.6", "\"powerW\":-442.6"),
                ok.replace("\"HW_SLOWDOWN\"", "\"NO_SUCH_REASON\""),
                ok.replace("[\"HW_SLOWDOWN\"]", "[]"),
                ok.replace("[\"HW_SLOWDOWN\"]", "null"),
                ok.replace("[\"HW_SLOWDOWN\"]", "[\"HW_SLOWDOWN\",\"SW_POWER_CAP\"]"),
                ok.replace("false", "0"),
                ok.replace("false", "null"),
                ok.replace("\"pid\":1,", ""),
                ok.replace("\"usedMemBytes\":5", "\"usedMemBytes\":null"),
                ok.replace("\"usedMemBytes\":5", "\"usedMemBytes\":-5"),
                ok.replace("\"owner\":null", "\"owner\":\"\""),
                ok.replace("\"owner\":null", "\"shell\":\"bash\""),
                ok.replace("\"processes\":[{", "\"processes\":null,\"x\":[{"),
                ok.replace("\"processes\":[{\"pid\":1,\"usedMemBytes\":5,\"task\":\"t\",\"owner\":null,"
                        + "\"business\":\"b\"}]", "\"processes\":null"),
                ok.replace("\"uuid\":\"GPU-1\",", ""),
                ok.replace("\"uuid\":\"GPU-1\"", "\"uuid\":\"\""),
                ok.replace("}]}", "},{\"uuid\":\"GPU-1\"}]}"),
                ok.replace("}]}", "},{\"uuid\":\"GPU-2\"}]}"),
                ok.replace("}]}", "},7]}"),
                ok.replace("\"type\":\"sample\",\"seq\":3", "\"seq\":3,\"type\":\"sample\""),
                ok.replace("\"type\":\"sample\"", "\"type\":\"samples\""),
                ok.replace("\"ts\":1764547223000", "\"ts\":1764547223000,\"type\":\"event\""),
                ok.replace("\"ts\":1764547223000", "\"ts\":1764547223000,\"v\":1"),
                ok + " ",
                ok + "x",
                ok.substring(0, ok.length() - 1),
                "{\"type\":\"sample\"}",
                "{\"type\":\"sample\",\"seq\":1,\"ts\":2,\"cards\":[]}",
                "{\"type\":\"sample\",\"seq\":1,\"ts\":2,\"cards\":null}",
                "{\"type\":\"sample\",\"seq\":1,\"ts\":2,\"cards\":[{}]}",
                "{\"type\":\"event\",\"seq\":1,\"node\":\"n\",\"ts\":2,\"kind\":\"xid\",\"uuid\":\"G\",\"xid\":79}",
                "", "{", "[]");
        for (String line : lines) {
            sameAsJackson(line);
        }
        assertInstanceOf(Decoded.Ok.class, decodeBytes(ok));
    }

    @Test
    void limitsHoldOnBothPaths() {
        FrameCodec small = new FrameCodec(new FrameLimits(400, 2, 1, 8));
        String base = "{\"type\":\"sample\",\"seq\":1,\"node\":\"n\",\"ts\":2,\"cards\":[";
        List<String> lines = List.of(base + "{\"uuid\":\"a\"},{\"uuid\":\"b\"}]}",
                base + "{\"uuid\":\"a\"},{\"uuid\":\"b\"},{\"uuid\":\"c\"}]}",
                base + "{\"uuid\":\"a\",\"processes\":[{\"pid\":1},{\"pid\":2}]}]}",
                base + "{\"uuid\":\"a\",\"processes\":[{\"pid\":1,\"task\":\"123456789\"}]}]}",
                base + "{\"uuid\":\"a\",\"processes\":[{\"pid\":1,\"task\":\"12345678\"}]}]}",
                base + "{\"uuid\":\"a\",\"processes\":[{\"pid\":1,\"task\":\"" + "x".repeat(400) + "\"}]}]}");
        for (String line : lines) {
            byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
            assertEquals(small.decode(line), small.decode(bytes, 0, bytes.length), line);
        }
    }

    private void sameAsJackson(String line) {
        assertEquals(codec.decode(line), decodeBytes(line), line);
    }

    private Decoded decodeBytes(String line) {
        byte[] bytes = ("xx" + line + "yy").getBytes(StandardCharsets.UTF_8);
        return codec.decode(bytes, 2, bytes.length - 2);
    }

    private static Sample randomSample(Random rnd) {
        List<CardReading> cards = new ArrayList<>();
        int n = 1 + rnd.nextInt(8);
        for (int c = 0; c < n; c++) {
            MetricValues.Builder values = MetricValues.builder();
            for (int i = 0; i < Metric.count(); i++) {
                Metric m = Metric.of(i);
                if (m.source() != Metric.Source.CARD || rnd.nextInt(10) == 0) {
                    continue;
                }
                double v = switch (m.kind()) {
                    case FLAG -> rnd.nextInt(2);
                    case MASK -> rnd.nextBoolean() ? 0 : ClockEventReason.values()[rnd.nextInt(
                            ClockEventReason.values().length)].bit();
                    default -> switch (m) {
                        case GPU_UTIL, MEM_UTIL -> rnd.nextInt(101);
                        case SM_ACTIVE, SM_OCCUPANCY, TENSOR_ACTIVE, DRAM_ACTIVE -> Math.round(rnd.nextDouble()
                                * 100) / 100.0;
                        case TEMP_C -> rnd.nextInt(120) - 10;
                        default -> rnd.nextBoolean() ? rnd.nextLong() >>> (1 + rnd.nextInt(40))
                                : rnd.nextDouble() * Math.pow(10, rnd.nextInt(12));
                    };
                };
                values.set(m, v);
            }
            List<ProcessInfo> processes = new ArrayList<>();
            for (int p = rnd.nextInt(3); p > 0; p--) {
                processes.add(new ProcessInfo(rnd.nextInt(1 << 22), rnd.nextBoolean() ? null : rnd.nextLong() >>> 20,
                        rnd.nextBoolean() ? "svc-" + rnd.nextInt(9) : null, "team-" + rnd.nextInt(3),
                        rnd.nextBoolean() ? null : "chat"));
            }
            cards.add(new CardReading("GPU-" + c + "-" + rnd.nextInt(1000), values.build(), processes));
        }
        return new Sample(rnd.nextInt(1_000_000), 1_764_547_223_000L + rnd.nextInt(1_000_000), cards);
    }
}
