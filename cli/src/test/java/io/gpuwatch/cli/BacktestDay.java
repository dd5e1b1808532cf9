package io.gpuwatch.cli;

import io.gpuwatch.gateway.backtest.Backtest;
import io.gpuwatch.gateway.backtest.TraceFrame;
import io.gpuwatch.probe.scenario.Scenario;
import io.gpuwatch.probe.scenario.ScenarioLoad;
import io.gpuwatch.probe.scenario.ScenarioLoader;
import io.gpuwatch.probe.sim.SimFleet;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.codec.FrameCodec;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;

import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPOutputStream;

/**
 * Not a unit test: measures how long a synthetic day of the demo fleet (4 nodes of 8 cards at 1 Hz, 2.76 M card
 * readings) takes to backtest through the example pack, first from frames held in memory, then end to end
 * from a gzipped trace file through {@code gpuwatch rules backtest}. Run from the cli folder:
 * {@code java -cp <test classpath> io.gpuwatch.cli.BacktestDay [hours] [trace.jsonl.gz]}.
 */
public final class BacktestDay {
    private static final long T0 = 1_764_700_000_000L;

    private BacktestDay() {
    }

    public static void main(String[] args) throws Exception {
        long hours = args.length > 0 ? Long.parseLong(args[0]) : 24;
        Path file = Path.of(args.length > 1 ? args[1] : "target/synthetic-day.jsonl.gz");
        RuleLoad rules = RuleSet.load(List.of(Path.of("../examples/rules")));
        if (!rules.ok()) {
            throw new IllegalStateException(rules.diagnostics().toString());
        }
        ScenarioLoad load = ScenarioLoader.load(Path.of("../examples/scenarios/demo.yaml"));
        Scenario demo = ((ScenarioLoad.Loaded) load).scenario();
        Scenario endless = demo.with(null, demo.seed());
        long seconds = hours * 3600;

        // the day is generated once into memory in chunks of an hour, so the simulator's cost is not timed
        List<List<TraceFrame>> hoursOfFrames = new ArrayList<>();
        SimFleet sim = new SimFleet(endless, T0);
        List<TraceFrame> chunk = new ArrayList<>();
        for (String node : sim.nodes()) {
            chunk.add(new TraceFrame(node, sim.hello(node)));
        }
        long readings = 0;
        long genStart = System.nanoTime();
        for (long s = 0; s < seconds; s++) {
            long at = T0 + s * 1000;
            for (String node : sim.nodes()) {
                if (sim.silent(node, at)) {
                    continue;
                }
                for (Event e : sim.eventsDue(node, at)) {
                    chunk.add(new TraceFrame(node, e));
                }
                var sample = sim.sample(node, at);
                readings += sample.cards().size();
                chunk.add(new TraceFrame(node, sample));
            }
            if ((s + 1) % 3600 == 0) {
                hoursOfFrames.add(chunk);
                chunk = new ArrayList<>();
            }
        }
        hoursOfFrames.add(chunk);
        System.out.printf(Locale.ROOT, "generated %,d card readings in %.1f s%n", readings,
                (System.nanoTime() - genStart) / 1e9);

        Iterable<TraceFrame> all = () -> hoursOfFrames.stream().flatMap(List::stream).iterator();
        for (int run = 1; run <= 3; run++) {
            long t = System.nanoTime();
            Backtest.Result r = Backtest.run(rules.ruleSet(), all, x -> { }, (f, v) -> { });
            double sec = (System.nanoTime() - t) / 1e9;
            System.out.printf(Locale.ROOT, "in memory, run %d: %,d card readings, %,d evaluations, %d alerts in %.2f s "
                            + "(%,.0f card readings/s)%n", run, r.stats().cardReadings(), r.stats().evaluations(),
                    r.alerts().size(), sec, r.stats().cardReadings() / sec);
        }

        FrameCodec codec = new FrameCodec();
        if (file.toAbsolutePath().getParent() != null) {
            Files.createDirectories(file.toAbsolutePath().getParent());
        }
        try (Writer w = new BufferedWriter(new OutputStreamWriter(new GZIPOutputStream(Files.newOutputStream(file),
                1 << 16), StandardCharsets.UTF_8), 1 << 20)) {
            for (TraceFrame f : all) {
                Frame frame = f.frame();
                w.write(codec.encode(frame, frame instanceof Hello ? null : f.node()));
                w.write('\n');
            }
        }
        hoursOfFrames.clear();
        System.out.printf(Locale.ROOT, "wrote %s (%,d bytes)%n", file, Files.size(file));
        for (int run = 1; run <= 2; run++) {
            long t = System.nanoTime();
            var cl = Main.commandLine();
            cl.setOut(new PrintWriter(Writer.nullWriter()));
            cl.setErr(new PrintWriter(System.out, true));
            int rc = cl.execute("rules", "backtest", "--rules", "../examples/rules", "--trace", file.toString(),
                    "--format", "json");
            System.out.printf(Locale.ROOT, "rules backtest from the trace file, run %d: exit %d in %.2f s%n", run, rc,
                    (System.nanoTime() - t) / 1e9);
        }
    }
}
