package io.gpuwatch.gateway.eval;

import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.eval.EvalBudget;
import io.gpuwatch.rules.eval.RuleEngine;
import io.gpuwatch.rules.eval.Transition;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rules that sleep while what they read sits still, or while a window must yet empty of what keeps them false,
 * decide exactly as rules evaluated every time: the same
 * transitions at the same instants, over fleets whose counters step, reset and go negative, whose flags toggle,
 * whose samples repeat, pause, arrive late as a re-sent backlog, carry no value or lie far outside their unit's
 * range, whose events land on cards and on nodes, and whose cards leave and come back.
 */
class SleepingRulesTest {
    private static final long T0 = 1_764_700_000_000L;
    private static final long TICK = 1_000;
    private static final String[] NODES = {"n1", "n2"};
    private static final int CARDS = 4;
    private static final int[] XIDS = {13, 31, 43, 48, 61, 63, 64, 74, 79, 92, 94, 95, 109, 119, 154};

    /** Conditions the shipped pack does not write: every shape the analysis lets sleep, and some it must not. */
    private static final String EDGES = """
            group: edges
            layer: device
            severity: ticket
            scope: card
            rules:
              - name: hot-peak-above-now
                when: max(tempC, 2m) - 5 > tempC
                for: 10s
              - name: replays-per-minute
                when: rate(pcieReplays, 1m) * 60 > 5
                keep_firing_for: 20s
              - name: nvlink-errors-halved
                when: increase(nvlinkErrors, 2m) / 2 >= 3
              - name: xids-or-pending
                when: count(events('xid'), 1m) >= 2 || remappedRowsPending == 1
              - name: width-negated
                when: pcieLinkWidth * -1 > -16
                for: 5s
              - name: width-below-its-low
                when: min(pcieLinkWidth, 5m) < pcieLinkWidth
              - name: no-xid-lately
                when: count(events('xid'), 30s) == 0 && eccCorrectedVolatile > 0
              - name: not-failed
                when: "!(remappedRowsFailed == 1) && increase(eccUncorrectedVolatile, 1m) > 0"
              - name: pending-lately
                when: max(remappedRowsPending, 30s) > 0
              - name: node-hot-cards
                scope: node
                when: count(cards where max(tempC, 1m) > 80) >= 2
                keep_firing_for: 10s
              - name: node-lost-after-79
                scope: node
                when: lostCards > 0 || count(events('xid', 79), 5m) > 0
              - name: node-pooled-width
                scope: node
                when: max(pcieLinkWidth, 1m) > 8 && count(events('oom'), 1m) > 0
              - name: cool-for-half-an-hour
                when: max(tempC, 30m) < 85 && gpuUtil > 40
              - name: width-held-wide
                when: min(pcieLinkWidth, 3m) >= 16 && tempC > 70
              - name: util-capped-or-high
                when: max(gpuUtil, 90s) <= 70 || min(gpuUtil, 1m) > 60
              - name: mostly-pending
                when: fraction(remappedRowsPending == 1, 1m) >= 0.5
                for: 5s
              - name: node-cards-mostly-hot
                scope: node
                when: count(cards where fraction(tempC > 70, 2m) > 0.6 && gpuUtil > 30) >= 2
              - name: util-mean-low
                when: avg(gpuUtil, 90s) < 40
                for: 5s
              - name: sm-mean-high-over-buckets
                when: avg(smActive, 5m) >= 0.6
              - name: util-mean-low-at-the-tiers-edge
                when: avg(gpuUtil, 1m) <= 35 && tempC > 55
              - name: tensor-mean-low-or-sm-high
                when: avg(tensorActive, 10m) < 0.3 || avg(smActive, 1m) > 0.8
              - name: node-cards-tensor-busy
                scope: node
                when: count(cards where avg(tensorActive, 2m) > 0.6) >= 2
                keep_firing_for: 5s
              - name: business-cards-idle
                scope: business
                when: count(cards where avg(idle, 2m) >= 0.4) >= 1
              - name: business-cards-busy
                scope: business
                when: count(cards where avg(gpuUtil, 1m) > 85 && tempC < 80) >= 1
                for: 5s
            """;

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void sleepingRulesDecideAsRulesEvaluatedEveryTime(long seed) throws IOException {
        Path edges = dir.resolve("edges.yml");
        Files.writeString(edges, EDGES);
        RuleLoad load = RuleSet.load(List.of(Path.of("../examples/rules"), edges));
        assertTrue(load.ok(), load.diagnostics().toString());
        RuleSet rules = load.ruleSet();

        Run sleeping = new Run(rules, true);
        Run awake = new Run(rules, false);
        new Fleet(seed).play(sleeping, awake);

        List<String> expected = awake.lines();
        List<String> actual = sleeping.lines();
        int first = 0;
        while (first < Math.min(expected.size(), actual.size()) && expected.get(first).equals(actual.get(first))) {
            first++;
        }
        // the first transition that differs, rather than two lists of thousands
        assertEquals(first < expected.size() ? expected.get(first) : "(none)",
                first < actual.size() ? actual.get(first) : "(none)", "transition " + first);
        assertTrue(awake.transitions.size() >= 20, "the fleet must give the rules something to decide: "
                + awake.transitions.size());
        long total = sleeping.evaluator.engine().slept();
        assertTrue(total > 100_000, "most evaluations of the still rules are left out: " + total);
        assertEquals(0, awake.evaluator.engine().slept());
    }

    /** One gateway's state, rules and the transitions they made. */
    private static final class Run {
        final FleetState fleet = new FleetState();
        final List<Transition> transitions = new ArrayList<>();
        final Evaluator evaluator;

        Run(RuleSet rules, boolean sleep) {
            // a clock that stands still: no rule is disabled for its time, on either run
            RuleEngine engine = new RuleEngine(rules, EvalBudget.DEFAULT, () -> 0L);
            engine.sleep(sleep);
            evaluator = new Evaluator(fleet, rules, engine, transitions::add);
        }

        List<String> lines() {
            return transitions.stream().map(t -> t.at() + " " + t.rule().name() + " " + t.labels().get("node") + " "
                    + t.labels().get("uuid") + " " + t.from() + "->" + t.to() + " since " + t.activeSince()
                    + " " + t.summary()).toList();
        }
    }

    /** A seeded fleet whose every frame goes to both runs alike. */
    private static final class Fleet {
        final Random random;
        final double[][] util = new double[NODES.length][CARDS];
        final double[][][] counters = new double[NODES.length][CARDS][4];
        final double[][] temp = new double[NODES.length][CARDS];
        final int[][] flags = new int[NODES.length][CARDS];
        final double[][] width = new double[NODES.length][CARDS];
        final double[][] sm = new double[NODES.length][CARDS];
        final double[][] tensor = new double[NODES.length][CARDS];
        final boolean[][] listed = new boolean[NODES.length][CARDS];
        final long[] seq = new long[NODES.length];
        /** A node's samples held back while its link is down, re-sent as a backlog when it comes up. */
        final List<Deque<Sample>> held = new ArrayList<>();
        final long[] downUntil = new long[NODES.length];
        /** Until when a node's samples and events are lost, not re-sent: its windows empty and grow stale. */
        final long[] lostUntil = new long[NODES.length];

        Fleet(long seed) {
            random = new Random(seed);
            for (int n = 0; n < NODES.length; n++) {
                held.add(new ArrayDeque<>());
                for (int c = 0; c < CARDS; c++) {
                    util[n][c] = 50;
                    temp[n][c] = 60;
                    width[n][c] = 16;
                    sm[n][c] = 0.5;
                    tensor[n][c] = 0.5;
                    listed[n][c] = true;
                }
            }
        }

        void play(Run... runs) {
            for (int n = 0; n < NODES.length; n++) {
                hello(n, T0, runs);
            }
            for (long t = T0; t < T0 + 45 * 60_000; t += TICK) {
                for (int n = 0; n < NODES.length; n++) {
                    node(n, t, runs);
                }
                for (Run r : runs) {
                    r.evaluator.tick(t, TICK);
                }
            }
        }

        private void node(int n, long t, Run... runs) {
            if (random.nextInt(1_500) == 0) {
                // a card falls out of the driver's list, and comes back with a later hello
                int c = random.nextInt(CARDS);
                listed[n][c] = !listed[n][c];
                hello(n, t, runs);
            }
            if (t >= downUntil[n] && random.nextInt(900) == 0) {
                downUntil[n] = t + (5 + random.nextInt(30)) * TICK;
                if (random.nextBoolean()) {
                    // the link drops as the node's cards go idle or flat out: the backlog carries the change
                    boolean top = random.nextBoolean();
                    for (int c = 0; c < CARDS; c++) {
                        util[n][c] = top ? 100 : 0;
                        sm[n][c] = top ? 1 : 0;
                    }
                }
            }
            if (t >= lostUntil[n] && random.nextInt(2_400) == 0) {
                lostUntil[n] = t + (20 + random.nextInt(400)) * TICK;
            }
            Sample s = sample(n, t);
            boolean down = t < downUntil[n];
            if (t < lostUntil[n]) {
                return;
            }
            if (down) {
                held.get(n).add(s);
            } else {
                Deque<Sample> backlog = held.get(n);
                while (!backlog.isEmpty()) {
                    Sample old = backlog.poll();
                    for (Run r : runs) {
                        r.evaluator.sample(NODES[n], old, t, TICK);
                    }
                }
                if (random.nextInt(50) != 0) {
                    for (Run r : runs) {
                        r.evaluator.sample(NODES[n], s, t, TICK);
                    }
                }
                if (random.nextInt(150) == 0) {
                    // a reading sent again for a slot already filled, or for one behind the newest: it rewrites it;
                    // one older than the catch-up delay is evaluated at its own time, behind the samples held
                    long back = random.nextBoolean() ? random.nextInt(3) : 20 + random.nextInt(60);
                    Sample again = rewrite(n, t - TICK * back);
                    for (Run r : runs) {
                        r.evaluator.sample(NODES[n], again, t, TICK);
                    }
                }
            }
            if (random.nextInt(120) == 0) {
                int c = random.nextInt(CARDS);
                boolean onCard = random.nextInt(4) != 0;
                String kind = random.nextInt(5) == 0 ? (random.nextBoolean() ? "oom" : "ecc_uncorrected") : "xid";
                Integer xid = kind.equals("xid") ? XIDS[random.nextInt(XIDS.length)] : null;
                // sometimes read a while ago, as a probe re-sends it
                long at = t - (random.nextInt(10) == 0 ? 5_000 : 0);
                Event e = new Event(++seq[n], at, onCard ? uuid(n, c) : null, kind, xid, "test", null);
                for (Run r : runs) {
                    r.evaluator.event(NODES[n], e, t);
                }
            }
        }

        private void hello(int n, long t, Run... runs) {
            List<CardInfo> cards = new ArrayList<>();
            for (int c = 0; c < CARDS; c++) {
                if (listed[n][c]) {
                    cards.add(new CardInfo(uuid(n, c), c, "H100", null, 80L << 30, null, null, null));
                }
            }
            Hello h = new Hello(1, NODES[n], "boot", "test", null, null, java.util.Map.of(), cards);
            for (Run r : runs) {
                r.fleet.hello(h, t);
            }
        }

        private Sample sample(int n, long t) {
            List<CardReading> readings = new ArrayList<>();
            for (int c = 0; c < CARDS; c++) {
                if (!listed[n][c]) {
                    continue;
                }
                step(n, c);
                MetricValues.Builder v = MetricValues.builder()
                        .set(Metric.GPU_UTIL, util[n][c])
                        .set(Metric.TEMP_C, temp[n][c])
                        .set(Metric.ECC_CORRECTED_VOLATILE, counters[n][c][0])
                        .set(Metric.ECC_UNCORRECTED_VOLATILE, counters[n][c][1])
                        .set(Metric.NVLINK_ERRORS, counters[n][c][2])
                        .set(Metric.PCIE_REPLAYS, counters[n][c][3])
                        .set(Metric.REMAPPED_ROWS_PENDING, flags[n][c] & 1)
                        .set(Metric.REMAPPED_ROWS_FAILED, (flags[n][c] >> 1) & 1)
                        .set(Metric.RETIRED_PAGES_PENDING, (flags[n][c] >> 2) & 1)
                        .set(Metric.NVLINK_LINKS_DOWN, (flags[n][c] >> 3) & 1)
                        .set(Metric.MEM_USED_BYTES, 40.0 * (1L << 30))
                        .set(Metric.POWER_W, 300 + util[n][c])
                        .set(Metric.SM_ACTIVE, sm[n][c])
                        .set(Metric.TENSOR_ACTIVE, tensor[n][c]);
                if (random.nextInt(700) == 0) {
                    // a broken collector's reading, far outside what the unit allows, which no mean can foresee
                    v.set(random.nextBoolean() ? Metric.SM_ACTIVE : Metric.GPU_UTIL, random.nextBoolean() ? -900 : 900);
                }
                if (random.nextInt(40) != 0) {
                    // now and then the link width is not read at all
                    v.set(Metric.PCIE_LINK_WIDTH, width[n][c]);
                }
                List<ProcessInfo> processes = c == 0 ? List.of()
                        : List.of(new ProcessInfo(100 + c, 1L << 30, "task-" + n, "alice", "search"));
                readings.add(new CardReading(uuid(n, c), v.build(), processes));
            }
            return new Sample(++seq[n], t, readings);
        }

        /** Readings of every listed card for {@code ts} that differ from what was sent: low or high, never in between. */
        private Sample rewrite(int n, long ts) {
            List<CardReading> readings = new ArrayList<>();
            for (int c = 0; c < CARDS; c++) {
                if (listed[n][c]) {
                    MetricValues v = MetricValues.builder()
                            .set(Metric.GPU_UTIL, random.nextBoolean() ? 2 : 98)
                            .set(Metric.TEMP_C, random.nextBoolean() ? 40 : 90)
                            .set(Metric.PCIE_LINK_WIDTH, random.nextBoolean() ? 8 : 16)
                            .set(Metric.REMAPPED_ROWS_PENDING, random.nextInt(2))
                            .set(Metric.SM_ACTIVE, random.nextBoolean() ? 0 : 1)
                            .build();
                    readings.add(new CardReading(uuid(n, c), v, List.of()));
                }
            }
            return new Sample(++seq[n], ts, readings);
        }

        /** Moves a card's readings: most of them sit still most of the time, as on a real fleet. */
        private void step(int n, int c) {
            util[n][c] = Math.max(0, Math.min(100, util[n][c] + random.nextGaussian() * 5));
            if (random.nextInt(30) == 0) {
                temp[n][c] = 50 + random.nextInt(40);
            }
            sm[n][c] = Math.max(0, Math.min(1, sm[n][c] + random.nextGaussian() * 0.03));
            if (random.nextInt(300) == 0) {
                // a job ends or starts: the card drops to the bottom of its range or jumps to the top at once, as
                // fast as a mean can move
                boolean top = random.nextBoolean();
                util[n][c] = top ? 100 : 0;
                sm[n][c] = top ? 1 : 0;
            }
            if (random.nextInt(600) == 0) {
                // a job's phase changes: its tensor pipes go idle or busy at once
                tensor[n][c] = random.nextDouble();
            }
            double[] k = counters[n][c];
            int which = random.nextInt(k.length);
            switch (random.nextInt(200)) {
                case 0, 1, 2 -> k[which] += 1 + random.nextInt(20);
                case 3 -> k[which] = 0;
                case 4 -> k[which] = -1 - random.nextInt(3);
                default -> {
                }
            }
            if (random.nextInt(300) == 0) {
                flags[n][c] ^= 1 << random.nextInt(4);
            }
            if (random.nextInt(400) == 0) {
                width[n][c] = width[n][c] == 16 ? 8 : 16;
            }
        }

        private static String uuid(int n, int c) {
            return "GPU-" + n + "-" + c;
        }
    }
}
