package io.gpuwatch.bench;

import io.gpuwatch.gateway.window.MetricWindow;
import io.gpuwatch.gateway.window.WindowShape;
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

import java.util.concurrent.TimeUnit;

/**
 * One series' window at a 15-minute horizon: appending a 1 s sample, and the aggregates rules ask for, over a
 * window that is already full, so each append also retires old data. The {@code tick*} benchmarks are what a
 * rule does every second: append the new sample, then read one aggregate; {@code incremental=false} rescans the
 * window for every read, so the pair shows what the running aggregates save and that their cost does not grow
 * with the window's length. Scores are operations per second; with {@code -prof gc} the steady path should show
 * no allocation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class WindowBench {
    private static final long HORIZON_MS = 15 * 60_000;

    /** Running aggregates (true) or a rescan on every read (false). */
    @Param({"true", "false"})
    public boolean incremental;

    private MetricWindow window;
    private long ts;
    private double value;

    @Setup
    public void setUp() {
        window = new MetricWindow(WindowShape.forWindow(HORIZON_MS), false, incremental);
        ts = 1_764_700_000_000L;
        for (int i = 0; i < HORIZON_MS / 1000 + 60; i++) {
            append();
        }
    }

    private void append() {
        ts += 1000;
        value = value > 90 ? 40 : value + 1.5;
        window.append(ts, value);
    }

    @Benchmark
    public void append1sSample() {
        append();
    }

    @Benchmark
    public double avgOver5m() {
        return window.at(ts).avg(300_000);
    }

    @Benchmark
    public double slopeOver2m() {
        return window.at(ts).slope(120_000);
    }

    @Benchmark
    public double maxOver15m() {
        return window.at(ts).max(HORIZON_MS);
    }

    @Benchmark
    public double tickAvgOver1m() {
        append();
        return window.at(ts).avg(60_000);
    }

    @Benchmark
    public double tickAvgOver15m() {
        append();
        return window.at(ts).avg(HORIZON_MS);
    }

    @Benchmark
    public double tickMaxOver15m() {
        append();
        return window.at(ts).max(HORIZON_MS);
    }

    @Benchmark
    public double tickSlopeOver10m() {
        append();
        return window.at(ts).slope(600_000);
    }

    @Benchmark
    public double tickPredictOver15m() {
        append();
        return window.at(ts).predict(HORIZON_MS, HORIZON_MS);
    }
}
