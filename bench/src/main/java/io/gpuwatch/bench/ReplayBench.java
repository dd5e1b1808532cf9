package io.gpuwatch.bench;

import io.gpuwatch.gateway.backtest.Backtest;
import io.gpuwatch.gateway.backtest.TraceFrame;
import io.gpuwatch.probe.scenario.Scenario;
import io.gpuwatch.probe.scenario.ScenarioLoad;
import io.gpuwatch.probe.scenario.ScenarioLoader;
import io.gpuwatch.probe.sim.SimFleet;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.rules.RuleSet;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The replay thread of {@code rules backtest} alone: the first {@code minutes} of a scenario's simulated fleet,
 * built once in memory as the recorder would write it, replayed through a rule pack by {@link Backtest#run} for
 * every operation (no trace reading, no report). One operation is one whole replay; card readings per second =
 * the score × the readings printed at setup. It leaves out what timing the command also measures (start-up,
 * the JIT's first minutes, the reader thread), so a profiler ({@code -prof}) sees the replay alone; run from the
 * repository root. Unlike the command's replay, which takes each frame freshly decoded from the reader thread,
 * it reads frames built long before from main memory: with a one-rule pack two thirds of its samples fall on the
 * loop copying a reading's values ({@code CardState.latest}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 10)
@Measurement(iterations = 5, time = 10)
// the launcher's flags for `rules backtest` (the gpuwatch script), so that what is measured is what users run
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseSerialGC", "-XX:PerMethodTrapLimit=0", "-XX:PerBytecodeTrapLimit=0"})
public class ReplayBench {
    @Param("bench/scenarios/day-32.yaml")
    public String scenario;

    @Param("examples/rules")
    public String rules;

    /** Minutes of fleet time replayed per operation; the first hour of day-32 holds no incident. */
    @Param("60")
    public int minutes;

    private final List<TraceFrame> frames = new ArrayList<>();
    private RuleSet set;

    @Setup
    public void setUp() {
        set = Packs.load(rules);
        ScenarioLoad loaded = ScenarioLoader.load(Path.of(scenario));
        if (!(loaded instanceof ScenarioLoad.Loaded ok)) {
            throw new IllegalStateException("cannot load " + scenario + ": " + loaded);
        }
        Scenario s = ok.scenario();
        long start = 1_764_547_200_000L;
        SimFleet fleet = new SimFleet(s, start);
        fleet.nodes().forEach(n -> frames.add(new TraceFrame(n, fleet.hello(n))));
        long readings = 0;
        long end = start + minutes * 60_000L;
        for (long now = start; now < end && !fleet.finished(now); now += s.intervalMs()) {
            for (String node : fleet.nodes()) {
                if (fleet.silent(node, now)) {
                    continue;
                }
                for (Event e : fleet.eventsDue(node, now)) {
                    frames.add(new TraceFrame(node, e));
                }
                Sample sample = fleet.sample(node, now);
                frames.add(new TraceFrame(node, sample));
                readings += sample.cards().size();
            }
        }
        System.out.printf("%n%,d frames, %,d card readings of %s over %d minutes: card readings/s = score × %d%n",
                frames.size(), readings, scenario, minutes, readings);
    }

    @Benchmark
    public Backtest.Result replay() {
        return Backtest.run(set, frames, s -> { }, (n, at) -> { });
    }
}
