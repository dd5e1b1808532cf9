package io.gpuwatch.bench;

import io.gpuwatch.probe.scenario.Scenario;
import io.gpuwatch.probe.scenario.ScenarioError;
import io.gpuwatch.probe.scenario.ScenarioLoad;
import io.gpuwatch.probe.scenario.ScenarioLoader;
import io.gpuwatch.probe.sim.SimFleet;
import io.gpuwatch.probe.trace.Recording;
import io.gpuwatch.probe.trace.TraceWriter;
import io.gpuwatch.protocol.Event;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the backtest benchmark's trace: a scenario's simulated fleet stepped in virtual time (no gateway, no
 * waiting) for the scenario's duration, recorded as {@code probe --sim --record} records it. A silent node sends
 * nothing; its events come after the silence, as its uplink's replay would bring them.
 *
 * <p>{@code java -cp bench/target/benchmarks.jar io.gpuwatch.bench.DayTrace SCENARIO OUT [START_EPOCH_MS]}
 */
public final class DayTrace {
    /** Virtual seconds between waits for the writer, which keep its queue from shedding readings. */
    private static final int FLUSH_EVERY_STEPS = 600;

    private DayTrace() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2 || args.length > 3) {
            System.err.println("usage: DayTrace SCENARIO OUT [START_EPOCH_MS]");
            System.exit(2);
        }
        ScenarioLoad load = ScenarioLoader.load(Path.of(args[0]));
        if (load instanceof ScenarioLoad.Invalid invalid) {
            for (ScenarioError e : invalid.errors()) {
                System.err.println(e);
            }
            System.exit(1);
        }
        Scenario scenario = ((ScenarioLoad.Loaded) load).scenario();
        if (scenario.duration() == null) {
            System.err.println(args[0] + ": the scenario needs a duration to be recorded offline");
            System.exit(1);
        }
        long start = args.length == 3 ? Long.parseLong(args[2]) : 1_764_547_200_000L;
        Path out = Path.of(args[1]);
        Files.deleteIfExists(out);
        long frames = record(scenario, start, out);
        System.err.printf("%s: %,d frames of %d nodes × %d cards over %s%n", out, frames, scenario.nodes(),
                scenario.cardsPerNode(), scenario.duration());
    }

    /** Records the whole scenario from {@code start} into {@code out}; returns the frames written. */
    static long record(Scenario scenario, long start, Path out) throws IOException {
        SimFleet fleet = new SimFleet(scenario, start);
        long frames = 0;
        try (TraceWriter writer = TraceWriter.open(out, Integer.MAX_VALUE)) {
            Recording rec = new Recording(writer);
            fleet.nodes().forEach(n -> rec.hello(fleet.hello(n)));
            long step = 0;
            for (long now = start; !fleet.finished(now); now += scenario.intervalMs(), step++) {
                for (String node : fleet.nodes()) {
                    if (fleet.silent(node, now)) {
                        continue;
                    }
                    for (Event e : fleet.eventsDue(node, now)) {
                        rec.record(node, e);
                        frames++;
                    }
                    rec.record(node, fleet.sample(node, now));
                    frames++;
                }
                if (step % FLUSH_EVERY_STEPS == 0) {
                    writer.flush().join();
                }
            }
            long dropped = writer.stats().droppedReadings();
            if (dropped > 0) {
                throw new IOException(out + ": " + dropped + " readings were shed");
            }
        }
        return frames + fleet.nodes().size();
    }
}
