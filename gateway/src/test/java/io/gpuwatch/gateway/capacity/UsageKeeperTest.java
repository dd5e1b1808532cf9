package io.gpuwatch.gateway.capacity;

import io.gpuwatch.gateway.replay.Replay;
import io.gpuwatch.gateway.store.AsyncStore;
import io.gpuwatch.gateway.store.Backoff;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The keeper writes ten samples per transaction, reports include what it has not written yet, rows older than
 * the retention are pruned once an hour, and stopping writes what is pending.
 */
@ExtendWith(VertxExtension.class)
class UsageKeeperTest {
    private static final long T0 = 1_767_571_200_000L;
    private static final long MIN = 60_000L;

    @TempDir
    Path dir;

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @Test
    void writesInTensPrunesByAgeAndFlushesOnStop(Vertx vertx) throws Exception {
        RuleLoad load = RuleSet.parse("d.yml", """
                group: d
                layer: device
                rules:
                  - name: hot
                    scope: card
                    severity: notice
                    when: tempC > 95
                """);
        Replay replay = new Replay(load.ruleSet(), MIN, s -> { });
        replay.feed("n1", new Hello(1, "n1", "b1", "test", null, null, Map.of("pool", "owned"),
                List.of(new CardInfo("GPU-0", 0, "NVIDIA H100 80GB HBM3", null, null, null, null, null))), T0);
        AtomicLong now = new AtomicLong(T0);
        AsyncStore store = await(AsyncStore.open(vertx, dir.resolve("gpuwatch"), () -> Instant.ofEpochMilli(now.get()),
                Backoff.standard()));
        UsageKeeper keeper = new UsageKeeper(vertx, store, new UsageSampler(replay.fleet(), n -> true, MIN),
                () -> Instant.ofEpochMilli(now.get()), new UsageKeeper.Settings(MIN, 2 * 3_600_000L), () -> "USD");
        for (int m = 0; m <= 185; m++) {
            now.set(T0 + m * MIN);
            replay.feed("n1", new Sample(m + 1, now.get(), List.of(new CardReading("GPU-0",
                    MetricValues.builder().set(Metric.GPU_UTIL, 70).build(),
                    List.of(new ProcessInfo(3, null, "t", "ana", "chat"))))), now.get());
            await(keeper.sampleNow());
            if (m == 5) {
                assertArrayEquals(new long[] {0, 0}, await(store.run(s -> s.usageHistory().count())),
                        "five samples wait for the next write");
                assertEquals(5 / 60.0, await(keeper.report(3_600_000L)).totals().cardHours(), 1e-9,
                        "the report includes them");
            }
        }
        // rows of minutes 1–185; written every ten (the last at 180), pruned hourly: the prune at minute 180 took
        // minutes 1–59, so 60–180 are stored (121) and 181–185 wait
        assertArrayEquals(new long[] {121, 0}, await(store.run(s -> s.usageHistory().count())));
        await(keeper.stop());
        assertArrayEquals(new long[] {126, 0}, await(store.run(s -> s.usageHistory().count())));
        await(store.close());
    }
}
