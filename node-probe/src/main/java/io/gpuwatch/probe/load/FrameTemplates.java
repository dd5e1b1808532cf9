package io.gpuwatch.probe.load;

import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.codec.FrameCodec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Writes a simulated node's protocol v1 frames into a reused {@link StringBuilder}: the field names and a node's
 * fixed parts are encoded once, only seq, ts and the readings are written per frame, so a frame costs its text and
 * nothing else. Every card metric of {@link Metric} is sent in each sample, with plausible healthy values that move
 * from one sample to the next (none of the example rules fires on them).
 */
final class FrameTemplates {
    static final Metric[] CARD = Arrays.stream(Metric.values()).filter(m -> m.source() == Metric.Source.CARD).toArray(Metric[]::new);
    static final Metric[] APP = Arrays.stream(Metric.values()).filter(m -> m.source() == Metric.Source.APP).toArray(Metric[]::new);
    private static final String[] CARD_KEYS = keys(CARD);
    private static final String[] APP_KEYS = keys(APP);
    private static final String PRODUCER = "gpuwatch-bench/0.1.0";
    private static final long MEM_TOTAL = 85_520_809_984L;

    static {
        // a card metric added to the protocol without a bench value fails here, not on the wire
        StringBuilder probe = new StringBuilder();
        for (Metric m : CARD) {
            cardValue(probe, m, 0, 1);
        }
    }

    private final long salt;
    private final FrameCodec codec = new FrameCodec();
    private final LoadPlan plan;

    /** @param salt mixed into card uuids, so that two runs never share a card (and the gateway's alert history) */
    FrameTemplates(LoadPlan plan, long salt) {
        this.plan = plan;
        this.salt = salt;
    }

    /** Metric values (samples, as Prometheus counts them) in one sample frame. */
    int valuesPerSample() {
        return CARD.length * plan.cardsPerNode();
    }

    /** Metric values in one app frame. */
    static int valuesPerApp() {
        return APP.length;
    }

    NodeTexts node(int index, String bootId) {
        String name = plan.nodeName(index);
        List<String> uuids = new ArrayList<>(plan.cardsPerNode());
        List<CardInfo> cards = new ArrayList<>(plan.cardsPerNode());
        String[] heads = new String[plan.cardsPerNode()];
        for (int c = 0; c < plan.cardsPerNode(); c++) {
            String uuid = uuid(index, c);
            uuids.add(uuid);
            cards.add(new CardInfo(uuid, c, "NVIDIA H100 80GB HBM3", String.format("00000000:%02X:00.0", 0x17 + c * 0x10 & 0xff),
                    MEM_TOTAL, 700.0, 1980, false));
            heads[c] = "{\"uuid\":\"" + uuid + "\"";
        }
        Hello hello = new Hello(1, name, bootId, PRODUCER, "580.95.05", "13.580.95.05",
                Map.of("cluster", "bench", "rack", "r" + index / 32), cards);
        String task = name + "-job";
        String processTail = ",\"usedMemBytes\":60129542144,\"task\":\"" + task + "\",\"owner\":\"bench\",\"business\":\"bench\"}]";
        String appHead = ",\"task\":\"" + task + "\",\"business\":\"bench\",\"source\":\"job\"";
        return new NodeTexts(index, name, codec.encode(hello), List.copyOf(uuids), heads, processTail, appHead);
    }

    /** A uuid of the GPU-8-4-4-4-12 form, fixed for node, card and salt. */
    String uuid(int node, int card) {
        long a = mix(salt ^ ((long) node << 8 | card));
        long b = mix(a ^ 0x5DEECE66DL);
        String hex = String.format("%016x%016x", a, b);
        return "GPU-" + hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-"
                + hex.substring(16, 20) + "-" + hex.substring(20, 32);
    }

    String sample(StringBuilder sb, NodeTexts n, long seq, long ts) {
        sb.setLength(0);
        sb.append("{\"type\":\"sample\",\"seq\":").append(seq).append(",\"ts\":").append(ts).append(",\"cards\":[");
        long nodeSeed = mix(salt + n.index());
        for (int c = 0; c < n.cardHeads().length; c++) {
            if (c > 0) {
                sb.append(',');
            }
            sb.append(n.cardHeads()[c]);
            long cardSeed = nodeSeed + (long) c * 0x9E3779B97F4A7C15L;
            for (int m = 0; m < CARD.length; m++) {
                sb.append(CARD_KEYS[m]);
                cardValue(sb, CARD[m], mix(cardSeed + seq * 64 + m), seq);
            }
            sb.append(",\"processes\":[{\"pid\":").append(4000 + c).append(n.processTail()).append('}');
        }
        return sb.append("]}").toString();
    }

    String app(StringBuilder sb, NodeTexts n, long seq, long ts) {
        sb.setLength(0);
        sb.append("{\"type\":\"app\",\"seq\":").append(seq).append(",\"ts\":").append(ts).append(n.appHead());
        long seed = mix(salt - n.index());
        for (int m = 0; m < APP.length; m++) {
            sb.append(APP_KEYS[m]);
            long h = mix(seed + seq * 64 + m);
            Metric metric = APP[m];
            if (metric.kind() == Metric.Kind.COUNTER) {
                sb.append(0);
            } else if (metric.unit().startsWith("ratio")) {
                ratio(sb, 50 + h % 40);
            } else {
                sb.append(10 + h % 990);
            }
        }
        return sb.append('}').toString();
    }

    String xid(StringBuilder sb, long seq, long ts, String uuid) {
        sb.setLength(0);
        return sb.append("{\"type\":\"event\",\"seq\":").append(seq).append(",\"ts\":").append(ts)
                .append(",\"uuid\":\"").append(uuid)
                .append("\",\"kind\":\"xid\",\"xid\":79,\"text\":\"GPU has fallen off the bus (gpuwatch bench)\"}")
                .toString();
    }

    /** @param h a non-negative hash that picks the value; {@code seq} drives the counters */
    private static void cardValue(StringBuilder sb, Metric m, long h, long seq) {
        switch (m) {
            case GPU_UTIL -> sb.append(70 + h % 26);
            case MEM_UTIL -> sb.append(30 + h % 31);
            case MEM_USED_BYTES -> sb.append(60_000_000_000L + h % 1_000_000_000L);
            case TEMP_C -> sb.append(55 + h % 15);
            case MEM_TEMP_C -> sb.append(60 + h % 15);
            case POWER_W -> tenths(sb, 4000 + h % 2500);
            case ENERGY_J -> sb.append(1_000_000 + seq * 550);
            case SM_CLOCK_MHZ -> sb.append(1700 + h % 281);
            case MEM_CLOCK_MHZ -> sb.append(2619);
            case PSTATE, ECC_CORRECTED_VOLATILE, ECC_UNCORRECTED_VOLATILE, REMAPPED_ROWS_CORRECTABLE,
                    REMAPPED_ROWS_UNCORRECTABLE, PCIE_REPLAYS, NVLINK_ERRORS, NVLINK_LINKS_DOWN -> sb.append(0);
            case CLOCK_EVENT_REASONS -> sb.append("[]");
            case RETIRED_PAGES_PENDING, REMAPPED_ROWS_PENDING, REMAPPED_ROWS_FAILED -> sb.append("false");
            case PCIE_TX_KBPS, PCIE_RX_KBPS -> sb.append(90_000 + h % 40_000);
            case PCIE_LINK_GEN -> sb.append(5);
            case PCIE_LINK_WIDTH -> sb.append(16);
            case SM_ACTIVE, SM_OCCUPANCY, TENSOR_ACTIVE, DRAM_ACTIVE -> ratio(sb, 40 + h % 60);
            default -> throw new IllegalStateException("the load generator has no value for card metric " + m.field());
        }
    }

    /** hundredths as a ratio below 1: 62 → 0.62 */
    private static void ratio(StringBuilder sb, long hundredths) {
        sb.append("0.");
        if (hundredths < 10) {
            sb.append('0');
        }
        sb.append(hundredths);
    }

    /** tenths as a decimal: 6124 → 612.4 */
    private static void tenths(StringBuilder sb, long tenths) {
        sb.append(tenths / 10).append('.').append(tenths % 10);
    }

    private static String[] keys(Metric[] metrics) {
        String[] keys = new String[metrics.length];
        for (int i = 0; i < metrics.length; i++) {
            keys[i] = ",\"" + metrics[i].field() + "\":";
        }
        return keys;
    }

    /** SplitMix64's finaliser, made non-negative. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return (z ^ (z >>> 31)) >>> 1;
    }
}
