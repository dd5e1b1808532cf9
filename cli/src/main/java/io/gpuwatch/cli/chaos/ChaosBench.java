package io.gpuwatch.cli.chaos;

import io.gpuwatch.probe.scenario.Scenario;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code gpuwatch bench chaos}: a clean run of a scenario, then trials that SIGKILL the gateway (or one of a
 * cluster's three) at random moments, mid-send and during a receiver outage, each compared with the clean run.
 */
public final class ChaosBench {
    /** Kills are armed no earlier than this into a run, and no later than this before its end. */
    private static final long KILL_FROM_MS = 10_000;
    private static final long KILL_MARGIN_MS = 30_000;
    /** Kills of one trial land at least this far apart where they fit, so each restart settles first. */
    private static final long KILL_GAP_MS = 20_000;

    /**
     * What to run.
     *
     * @param settleMs how long the fleet keeps sampling after the scenario's script, so open alerts can resolve
     * @param toleranceMs how far behind the clean run's a resolve may come before it counts as late
     * @param workDir where each run's data dirs, tokens and gateway logs go
     */
    public record Settings(Scenario scenario, List<Path> rules, int trials, int kills, long seed, int parallel,
                           long settleMs, long toleranceMs, boolean cluster, Path workDir) {
        public Settings {
            rules = List.copyOf(rules);
        }

        long runMs() {
            return scenario.duration().toMillis() + settleMs;
        }
    }

    /** The simulated probes' per-node chatter (silent, back) would drown the bench's own progress lines. */
    private static final Logger PROBE_LOG = Logger.getLogger("io.gpuwatch.probe");

    private ChaosBench() {
    }

    /** Plays the clean run, then the trials ({@code parallel} at a time), and compares them; progress goes to log. */
    public static ChaosReport run(Settings s, PrintWriter log) throws Exception {
        PROBE_LOG.setLevel(Level.WARNING);
        ChaosRun.Setup setup = new ChaosRun.Setup(s.scenario(), s.rules(), s.runMs(), s.cluster(), s.workDir());
        ChaosRun.Outcome clean = new ChaosRun(setup, "clean", List.of(), log).play();
        List<Long> sends = clean.received().stream().map(Delivery::atMs).distinct().toList();
        SplittableRandom random = new SplittableRandom(s.seed());
        List<List<Kill>> plans = new ArrayList<>();
        for (int t = 1; t <= s.trials(); t++) {
            plans.add(Kill.plan(random.split(), t, s.kills(), setup.gateways(), KILL_FROM_MS,
                    s.runMs() - KILL_MARGIN_MS, KILL_GAP_MS, sends));
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, s.parallel()));
        try {
            List<Future<ChaosRun.Outcome>> running = new ArrayList<>();
            for (int t = 0; t < plans.size(); t++) {
                ChaosRun run = new ChaosRun(setup, "trial-" + (t + 1), plans.get(t), log);
                running.add(pool.submit(run::play));
            }
            List<ChaosReport.Trial> trials = new ArrayList<>();
            for (Future<ChaosRun.Outcome> f : running) {
                ChaosRun.Outcome o = f.get();
                trials.add(new ChaosReport.Trial(o, Comparison.compare(clean.received(), o.received(), s.toleranceMs())));
            }
            return new ChaosReport(s, clean, trials);
        } finally {
            pool.shutdownNow();
        }
    }
}
