package io.gpuwatch.bench;

import io.gpuwatch.gateway.coverage.CoverageBook;
import io.gpuwatch.gateway.coverage.CoverageReport;
import io.gpuwatch.gateway.state.FleetState;
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

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The coverage counts at {@code cards} cards (8 per node, every card reading set, a process each):
 * {@code countSample} counts one node's sample frame, as the gateway does on its event loop for every sample;
 * {@code report} groups the whole fleet, as {@code GET /api/v1/coverage} does. Scores are microseconds.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgs = {"-Xmx2g"})
public class CoverageBench {
    private static final long NOW = 1_764_700_200_000L;

    @Param({"10000"})
    public int cards;

    private FleetState fleet;
    private CoverageBook book;
    private Sample[] samples;
    private String[] names;
    private int next;
    private long at = NOW;

    @Setup
    public void setUp() {
        fleet = new FleetState();
        book = new CoverageBook(CoverageBook.DEFAULT_WINDOW_MS);
        SplittableRandom random = new SplittableRandom(7);
        int nodes = cards / Fleets.CARDS_PER_NODE;
        samples = new Sample[nodes];
        names = new String[nodes];
        for (int n = 0; n < nodes; n++) {
            fleet.hello(Fleets.hello(n), NOW);
            names[n] = "gpu-" + n;
            samples[n] = Fleets.sample(n, 1, NOW, random);
            book.frame(names[n], samples[n], NOW);
        }
    }

    /** One node's sample of 8 cards counted; the fleet's nodes in turn, a second apart per round. */
    @Benchmark
    public void countSample() {
        int n = next;
        book.frame(names[n], samples[n], at);
        if (++next == samples.length) {
            next = 0;
            at += 1000;
        }
    }

    /** The report of the whole fleet, grouped, with no rules loaded. */
    @Benchmark
    public CoverageReport report() {
        return book.report(fleet, RuleSet.empty(), at);
    }
}
