package io.gpuwatch.gateway.checkpoint;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.delivery.RecordingReceiver;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.reload.RuleFiles;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A gateway killed and restarted on its data directory decides as a clean run of the same scenario would: each
 * scenario runs once without a restart and once with the gateway killed right after a checkpoint write (the file
 * it wrote on stop is replaced by the one it had written before), down for some seconds while the probe buffers,
 * then restarted; the probe says hello again and re-sends what it buffered. The clock is injected and every tick
 * is driven by the test, one a second.
 */
@ExtendWith(VertxExtension.class)
class CheckpointRestartTest {
    private static final long T0 = 1_764_700_000_000L;
    private static final String NODE = "node-1";
    private static final String CARD = "GPU-1";
    private static final Hello HELLO = new Hello(1, NODE, "boot-1", "probe", "570.1", "12.570", Map.of(),
            List.of(new CardInfo(CARD, 0, "H100", null, null, null, null, null)));

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(T0);
    private RuleSet ruleSet = rules();

    private static RuleSet rules() {
        return rules("""
                group: restart
                layer: device
                severity: page
                rules:
                  - name: node-silent
                    scope: node
                    when: silentFor > 30s
                  - name: held-hot
                    scope: card
                    when: max(tempC, 1m) > 85
                    for: 60s
                  - name: hot
                    scope: card
                    when: tempC > 85
                    keep_firing_for: 10s
                """);
    }

    private static RuleSet rules(String yaml) {
        RuleLoad load = RuleSet.parse("restart.yml", yaml);
        assertTrue(load.ok(), load.diagnostics().toString());
        return load.ruleSet();
    }

    /** What the ledger ended up with: each alert's rule, when it fired and when it resolved (0: still firing). */
    private record Outcome(String rule, long firedAt, long resolvedAt) {
        @Override
        public String toString() {
            return rule + " fired +" + (firedAt - T0) / 1000 + "s" + (resolvedAt == 0 ? ", still firing"
                    : ", resolved +" + (resolvedAt - T0) / 1000 + "s");
        }
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    private Gateway gateway(Path data) {
        // a tick of 1 s, which the test drives; the gateway's own timer ticks again at the same injected instant,
        // which decides nothing new
        GatewayConfig config = new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 1000,
                "http://localhost").withDataDir(data);
        return new Gateway(config, ruleSet, RuleFiles.none(), () -> null, List.of(new RecordingReceiver("r")),
                () -> Instant.ofEpochMilli(now.get()));
    }

    /**
     * Runs {@code seconds} seconds: at each second the card's temperature {@code temp} gives (null: the node is
     * silent) arrives, then the gateway ticks. With {@code killAt} > 0 the gateway is killed at that second, just
     * after a checkpoint write (both files), and is down for {@code downFor} seconds.
     */
    private List<Outcome> run(Vertx vertx, String name, LongFunction<Double> temp, int seconds, int killAt,
                              int downFor) throws Exception {
        return run(vertx, name, temp, seconds, killAt, downFor, 0);
    }

    /** As above, the probe reconnecting {@code reconnectAfter} seconds after the restart (its back-off). */
    private List<Outcome> run(Vertx vertx, String name, LongFunction<Double> temp, int seconds, int killAt,
                              int downFor, int reconnectAfter) throws Exception {
        return run(vertx, name, (s, seq, ts) -> {
            Double t = temp.apply(s);
            return t == null ? null : new Sample(seq, ts, List.of(new CardReading(CARD,
                    MetricValues.builder().set(Metric.TEMP_C, t).build(), List.of())));
        }, seconds, killAt, downFor, reconnectAfter);
    }

    /** What the node sends at second {@code s}: frame {@code seq}, read at {@code ts}; null when it sends nothing. */
    private interface Script {
        Frame at(int s, long seq, long ts);
    }

    /** As above, the node sending what {@code script} says each second. */
    private List<Outcome> run(Vertx vertx, String name, Script script, int seconds, int killAt, int downFor,
                              int reconnectAfter) throws Exception {
        return run(vertx, name, script, seconds, killAt, downFor, reconnectAfter, 0);
    }

    /**
     * As above, the last checkpoint written {@code checkpointLag} seconds before the kill: the probe re-sends
     * everything from then, and what the gateway decided meanwhile is in its ledger only.
     */
    private List<Outcome> run(Vertx vertx, String name, Script script, int seconds, int killAt, int downFor,
                              int reconnectAfter, int checkpointLag) throws Exception {
        Path data = dir.resolve(name);
        now.set(T0);
        Gateway g = gateway(data);
        String id = await(vertx.deployVerticle(g));
        Gateway first = g;
        drive(first, () -> first.hello(HELLO));
        List<Frame> buffered = new ArrayList<>();
        long seq = 0;
        for (int s = 1; s <= seconds; s++) {
            now.set(T0 + s * 1000L);
            Frame sample = script.at(s, seq + 1, now.get());
            if (sample != null) {
                seq++;
            }
            List<Path> files = List.of(data.resolve(EvaluationFile.FILE_NAME),
                    data.resolve(Checkpoint.WINDOWS_FILE_NAME));
            if (killAt > 0 && s == killAt - checkpointLag) {
                Gateway writing = g;
                await(writing.onEventLoop(() -> writing.checkpoint().orElseThrow().save()).compose(f -> f));
                for (Path f : files) {
                    Files.copy(f, data.resolve(f.getFileName() + ".as-killed"), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            if (killAt > 0 && s >= killAt - checkpointLag && s < killAt && sample != null) {
                // taken by the gateway, but not acknowledged until a checkpoint holds it: the probe keeps it
                buffered.add(sample);
            }
            if (killAt > 0 && s >= killAt && s < killAt + downFor + reconnectAfter) {
                if (s == killAt) {
                    await(vertx.undeploy(id));
                    // a SIGKILL writes nothing on the way out: the last periodic or change-driven write is what is left
                    for (Path f : files) {
                        Files.move(data.resolve(f.getFileName() + ".as-killed"), f, StandardCopyOption.REPLACE_EXISTING);
                    }
                }
                if (s == killAt + downFor) {
                    g = gateway(data);
                    id = await(vertx.deployVerticle(g));
                }
                if (sample != null) {
                    buffered.add(sample);
                }
                if (s >= killAt + downFor) {
                    Gateway up = g;
                    drive(up, up::tick);
                }
                continue;
            }
            if (killAt > 0 && s == killAt + downFor + reconnectAfter) {
                if (reconnectAfter == 0) {
                    g = gateway(data);
                    id = await(vertx.deployVerticle(g));
                }
                if (sample != null) {
                    Gateway back = g;
                    drive(back, () -> {
                        back.hello(HELLO);
                        buffered.forEach(b -> back.frame(NODE, b));
                    });
                }
            }
            Gateway live = g;
            drive(live, () -> {
                if (sample != null) {
                    live.frame(NODE, sample);
                }
                live.tick();
            });
        }
        Gateway last = g;
        List<Outcome> out = new ArrayList<>();
        await(last.onEventLoop(() -> {
            for (Alert a : last.ledger().live()) {
                out.add(new Outcome(a.rule(), a.firedAt(), 0));
            }
            for (Alert a : last.ledger().history()) {
                out.add(new Outcome(a.rule(), a.firedAt(), a.resolvedAt()));
            }
            return null;
        }));
        await(vertx.undeploy(id));
        out.sort(Comparator.comparing(Outcome::rule).thenComparingLong(Outcome::firedAt));
        return out;
    }

    private static void drive(Gateway g, Runnable r) throws Exception {
        await(g.onEventLoop(() -> {
            r.run();
            return null;
        }));
    }

    @Test
    void aNodeSilentAcrossARestartPagesWhenACleanRunWould(Vertx vertx) throws Exception {
        LongFunction<Double> silentFrom10 = s -> s <= 10 ? 60.0 : null;
        List<Outcome> clean = run(vertx, "clean", silentFrom10, 70, 0, 0);
        assertEquals(List.of(new Outcome("node-silent", T0 + 41_000, 0)), clean);
        assertEquals(clean, run(vertx, "killed", silentFrom10, 70, 20, 5),
                "killed 10 s into the silence, down 5 s, the node never back");
    }

    @Test
    void aGatewayDownLongerThanTheSilenceLimitPagesNoNodeThatComesBack(Vertx vertx) throws Exception {
        // the node talks all along; the gateway is down 40 s (node-silent says 30 s) and the probe reconnects 8 s
        // after it is back: the gateway's own absence is not the node's silence
        LongFunction<Double> talking = s -> 60.0;
        List<Outcome> clean = run(vertx, "clean", talking, 90, 0, 0);
        assertEquals(List.of(), clean);
        assertEquals(clean, run(vertx, "killed", talking, 90, 20, 40, 8));
    }

    @Test
    void aNodeSilentBeforeALongRestartPagesAtTheRestart(Vertx vertx) throws Exception {
        // silent from +10 s; the gateway is killed at +20 s and down 40 s: the node was silent when the checkpoint
        // was taken, so its silence is its own, not the gateway's absence, and it pages at the first tick back
        LongFunction<Double> silentFrom10 = s -> s <= 10 ? 60.0 : null;
        List<Outcome> killed = run(vertx, "killed", silentFrom10, 120, 20, 40);
        assertEquals(List.of(new Outcome("node-silent", T0 + 60_000, 0)), killed);
    }

    @Test
    void anAlertPendingAcrossARestartFiresAtItsOriginalDeadline(Vertx vertx) throws Exception {
        // hot from the first second: pending at +1 s, firing at +61 s; the probe buffers 6 s while the gateway is down
        LongFunction<Double> hot = s -> 90.0;
        List<Outcome> clean = run(vertx, "clean", hot, 80, 0, 0);
        assertEquals(new Outcome("held-hot", T0 + 61_000, 0), clean.get(0));
        assertEquals(clean, run(vertx, "killed", hot, 80, 30, 6));
    }

    @Test
    void aPendingAlertKeepsItsWindowsAcrossARestart(Vertx vertx) throws Exception {
        // hot for 30 s, then the node is silent through the restart and after: max(tempC, 1m) holds on what the
        // windows held before the kill, so the alert fires at +61 s, and resolves when the hot minute has passed
        LongFunction<Double> hotThenSilent = s -> s <= 30 ? 90.0 : null;
        List<Outcome> clean = run(vertx, "clean", hotThenSilent, 100, 0, 0);
        assertEquals(List.of(new Outcome("held-hot", T0 + 61_000, T0 + 90_000),
                new Outcome("hot", T0 + 1_000, 0), new Outcome("node-silent", T0 + 61_000, 0)), clean);
        assertEquals(clean, run(vertx, "killed", hotThenSilent, 100, 40, 5));
    }

    @Test
    void aRestoredFiringAlertResolvesWhenItsConditionEnds(Vertx vertx) throws Exception {
        // hot until +20 s, cool after: `hot` keeps firing 10 s after the condition turned false
        LongFunction<Double> hotThenCool = s -> s <= 20 ? 90.0 : 60.0;
        List<Outcome> clean = run(vertx, "clean", hotThenCool, 100, 0, 0);
        assertEquals(new Outcome("hot", T0 + 1_000, T0 + 31_000), clean.get(1));
        assertEquals(clean, run(vertx, "killed", hotThenCool, 100, 25, 3), "killed while keep_firing_for counts");
        assertEquals(clean, run(vertx, "killed-hot", hotThenCool, 100, 15, 3), "killed while it fires");
    }

    @Test
    void aNodeThatNeverReturnsEndsAsNodeSilentNotAsAnAlertFiringForever(Vertx vertx) throws Exception {
        // hot, then silent for good from +20 s: `hot` reads the last sample for five minutes, then resolves
        LongFunction<Double> hotThenGone = s -> s <= 20 ? 90.0 : null;
        List<Outcome> clean = run(vertx, "clean", hotThenGone, 400, 0, 0);
        assertEquals(List.of(new Outcome("held-hot", T0 + 61_000, T0 + 80_000),
                new Outcome("hot", T0 + 1_000, T0 + 330_000), new Outcome("node-silent", T0 + 51_000, 0)), clean);
        assertEquals(clean, run(vertx, "killed", hotThenGone, 400, 25, 5));
    }

    @Test
    void anIncidentWhollyInsideTheDowntimePagesFromTheBacklogAsItHappened(Vertx vertx) throws Exception {
        // hot from +25 s to +35 s while the gateway is down from +20 s to +50 s: the probe re-sends it on its
        // return, and the card's rules run at the times it was read, so `hot` fires and resolves as in a clean run
        LongFunction<Double> blip = s -> s >= 25 && s <= 35 ? 90.0 : 60.0;
        List<Outcome> clean = run(vertx, "clean", blip, 80, 0, 0);
        assertEquals(List.of(new Outcome("hot", T0 + 25_000, T0 + 46_000)), clean);
        assertEquals(clean, run(vertx, "killed", blip, 80, 20, 30));
    }

    @Test
    void aBacklogLongerThanAWindowDoesNotResetAPendingAlert(Vertx vertx) throws Exception {
        // a 20 s average held for 30 s; the gateway is down 40 s while it is pending. Evaluated at arrival, the
        // first re-sent samples would see an empty 20 s window (the rest of the backlog not in yet), reset the
        // alert and fire it 30 s after the backlog, not when the condition had held for 30 s
        ruleSet = rules("""
                group: restart
                layer: device
                severity: page
                rules:
                  - name: warm
                    scope: card
                    when: avg(tempC, 20s) > 85
                    for: 30s
                """);
        LongFunction<Double> warm = s -> s >= 20 && s <= 100 ? 90.0 : 60.0;
        List<Outcome> clean = run(vertx, "clean", warm, 140, 0, 0);
        assertEquals(List.of(new Outcome("warm", T0 + 66_000, T0 + 104_000)), clean, "pending from +36 s");
        assertEquals(clean, run(vertx, "killed", warm, 140, 45, 40));
        assertEquals(clean, run(vertx, "killed-late", warm, 140, 45, 40, 6), "the probe back 6 s after the restart");
    }

    @Test
    void aTaskRuleKeepsItsWindowsAcrossARestart(Vertx vertx) throws Exception {
        // a collapse from a high: the task served 1,000 tokens/s until +30 s, nothing after; the rule needs the
        // high its two-minute window held before the kill, which only the checkpoint still has after it
        ruleSet = rules("""
                group: restart
                layer: application
                severity: page
                scope: task
                rules:
                  - name: tokens-collapsed
                    when: max(tokensPerSec, 2m) > 500 && tokensPerSec < 100
                    for: 60s
                """);
        Script app = (s, seq, ts) -> new App(seq, ts, "serve-1", "chat", "vllm",
                MetricValues.builder().set(Metric.TOKENS_PER_SEC, s <= 30 ? 1000 : 0).build());
        List<Outcome> clean = run(vertx, "clean", app, 200, 0, 0, 0);
        assertEquals(List.of(new Outcome("tokens-collapsed", T0 + 91_000, T0 + 150_000)), clean,
                "pending from +31 s; the high leaves the window at +150 s");
        assertEquals(clean, run(vertx, "killed", app, 200, 60, 5, 0));
    }

    @Test
    void anAlertResolvedAfterTheLastCheckpointDoesNotPageAgainAtTheRestart(Vertx vertx) throws Exception {
        // silent from +11 s to +50 s: node-silent fires at +41 s and resolves at +51 s. The last checkpoint before
        // the kill at +53 s is from +48 s and holds it firing, with the node silent since +10 s; the ledger holds
        // the resolve. The restarted gateway must not page the node as silent again before its probe is back
        LongFunction<Double> gap = s -> s > 10 && s <= 50 ? null : 60.0;
        Script samples = (s, seq, ts) -> gap.apply(s) == null ? null : new Sample(seq, ts, List.of(
                new CardReading(CARD, MetricValues.builder().set(Metric.TEMP_C, gap.apply(s)).build(), List.of())));
        List<Outcome> clean = run(vertx, "clean", samples, 90, 0, 0, 0, 0);
        assertEquals(List.of(new Outcome("node-silent", T0 + 41_000, T0 + 51_000)), clean);
        assertEquals(clean, run(vertx, "killed", samples, 90, 53, 5, 0, 5));
        assertEquals(clean, run(vertx, "killed-late", samples, 90, 53, 5, 4, 5), "the probe back 4 s after the restart");
    }

    @Test
    void anAlertThatFiredAfterTheLastCheckpointResolvesAsInACleanRun(Vertx vertx) throws Exception {
        // hot from +22 s to +25 s: fires at +22 s, its condition false from +26 s, resolved 10 s later. The last
        // checkpoint before the kill at +30 s is from +20 s, so only the ledger holds the alert; the windows are in
        // the checkpoint and the probe re-sends what came after, so nothing is missing to end it on time (it is
        // not held for its rule's two-minute window, as an alert whose windows are lost must be)
        ruleSet = rules("""
                group: restart
                layer: device
                severity: page
                rules:
                  - name: hot
                    scope: card
                    when: tempC > 85 && max(tempC, 2m) > 0
                    keep_firing_for: 10s
                """);
        LongFunction<Double> spike = s -> s >= 22 && s <= 25 ? 90.0 : 60.0;
        Script samples = (s, seq, ts) -> new Sample(seq, ts, List.of(new CardReading(CARD,
                MetricValues.builder().set(Metric.TEMP_C, spike.apply(s)).build(), List.of())));
        List<Outcome> clean = run(vertx, "clean", samples, 200, 0, 0, 0, 0);
        assertEquals(List.of(new Outcome("hot", T0 + 22_000, T0 + 36_000)), clean);
        assertEquals(clean, run(vertx, "killed", samples, 200, 30, 5, 0, 10), "killed while keep_firing_for counts");
        assertEquals(clean, run(vertx, "killed-after", samples, 200, 40, 5, 0, 20), "killed after it resolved");
    }

    @Test
    void aCorruptOrTruncatedCheckpointNeverStopsStartAndItsGoodLinesAreTaken(Vertx vertx) throws Exception {
        Path data = dir.resolve("corrupt");
        Files.createDirectories(data);
        Hello other = new Hello(1, "node-2", "boot-1", "probe", "570.1", "12.570", Map.of(), List.of());
        Path file = data.resolve(EvaluationFile.FILE_NAME);
        Gateway g = gateway(data);
        String id = await(vertx.deployVerticle(g));
        drive(g, () -> {
            g.hello(HELLO);
            g.hello(other);
        });
        await(vertx.undeploy(id));
        List<String> lines = Files.readAllLines(file);
        assertEquals(4, lines.size(), "header, node-1, its card, node-2: " + lines);
        // the card line cut mid-way (a disk that lost the tail of a write) and garbage after the last line
        lines.set(2, lines.get(2).substring(0, 30));
        lines.add("\u0000\u0000{not json");
        Files.write(file, lines);
        now.set(T0 + 10_000);
        Gateway back = gateway(data);
        String again = await(vertx.deployVerticle(back));
        List<String> nodes = await(back.onEventLoop(() -> back.fleet().nodes().stream()
                .map(n -> n.name() + ":" + n.cards().size()).toList()));
        assertEquals(List.of("node-1:1", "node-2:0"), nodes, "node-1 keeps the card its hello listed");
        await(vertx.undeploy(again));
    }
}
