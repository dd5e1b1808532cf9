package io.gpuwatch.bench;

import io.gpuwatch.gateway.exposition.Encoding;
import io.gpuwatch.gateway.exposition.GpuExposition;
import io.gpuwatch.gateway.state.CardSnapshot;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.protocol.Event;
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

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * A scrape of {@code /metrics/gpus} at {@code cards} cards (8 per node, every card reading set, one attributed
 * process per card, an XID on one card in 48): {@code snapshot} is the copy that holds the event loop;
 * {@code plain} and {@code gzip} write and encode the text from it, as a worker does for a scraper without and
 * with gzip. Setup prints the series count and the bytes, plain and gzipped. Scores are milliseconds per scrape.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgs = {"-Xmx2g"})
public class ScrapeBench {
    private static final long NOW = 1_764_700_000_000L;

    @Param({"10000"})
    public int cards;

    private FleetState fleet;
    private List<CardSnapshot> snapshot;

    @Setup
    public void setUp() {
        fleet = new FleetState();
        SplittableRandom random = new SplittableRandom(7);
        int nodes = cards / Fleets.CARDS_PER_NODE;
        for (int n = 0; n < nodes; n++) {
            fleet.hello(Fleets.hello(n), NOW - 5_000);
            fleet.sample("gpu-" + n, Fleets.sample(n, 1, NOW - 1_000, random), NOW - 1_000, c -> { });
            if (n % 6 == 0) {
                fleet.event("gpu-" + n, new Event(2, NOW, Fleets.uuid(n, n % Fleets.CARDS_PER_NODE), "xid", 79,
                        "fell off the bus", null), NOW);
            }
        }
        snapshot = fleet.snapshot(NOW, 30_000);
        String text = GpuExposition.text(snapshot);
        long series = text.lines().filter(l -> !l.startsWith("#")).count();
        System.out.printf("%n%d cards: %d series, %d bytes, %d bytes gzipped%n", snapshot.size(), series,
                GpuExposition.encode(snapshot, false).body().length, GpuExposition.encode(snapshot, true).body().length);
    }

    /** The copy made on the event loop. */
    @Benchmark
    public List<CardSnapshot> snapshot() {
        return fleet.snapshot(NOW, 30_000);
    }

    /** Writing the text from the copy, plain, on a worker. */
    @Benchmark
    public Encoding plain() {
        return GpuExposition.encode(snapshot, false);
    }

    /** Writing and gzipping the text from the copy, on a worker, as Prometheus asks for it. */
    @Benchmark
    public Encoding gzip() {
        return GpuExposition.encode(snapshot, true);
    }
}
