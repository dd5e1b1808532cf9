package io.gpuwatch.bench;

import io.gpuwatch.gateway.checkpoint.Checkpoint;
import io.gpuwatch.gateway.checkpoint.Evaluation;
import io.gpuwatch.gateway.checkpoint.EvaluationFile;
import io.gpuwatch.gateway.eval.Evaluator;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.gateway.state.NodeImage;
import io.gpuwatch.gateway.state.NodeState;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * What the evaluation checkpoint costs a gateway of {@code cards} cards (8 per node) under {@code rules}: one
 * {@code capture} is the event loop's share of a checkpoint (copying every node, card, window and pending or
 * firing alert), one {@code write} the worker's (encoding them as {@code evaluation.jsonl} and writing it to a
 * temporary file moved over the last). A gateway does both every {@link Checkpoint#PERIOD_MS} ms, in which
 * {@code cards × PERIOD_MS / 1000} samples of a 1 Hz fleet arrive, so CPU-s per million samples = (capture + write
 * in seconds) × 1,000,000 / that. The file's size per card is printed at setup; a window's arrays are sized by
 * the rules' windows alone, so neither size nor cost depends on how full the windows are. Run from the repository
 * root, or set {@code -p rules=PATH}. {@link #main} measures the same in process CPU time (collections and the
 * compiler included), which a busy host does not inflate as it does the time per operation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(value = 1, jvmArgsAppend = {"-Xmx6g"})
public class CheckpointBench {
    private static final long T0 = 1_764_700_000_000L;
    /** Seconds of 1 Hz samples fed before measuring: enough that windows, events and alerts hold something. */
    private static final int HISTORY_S = 150;

    @Param("bench/side-by-side/rules/yardstick.yml")
    public String rules;

    @Param("50000")
    public int cards;

    private FleetState fleet;
    private Evaluator evaluator;
    private Evaluation captured;
    private Path dir;
    private Path file;
    private long now;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        fleet = new FleetState();
        evaluator = new Evaluator(fleet, Packs.load(rules), t -> { });
        int nodes = cards / Fleets.CARDS_PER_NODE;
        for (int n = 0; n < nodes; n++) {
            fleet.hello(Fleets.hello(n), T0);
        }
        SplittableRandom random = new SplittableRandom(7);
        for (int s = 1; s <= HISTORY_S; s++) {
            now = T0 + s * 1000L;
            for (int n = 0; n < nodes; n++) {
                fleet.sample("gpu-" + n, Fleets.sample(n, s, now, random), now, card -> { });
            }
            if (s % 15 == 0) {
                evaluator.tick(now, 1000);
            }
        }
        captured = capture();
        dir = Files.createTempDirectory("checkpoint-bench");
        file = dir.resolve(Checkpoint.WINDOWS_FILE_NAME);
        write();
        long bytes = Files.size(file);
        System.out.printf("%n%s, %,d cards: %s is %,d bytes, %,d per card; windows and event logs on the heap %,d "
                        + "bytes per card; %,d pending or firing alerts%n", rules, cards, Checkpoint.WINDOWS_FILE_NAME,
                bytes, bytes / cards, fleet.retainedBytes() / cards, captured.alerts().size());
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        Files.deleteIfExists(file);
        Files.deleteIfExists(dir);
    }

    /** Card values a sample carries, as the fleet figures count samples (docs/performance.md). */
    static final int SAMPLES_PER_CARD = 29;

    /**
     * {@code RULES CARDS ROUNDS}: after the setup above, {@code ROUNDS} checkpoints (capture then write), printing the
     * process CPU each took, the share the capture took on its thread (the event loop's part), the file's bytes per
     * card, CPU-s per million samples at one checkpoint every {@link Checkpoint#PERIOD_MS} ms, and the interval
     * the {@link Checkpoint#DUTY duty cycle} stretches that to.
     */
    public static void main(String[] args) throws IOException {
        CheckpointBench b = new CheckpointBench();
        b.rules = args.length > 0 ? args[0] : "bench/side-by-side/rules/yardstick.yml";
        b.cards = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        b.setUp();
        Path changes = b.dir.resolve("changes.jsonl");
        Evaluation small = b.capture(false);
        EvaluationFile.write(changes, small);
        System.out.printf("%s without windows is %,d bytes, %,d per card%n", EvaluationFile.FILE_NAME,
                Files.size(changes), Files.size(changes) / b.cards);
        com.sun.management.OperatingSystemMXBean osBean =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        for (int i = 0; i < 3; i++) {
            EvaluationFile.write(changes, b.capture(false));
        }
        long c0 = osBean.getProcessCpuTime();
        for (int i = 0; i < rounds; i++) {
            EvaluationFile.write(changes, b.capture(false));
        }
        double changesS = (osBean.getProcessCpuTime() - c0) / 1e9 / rounds;
        double changesInterval = Math.max(Checkpoint.PERIOD_MS / 1000.0, changesS * (1 / Checkpoint.DUTY - 1));
        System.out.printf("without windows: %.3f CPU-s per write, one every %.1f s: %.4f CPU-s per million "
                + "samples%n", changesS, changesInterval, changesS / (b.cards * SAMPLES_PER_CARD * changesInterval) * 1e6);
        Files.delete(changes);
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 3; i++) {
            b.captured = b.capture();
            b.write();
        }
        long captureCpu = 0;
        long cpu0 = os.getProcessCpuTime();
        for (int i = 0; i < rounds; i++) {
            long t0 = threads.getCurrentThreadCpuTime();
            b.captured = b.capture();
            captureCpu += threads.getCurrentThreadCpuTime() - t0;
            b.write();
        }
        double perCheckpointS = (os.getProcessCpuTime() - cpu0) / 1e9 / rounds;
        double samplesPerPeriod = (double) b.cards * SAMPLES_PER_CARD * Checkpoint.PERIOD_MS / 1000;
        double intervalS = Math.max(Checkpoint.PERIOD_MS / 1000.0, perCheckpointS * (1 / Checkpoint.DUTY - 1));
        System.out.printf("%,d cards, %d checkpoints: %.3f CPU-s per checkpoint (capture on its thread %.3f s), "
                        + "%.3f CPU-s per million samples at one every %d s; duty-limited to one every %.1f s, "
                        + "%.3f CPU-s per million samples%n", b.cards, rounds, perCheckpointS, captureCpu / 1e9 / rounds,
                perCheckpointS / samplesPerPeriod * 1e6, Checkpoint.PERIOD_MS / 1000,
                intervalS, perCheckpointS / (b.cards * SAMPLES_PER_CARD * intervalS) * 1e6);
        b.tearDown();
    }

    /** The event loop's share of {@code windows.jsonl}: a copy of everything the checkpoint holds. */
    @Benchmark
    public Evaluation capture() {
        return capture(true);
    }

    private Evaluation capture(boolean withWindows) {
        List<NodeImage> nodes = new ArrayList<>();
        for (NodeState n : fleet.nodes()) {
            nodes.add(fleet.image(n.name(), withWindows, true));
        }
        return new Evaluation(now, nodes, evaluator.engine().images());
    }

    /** The worker's share: encoding the copy and writing it, temporary file and move included. */
    @Benchmark
    public long write() throws IOException {
        EvaluationFile.write(file, captured);
        return Files.size(file);
    }
}
