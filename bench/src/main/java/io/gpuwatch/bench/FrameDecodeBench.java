package io.gpuwatch.bench;

import io.gpuwatch.protocol.codec.Decoded;
import io.gpuwatch.protocol.codec.FrameCodec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Decoding one {@code sample} frame of a node with 8 cards, every card metric set and a process per card: the
 * gateway's first step for every frame. Scores are frames per second; with {@code -prof gc} the allocation per
 * frame (the records the frame becomes).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class FrameDecodeBench {
    private final FrameCodec codec = new FrameCodec();
    private String text;

    @Setup
    public void setUp() {
        text = codec.encode(Fleets.sample(1, 42, 1_764_700_000_000L, new SplittableRandom(7)), "gpu-1");
    }

    @Benchmark
    public Decoded decodeSampleOf8Cards() {
        return codec.decode(text);
    }
}
